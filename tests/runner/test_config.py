"""Configurations from flags and matrix files; lanes limit concurrency."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import pytest

from localagentbench.errors import ConfigError
from localagentbench.runner import LocalExecutor, configuration_from_cli, load_matrix


def test_cli_configuration_ids():
    assert configuration_from_cli("mock", None, mock_behavior="solve").id == "mock-solve"
    assert (
        configuration_from_cli("command", "ollama/q:7b", agent_cmd="a b").id
        == "command-ollama-q-7b"
    )
    assert configuration_from_cli(
        "command", None, agent_cmd="./x --y 'a b'", base=Path("/base")
    ).command == ["/base/x", "--y", "a b"]


def test_cli_flags_that_do_not_go_together():
    with pytest.raises(ConfigError, match="--agent-cmd goes with --agent command"):
        configuration_from_cli("mock", None, agent_cmd="x")
    with pytest.raises(ConfigError, match="needs --agent-cmd"):
        configuration_from_cli("command", None)


def test_matrix_file_list_and_mapping_forms(tmp_path: Path):
    (tmp_path / "m.yaml").write_text(
        "lanes: {gpu: 1}\nconfigurations:\n  ref: {agent: mock, settings: {behavior: solve}}\n"
        "  mine: {agent: command, command: './a.sh --fast', env: [KEY], lane: gpu}\n"
    )
    matrix = load_matrix(tmp_path / "m.yaml")
    ids = [c.id for c in matrix.configurations]
    assert ids == ["ref", "mine"]
    assert matrix.configurations[1].agent_settings() == {
        "command": [str(tmp_path / "a.sh"), "--fast"],
        "env": ["KEY"],
    }
    assert matrix.lanes == {"gpu": 1}


def test_matrix_errors_name_file_and_field(tmp_path: Path):
    path = tmp_path / "m.yaml"
    path.write_text("configurations:\n  - {id: a, agent: mock, colour: red}\n")
    with pytest.raises(ConfigError, match=r"m.yaml: configurations.0.colour: unknown field"):
        load_matrix(path)
    path.write_text("configurations:\n  - {id: a, agent: mock}\n  - {id: a, agent: mock}\n")
    with pytest.raises(ConfigError, match="duplicate configuration id 'a'"):
        load_matrix(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "configurations:\n  a: {agent: mock, lnae: gpu}\n",
            "configurations.a.lnae: unknown field `lnae`; did you mean `lane`?",
        ),
        (
            "configuration:\n  a: {agent: mock}\n",
            "configuration: unknown field `configuration`; did you mean `configurations`?",
        ),
        (
            "configurations:\n  a: {model: ollama/q}\n",
            "configurations.a.agent: required field `agent` is missing",
        ),
        (
            "configurations:\n  a: {agent: mock\n  b: [\n",
            "malformed YAML: line 3: did not find expected ',' or '}'; fix the syntax",
        ),
        (
            "configurations:\n  a: {agent: mock, settings: {behaviour: solve}}\n",
            "configurations.a: mock agent: behaviour:",
        ),
        ("- just a list\n", "a matrix file is a mapping with `configurations:`"),
    ],
)
def test_matrix_errors_read_like_task_errors(tmp_path: Path, text: str, message: str) -> None:
    """Line numbers for YAML, "did you mean" for keys, sentences for missing fields, the file
    named for an adapter settings typo."""
    path = tmp_path / "m.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_matrix(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_matrix_errors_are_one_line_in_the_cli(tmp_path: Path, cli) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("configurations:\n  a: {agent: mock, comand: [x]}\n")
    code, _, err = cli("run", "--config", str(path))
    assert code == 2
    assert err.strip() == (
        f"error: {path}: configurations.a.comand: unknown field `comand`; did you mean `command`?"
    )


@dataclass(frozen=True)
class _Job:
    lane: str
    n: int


def test_lane_limits_hold_under_concurrency():
    running: dict[str, int] = {"gpu": 0, "api": 0}
    peak: dict[str, int] = {"gpu": 0, "api": 0}
    lock = threading.Lock()

    def work(job: _Job) -> int:
        with lock:
            running[job.lane] += 1
            peak[job.lane] = max(peak[job.lane], running[job.lane])
        time.sleep(0.05)
        with lock:
            running[job.lane] -= 1
        return job.n

    done: list[int] = []

    def on_done(job: _Job, future: Future[int]) -> None:
        done.append(future.result())

    jobs = [_Job("gpu", i) for i in range(4)] + [_Job("api", 10 + i) for i in range(6)]
    LocalExecutor(4, {"gpu": 1}).run(jobs, work, on_done, lambda: False, threading.Event())
    assert sorted(done) == sorted(j.n for j in jobs)
    assert peak["gpu"] == 1
    assert peak["api"] > 1


def test_tool_call_repair_is_part_of_the_configuration(tmp_path: Path, cli) -> None:
    """A harness effect: it names the CLI configuration and is recorded in matrix ones."""
    plain = configuration_from_cli("mini-swe-agent", "llamacpp/qwen2.5-coder-0.5b")
    repaired = configuration_from_cli(
        "mini-swe-agent", "llamacpp/qwen2.5-coder-0.5b", tool_call_repair=True
    )
    assert not plain.tool_call_repair
    assert repaired.tool_call_repair
    assert repaired.id == f"{plain.id}-repair"
    matrix = tmp_path / "m.yaml"
    matrix.write_text(
        "configurations:\n"
        "  a: {agent: mock, model: scripted/fix-greeting, tool_call_repair: true}\n"
    )
    [config] = load_matrix(matrix).configurations
    assert config.tool_call_repair
    code, _, err = cli("run", "--config", str(matrix), "--tool-call-repair")
    assert code == 2
    assert "tool_call_repair: true" in err
