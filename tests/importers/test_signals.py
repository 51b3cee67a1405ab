"""Ctrl-C and SIGTERM during `generate` and `import`: a prompt stop, exit 130 (SIGINT) or
143 (SIGTERM), one line on what was written, no `.lab-staging-*` folder and no half-written
task left behind; tasks proven before the stop stay."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.importers._shop import python_shop
from tests.importers._track import python_track

from localagentbench.importers import ImportResult, draw_candidates, write_proven
from localagentbench.tasks import load_suite


def _signal_mid_proof(argv: list[str], out: Path, sig: signal.Signals) -> tuple[int, str]:
    """Start the CLI, wait (bounded) until a staging folder shows its proof is under way, send
    ``sig``; its exit code and stderr. Fails if it does not stop within a generous bound."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "localagentbench", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(3000):  # up to ~5 minutes on a loaded machine
            if list(out.glob(".lab-staging-*")) or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None, "it ended before its proof began"
        assert list(out.glob(".lab-staging-*")), "no proof began in time"
        time.sleep(0.5)  # the proof's commands are running now
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err


def _nothing_half_written(out: Path) -> None:
    assert not list(out.glob(".lab-staging-*"))
    folders = [p for p in out.iterdir()]
    assert all((p / "task.yaml").is_file() for p in folders)
    if folders:
        assert not load_suite(out).problems  # every folder left is a whole task


@pytest.mark.slow
def test_sigint_during_generate_stops_promptly_and_leaves_no_staging(tmp_path) -> None:
    out = tmp_path / "suite"
    argv = ["generate", str(python_shop(tmp_path / "shop")), "--out", str(out)]
    code, err = _signal_mid_proof(argv, out, signal.SIGINT)
    assert code == 130, err
    assert "interrupted by SIGINT: 0 task(s) written" in err
    assert "no staging folder left" in err
    _nothing_half_written(out)
    assert not list(out.iterdir())


@pytest.mark.slow
def test_sigterm_during_import_stops_promptly_and_leaves_no_staging(tmp_path) -> None:
    out = tmp_path / "suite"
    track = python_track(tmp_path / "track", broken=False)
    argv = ["import", "exercism", str(track), "--track", "python", "--out", str(out)]
    code, err = _signal_mid_proof(argv, out, signal.SIGTERM)
    assert code == 143, err
    assert "interrupted by SIGTERM" in err
    assert "not written: 1 being proven (py-leap)" in err
    _nothing_half_written(out)


def test_an_interruption_keeps_the_tasks_already_proven(tmp_path) -> None:
    """Candidates are proven a batch at a time: a stop after the first batch keeps its task
    (whole), and the staging folder of the batch under way is gone."""
    result = ImportResult(out=tmp_path / "suite")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    project = python_shop(tmp_path / "shop")
    [first] = draw_candidates(project, scratch, result, count=1, kinds=["callers"])

    def candidates():
        yield first
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_proven(candidates(), result.out, result, batch=1)
    assert result.written == [first.task_id]
    assert result.pending == []
    assert (result.out / first.task_id / "task.yaml").is_file()
    _nothing_half_written(result.out)
