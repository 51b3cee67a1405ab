"""`import terminal-bench` over a large folder: built and proven a batch at a time, a
progress line per batch when piped, and a closing line counting the folders by reason."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.importers._tbench import harbor_task, many_folders

import localagentbench
from localagentbench.cli import line_buffered
from localagentbench.importers import ImportResult, import_terminal_bench
from localagentbench.sandbox import SandboxUnavailableError


@pytest.fixture(autouse=True)
def no_container_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reasons counted here are a machine without podman or docker's (with one, a task
    that needs its own image goes on to the next check instead)."""

    def none_here(preferred: str | None = None) -> None:
        raise SandboxUnavailableError("no container engine in this test")

    monkeypatch.setattr("localagentbench.importers._terminal_bench.usable_engine", none_here)


SUMMARY = re.compile(
    r"^(\d+) folders: (\d+) Terminal-Bench task\(s\) written to \S+; (\d+) not: (.*)$"
)


class Heard:
    """A BatchProgress that keeps what it heard, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def start(self, total: int) -> None:
        self.events.append(("start", total))

    def doing(self, line: str) -> None:
        self.events.append(("doing", line))

    def wrote(self, task_id: str) -> None:
        self.events.append(("wrote", task_id))

    def batch_done(self, looked: int, total: int, result: ImportResult) -> None:
        self.events.append(("batch", (looked, total, len(result.written), len(result.rejected))))


def _counts(text: str) -> dict[str, int]:
    found = {}
    for part in text.split(", "):
        n, reason = part.split(" ", 1)
        found[reason] = int(n)
    return found


def test_a_thousand_cheap_rejects_are_counted_batch_by_batch(tmp_path, cli) -> None:
    expected = many_folders(tmp_path / "tasks", 1000)
    code, stdout, stderr = cli(
        "import", "terminal-bench", str(tmp_path / "tasks"), "--out", str(tmp_path / "suite")
    )
    assert code == 1  # nothing written, something turned down
    progress = [line for line in stderr.splitlines() if line.startswith("[")]
    rejected = [line for line in stderr.splitlines() if line.startswith("rejected task-")]
    assert len(progress) + len(rejected) == len(stderr.splitlines())  # a YAML error: one line
    assert len(rejected) == 1000
    assert len(progress) == 250  # batches of 4 folders (2 * --concurrency 2)
    assert progress[0].startswith(
        "[4/1000 folders] 0 imported, 4 rejected; batch 1: nothing to prove, "
    )
    assert progress[-1].startswith(
        "[1000/1000 folders] 0 imported, 1000 rejected; batch 250: nothing"
    )
    [summary] = [line for line in stdout.splitlines() if SUMMARY.match(line)]
    looked, written, rejected, counts = SUMMARY.match(summary).groups()
    assert (int(looked), int(written), int(rejected)) == (1000, 0, 1000)
    assert _counts(counts) == expected
    assert sum(_counts(counts).values()) == 1000
    assert list(_counts(counts).values()) == sorted(_counts(counts).values(), reverse=True)


def test_the_progress_hears_each_batch_in_order(tmp_path) -> None:
    many_folders(tmp_path / "tasks", 10)
    heard = Heard()
    import_terminal_bench(tmp_path / "tasks", tmp_path / "suite", concurrency=3, progress=heard)
    batches = [e[1] for e in heard.events if e[0] == "batch"]
    assert heard.events[0] == ("start", 10)
    assert batches == [(6, 10, 0, 6), (10, 10, 0, 10)]  # batches of 2 * 3 folders
    assert ("doing", "building task-0000") in heard.events


@pytest.mark.slow
def test_a_thousand_folders_with_real_tasks_import_as_they_are_proven(tmp_path) -> None:
    """Two importable tasks among 998 rejects: each is written as soon as its batch is
    proven, long before the last folder is looked at, and the counts add up to 1,000."""
    expected = many_folders(tmp_path / "tasks", 1000, real=2)
    heard = Heard()
    result = import_terminal_bench(tmp_path / "tasks", tmp_path / "suite", progress=heard)
    assert result.written == ["tb-task-0333", "tb-task-0667"]
    assert result.counts() == expected
    assert len(result.written) + len(result.rejected) == 1000
    wrote = [i for i, e in enumerate(heard.events) if e[0] == "wrote"]
    batches = [(i, e[1]) for i, e in enumerate(heard.events) if e[0] == "batch"]
    # written within the batch holding the folder: the batch line after it says 336 looked at
    after_first = next(looked for i, (looked, *_) in batches if i > wrote[0])
    assert after_first == 336
    assert ("doing", "proving 1 task(s): task-0333") in heard.events
    task = yaml.safe_load((tmp_path / "suite" / "tb-task-0333" / "task.yaml").read_text())
    assert (task["language"], task["category"]) == ("shell", "data")  # wc; file-operations
    summary = result.summary("folders", "Terminal-Bench")
    assert summary.startswith("1000 folders: 2 Terminal-Bench task(s) written to ")
    assert summary.endswith(
        "; 998 not: "
        + ", ".join(
            f"{n} {reason}"
            for reason, n in sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))
        )
    )


def test_output_is_line_buffered_when_piped(monkeypatch) -> None:
    piped = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", piped)
    assert not piped.line_buffering
    line_buffered()
    assert piped.line_buffering


def test_the_first_progress_line_arrives_while_the_import_runs(tmp_path) -> None:
    """Through a pipe, the first batch's line is read while a later folder's solution
    script still runs (it sleeps); a SIGTERM then stops the import cleanly."""
    many_folders(tmp_path / "tasks", 4)
    slow = harbor_task(tmp_path / "tasks")
    (slow / "solution" / "solve.sh").write_text("sleep 60\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "localagentbench", "import", "terminal-bench"]
        + [str(tmp_path / "tasks"), "--out", str(tmp_path / "suite")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(localagentbench.__file__).parents[1])},
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("[4/5 folders] 0 imported, 4 rejected; batch 1:"), first
        assert proc.poll() is None  # the sleeping solution still runs
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 143, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
