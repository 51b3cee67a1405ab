"""Adapters from outside the package: a dotted path or an installed entry point.

The plug-in is a real package built in tmp_path (and, for the entry point, a dist-info
folder beside it, as pip would install it); `run` uses it end to end through the CLI.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from labtest import install_plugin
from localagentbench.agents import AGENTS, make_agent
from localagentbench.errors import ConfigError

FIXER = '''\
"""A small real adapter: it fixes calc.py the way the reference does."""

import time

from localagentbench.agents import AgentContext, AgentOutcome, BaseAgent


class FixingAgent(BaseAgent):
    name = "fixer"
    uses_model = False

    def __init__(self, settings):
        self.greeting = settings.get("greeting", "Fixed add(); done.")

    def version(self):
        return "0.1"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        start = time.monotonic()
        path = ctx.workspace / "calc.py"
        path.write_text(path.read_text().replace("a - b", "a + b"))
        return AgentOutcome(exit_code=0, timed_out=False, wall_s=time.monotonic() - start,
                            stdout=self.greeting + "\\n", final_answer=self.greeting)


def Factory(settings):
    return FixingAgent(settings)


def not_an_agent(settings):
    return 42


class Bare:
    """A name and run() only: none of the capabilities the Agent Protocol declares."""

    name = "bare"

    def run(self, ctx):
        raise AssertionError("never run")


def bare(settings):
    return Bare()


def needs_two(settings, other):
    return FixingAgent(settings)
'''


@pytest.fixture(autouse=True)
def _forget_plugin_modules() -> Iterator[None]:
    """Each test imports its own copy of the plug-in package."""
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == "lab_plugin_pkg"]:
        del sys.modules[name]


def _plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry_points: str = "") -> Path:
    """Install `lab_plugin_pkg` in a folder on sys.path, with entry points when given."""
    site = install_plugin(
        tmp_path / "site", "lab_plugin_pkg", {"fixer": FIXER}, entry_points, "lab-plugin"
    )
    monkeypatch.syspath_prepend(str(site))
    return site


ENTRY_POINTS = "[localagentbench.agents]\nfixer = lab_plugin_pkg.fixer:Factory\n"


def _run(cli, tmp_path: Path, agent: str) -> tuple[int, str, list[dict[str, object]]]:
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "--tasks", str(tmp_path / "suite"), "--agent", agent, "--out", str(out)
    )
    records = [json.loads(p.read_text()) for p in sorted(out.glob("trials/*/record.json"))]
    return code, err, records


def test_run_with_a_dotted_path_adapter_completes_a_trial(cli, make_task, tmp_path, monkeypatch):
    make_task()
    _plugin(tmp_path, monkeypatch)
    code, err, [record] = _run(cli, tmp_path, "lab_plugin_pkg.fixer:Factory")
    assert code == 0, err
    assert record["status"] == "completed"
    assert record["agent"] == "lab_plugin_pkg.fixer:Factory"
    assert record["success"] is True
    assert record["final_answer"] == "Fixed add(); done."


def test_run_with_an_entry_point_adapter_completes_a_trial(cli, make_task, tmp_path, monkeypatch):
    make_task()
    _plugin(tmp_path, monkeypatch, ENTRY_POINTS)
    assert "fixer" in AGENTS
    code, err, [record] = _run(cli, tmp_path, "fixer")
    assert code == 0, err
    assert record["status"] == "completed"
    assert record["agent"] == "fixer"
    assert record["success"] is True


def test_agents_command_lists_entry_point_adapters(cli, tmp_path, monkeypatch):
    _plugin(tmp_path, monkeypatch, ENTRY_POINTS)
    code, out, _ = cli("agents", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(rows) == set(AGENTS)
    fixer = rows["fixer"]
    assert fixer["found"] is True
    assert fixer["version"] == "0.1"
    assert "entry point of lab-plugin" in fixer["note"]
    assert "lab_plugin_pkg.fixer:Factory" in fixer["note"]


def test_an_unknown_name_lists_entry_points_and_a_close_name(cli, tmp_path, monkeypatch):
    _plugin(tmp_path, monkeypatch, ENTRY_POINTS)
    code, _, err = cli("run", "--agent", "fixr", "--out", str(tmp_path / "r"))
    assert code == 2
    [line] = err.strip().splitlines()
    assert line.startswith("error: unknown agent 'fixr'; valid: ")
    assert "fixer" in line.split("valid: ")[1]
    assert line.endswith("did you mean 'fixer'?")


def test_a_built_in_name_wins_over_an_entry_point(tmp_path, monkeypatch):
    _plugin(
        tmp_path, monkeypatch, "[localagentbench.agents]\nmock = lab_plugin_pkg.fixer:Factory\n"
    )
    assert type(make_agent("mock", {})).__name__ == "MockAgent"
    assert AGENTS.names().count("mock") == 1


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "lab_no_such_pkg.agent:Factory",
            r"'lab_no_such_pkg.agent:Factory' \(dotted path .*\) "
            r"does not import: No module named 'lab_no_such_pkg'",
        ),
        ("lab_plugin_pkg.fixer:Missing", r"no such attribute: .*Missing"),
        ("lab_plugin_pkg.fixer:not_an_agent", r"returned int, not an Agent"),
        ("lab_plugin_pkg.fixer:bare", r"returned Bare, not an Agent .*subclass .*BaseAgent"),
        ("lab_plugin_pkg.fixer:needs_two", r"must be callable as factory\(settings: dict\)"),
    ],
)
def test_a_dotted_path_that_fails_is_one_line_naming_it(tmp_path, monkeypatch, name, expected):
    _plugin(tmp_path, monkeypatch)
    with pytest.raises(ConfigError, match=expected) as info:
        make_agent(name, {})
    assert "\n" not in str(info.value)
    assert name in str(info.value)


def test_a_broken_entry_point_is_one_line_naming_its_distribution(tmp_path, monkeypatch):
    _plugin(tmp_path, monkeypatch, "[localagentbench.agents]\nbroken = lab_gone.mod:Factory\n")
    with pytest.raises(ConfigError, match=r"'broken' \(entry point of lab-plugin lab_gone.mod:"):
        make_agent("broken", {})


def test_a_matrix_file_names_a_plug_in_adapter_with_its_settings(tmp_path, monkeypatch):
    from localagentbench.runner import load_matrix

    _plugin(tmp_path, monkeypatch, ENTRY_POINTS)
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text(
        "configurations:\n"
        "  a: {agent: fixer, settings: {greeting: hi}}\n"
        "  b: {agent: 'lab_plugin_pkg.fixer:not_an_agent'}\n"
    )
    with pytest.raises(ConfigError, match=r"configurations\.b: agent .* returned int"):
        load_matrix(matrix)
    matrix.write_text("configurations:\n  a: {agent: fixer, settings: {greeting: hi}}\n")
    [config] = load_matrix(matrix).configurations
    assert make_agent(config.agent, config.agent_settings()).greeting == "hi"  # type: ignore[attr-defined]
