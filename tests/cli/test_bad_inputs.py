"""Every bad input a user can give is one line on stderr, exit 2, and leaves no run behind."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from localagentbench.records import ConfigurationInfo, RunDir, RunInfo
from localagentbench.runner import restart_options

from ._runs import make_run

Setup = Callable[[Path], list[str]]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _file(root: Path) -> Path:
    path = root / "a-file"
    path.write_text("not a folder\n")
    return path


def _finished_run(root: Path) -> Path:
    """A run directory with one finished trial (synthetic records)."""
    return make_run(root / "done", {("calc-add", "mock-noop", 1): False})


def _bad_prices(root: Path) -> str:
    """A price table whose entry lacks its output price."""
    path = root / "prices.yaml"
    path.write_text("prices:\n  - {model: 'openai/*', input_per_million: 1, date: 2026-12-01}\n")
    return str(path)


CASES: dict[str, Setup] = {
    "run --prices a bad table": lambda r: ["run", "--agent", "mock", "--prices", _bad_prices(r)],
    "tables --prices a bad table": lambda r: [
        "tables",
        str(_finished_run(r)),
        "--prices",
        _bad_prices(r),
    ],
    "run --out an existing file": lambda r: ["run", "--agent", "mock", "--out", str(_file(r))],
    "run --out under /proc": lambda r: ["run", "--agent", "mock", "--out", "/proc/lab-run"],
    "run --out under /sys": lambda r: ["run", "--agent", "mock", "--out", "/sys/lab-run"],
    "run --out under a file": lambda r: ["run", "--agent", "mock", "--out", f"{_file(r)}/run"],
    "run --workdir-root an existing file": lambda r: [
        "run",
        "--agent",
        "mock",
        "--workdir-root",
        str(_file(r)),
    ],
    "run --workdir-root under /proc": lambda r: [
        "run",
        "--agent",
        "mock",
        "--workdir-root",
        "/proc/lab-work",
    ],
    "report --out an existing file": lambda r: [
        "report",
        str(_finished_run(r)),
        "--out",
        str(_file(r)),
    ],
    "report --out under /proc": lambda r: ["report", str(_finished_run(r)), "--out", "/proc/s"],
    "report --out under a file": lambda r: [
        "report",
        str(_finished_run(r)),
        "--out",
        f"{_file(r)}/site",
    ],
    "dead endpoint": lambda r: [
        "run",
        "--agent",
        "command",
        "--agent-cmd",
        "true",
        "--model",
        "openai/x",
        "--out",
        str(r / "run"),
    ],
    "dead endpoint, default --out": lambda r: [
        "run",
        "--agent",
        "command",
        "--agent-cmd",
        "true",
        "--model",
        "openai/x",
    ],
    "unknown backend": lambda r: [
        "run",
        "--agent",
        "command",
        "--agent-cmd",
        "true",
        "--model",
        "nosuch/x",
        "--out",
        str(r / "run"),
    ],
    "missing agent program": lambda r: [
        "run",
        "--agent",
        "command",
        "--agent-cmd",
        "./missing.sh",
        "--out",
        str(r / "run"),
    ],
    "resume --model after a finished trial": lambda r: [
        "run",
        "--resume",
        str(_finished_run(r)),
        "--model",
        "openai/y",
    ],
}


_STEP_DONE = re.compile(r".+: done in \d+\.\ds")


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_one_line_exit_2_and_leaves_nothing(
    name, cli, make_task, tmp_path, monkeypatch
):
    suite = make_task().parent
    root = tmp_path / "user"
    root.mkdir()
    args = CASES[name](root)
    if args[0] == "run" and "--resume" not in args:
        args += ["--tasks", str(suite)]
    monkeypatch.chdir(root)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    code, out, err = cli(*args)
    assert code == 2, err
    # A run that got as far as preparing says which steps it finished (piped progress,
    # issue 39): those lines aside, the error is one line.
    err = "\n".join(line for line in err.splitlines() if not _STEP_DONE.fullmatch(line))
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ")
    assert "Traceback" not in out + err
    after = sorted(p.relative_to(root) for p in root.rglob("*"))
    assert after == before, "a bad input left files behind"


def test_the_messages_say_what_to_do(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _file(tmp_path)
    _, _, err = cli("run", "--agent", "mock", "--out", str(path))
    assert "is a file, not a folder; give a folder path" in err
    _, _, err = cli("run", "--agent", "mock", "--out", "/proc/x")
    assert "/proc is a kernel file system" in err
    done = _finished_run(tmp_path)
    _, _, err = cli("run", "--resume", str(done), "--model", "openai/y")
    assert f"resume with only --resume {done}" in err
    assert "--out NEW_DIR" in err


def test_dead_endpoint_retry_with_the_same_out_is_not_told_to_resume(
    cli, make_task, tmp_path, monkeypatch
):
    """The failed pre-flight left nothing, so fixing the model and retrying just runs."""
    suite = make_task().parent
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    out = tmp_path / "run"
    code, _, err = cli(
        "run",
        "--tasks",
        str(suite),
        "--agent",
        "command",
        "--agent-cmd",
        "true",
        "--model",
        "openai/x",
        "--out",
        str(out),
    )
    assert code == 2
    assert "no trial was run" in err
    assert not out.exists()
    code, _, err = cli(
        "run",
        "--tasks",
        str(suite),
        "--agent",
        "mock",
        "--mock-behavior",
        "solve",
        "--out",
        str(out),
    )
    assert code == 0, err
    assert "use --resume" not in err


def _unfinished_run(path: Path, tasks_dir: Path) -> Path:
    """A run.json from an invocation that stopped before any trial finished."""
    RunDir(path).write_info(
        RunInfo(
            run_id="old",
            created_at="2026-01-01T00:00:00Z",
            harness={},
            host={},
            tasks_dir=str(tasks_dir),
            tasks=[],
            configurations=[
                ConfigurationInfo(
                    id="command-openai-x",
                    agent="command",
                    model="openai/x",
                    settings={},
                    command=["true"],
                )
            ],
            repeats=2,
            concurrency=1,
            isolation="none",
        )
    )
    (path / "pristine").mkdir()
    return path


def test_resume_may_change_the_model_while_no_trial_has_finished(tmp_path):
    path = _unfinished_run(tmp_path / "run", tmp_path / "suite")
    options = restart_options(path, model="openai/y")
    [config] = options.configurations
    assert (config.id, config.model, config.command) == ("command-openai-y", "openai/y", ["true"])
    assert options.repeats == 2
    assert options.out == path
    assert list(path.iterdir()) == [], "the unfinished run's files are cleared for the new start"


def test_resume_with_a_new_configuration_runs_it(cli, make_task, tmp_path):
    suite = make_task().parent
    path = _unfinished_run(tmp_path / "run", suite)
    code, _, err = cli("run", "--resume", str(path), "--agent", "mock", "--mock-behavior", "solve")
    assert code == 0, err
    info = json.loads((path / "run.json").read_text())
    assert [c["id"] for c in info["configurations"]] == ["mock-solve"]
    records = [json.loads(p.read_text()) for p in (path / "trials").glob("*/record.json")]
    assert len(records) == 2
    assert all(r["success"] for r in records)
