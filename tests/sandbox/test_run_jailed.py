"""`run_jailed`: the runner's one call, end to end through the public API."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from localagentbench._proc import Cancelled
from localagentbench.sandbox import Sandbox, isolation_level, run_jailed

from ._helpers import backend_or_skip, make_spec


@pytest.fixture(params=["bwrap", "landlock", "none"])
def any_backend(request: pytest.FixtureRequest) -> Sandbox:
    return backend_or_skip(str(request.param))


def test_run_jailed_reports_result_level_and_leftovers(
    any_backend: Sandbox, trial: dict[str, Path]
) -> None:
    run = run_jailed(
        any_backend, ["/bin/sh", "-c", "echo out; sleep 60 &"], make_spec(trial), timeout_s=30
    )
    assert run.result.exit_code == 0, run.result.stderr
    assert run.result.stdout == "out\n"
    assert run.isolation == isolation_level(any_backend)
    assert run.jail_failure is None
    assert run.leftover_processes == 1


def test_timeout_is_reported_and_nothing_survives(
    any_backend: Sandbox, trial: dict[str, Path]
) -> None:
    run = run_jailed(any_backend, ["sleep", "60"], make_spec(trial), timeout_s=0.5, grace_s=0.5)
    assert run.result.timed_out
    assert run.jail_failure is None


def test_cancel_stops_the_jail(any_backend: Sandbox, trial: dict[str, Path]) -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    with pytest.raises(Cancelled):
        run_jailed(any_backend, ["sleep", "60"], make_spec(trial), timeout_s=30, cancel=cancel)


def test_jail_that_cannot_start_is_an_infra_failure(trial: dict[str, Path]) -> None:
    """A launcher that cannot set the jail up must not look like the agent failing."""
    sandbox = backend_or_skip("bwrap")
    # Port 1 is privileged: as an ordinary user the forwarder cannot listen there.
    spec = make_spec(trial, network="gateway", gateway_port=1, agent_uid=61001)
    run = run_jailed(sandbox, ["true"], spec, timeout_s=30)
    if run.result.exit_code == 0:
        pytest.skip("binding port 1 is allowed here (root keeps CAP_NET_BIND_SERVICE for it)")
    assert run.jail_failure is not None
    assert "jail setup failed" in run.jail_failure


def test_bwrap_that_cannot_exec_the_launcher_is_an_infra_failure(trial: dict[str, Path]) -> None:
    sandbox = backend_or_skip("bwrap")
    spec = make_spec(trial, python=Path("/nonexistent/python3"))
    run = run_jailed(sandbox, ["true"], spec, timeout_s=30)
    assert run.result.exit_code != 0
    assert run.jail_failure is not None
    assert run.jail_failure.startswith("bwrap: ")
