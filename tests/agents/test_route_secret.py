"""Issue 35: a trial's route URL is a capability; no adapter puts it on a command line.

Under landlock every process on the host can read every other's /proc/PID/cmdline, so a
base URL passed as an argument would hand the route's secret to a sibling trial's agent.
Each adapter must pass it in its environment or a config file under the trial's HOME.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.agents import AGENTS, make_agent
from localagentbench.gateway import Gateway

from ._e2e import trial_context

CLI_AGENTS = [name for name in AGENTS.names() if name not in {"mock", "command", "acp"}]
"""Every adapter that builds its own command line (command and acp run the user's)."""


@pytest.mark.parametrize("name", CLI_AGENTS)
def test_the_route_secret_is_never_on_the_command_line(
    name: str, make_task, tmp_path: Path
) -> None:
    with Gateway() as gateway:
        ctx = trial_context(make_task(), tmp_path, gateway)
        assert ctx.route is not None
        secret = ctx.route.base_url.rsplit("/", 1)[1]
        assert len(secret) >= 32
        invocation = make_agent(name, {}).invocation(ctx, ctx.route, Path(f"/opt/{name}/bin/x"))
    assert not any(secret in arg for arg in invocation.argv), invocation.argv
    in_env = any(secret in value for value in invocation.env.values())
    in_home = any(
        secret in path.read_text(errors="replace") for path in ctx.home.rglob("*") if path.is_file()
    )
    assert in_env or in_home, f"{name} is not pointed at its route at all"
