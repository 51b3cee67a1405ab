"""Harness overhead per trial against plain shell floors, both measured in one run.

Bookkeeping (issues 13 and 21): N mock `noop` trials of a task whose oracle is `true`, so
what is left is the harness's own per-trial work: the tree guard, workspace prepare, the
patch, the tamper check, the record, cleanup, and grading's private copy plus the sandbox
start of that `true`. The agent's seconds (from each record) are subtracted; grading's are
printed apart (the sandbox is its own stage). The floor is a shell loop doing the same
bookkeeping by hand: copy the fixture, git init/add/commit, git add/diff, remove.
Target: ratio <= 1.2.

Full trial (``--full``, issue 2): N mock `solve` trials of a small Python task (visible
oracle + held-out tests) against a shell loop that also applies the reference and runs
both test suites. Target: ratio <= 1.5.

    python bench/overhead.py [--trials 50] [--full] [--profile FILE]

``--profile`` runs the bookkeeping trials once more in this thread under cProfile and
writes the stats to FILE (read them with ``python -m pstats FILE``).
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

import yaml

from localagentbench.records import TrialRecord
from localagentbench.runner import RunOptions, RunResult, configuration_from_cli, execute

SRC = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
HELD = "from calc import add\n\n\ndef test_neg():\n    assert add(-2, 5) == 3\n"
PATCH = textwrap.dedent("""\
    diff --git a/calc.py b/calc.py
    --- a/calc.py
    +++ b/calc.py
    @@ -1,2 +1,2 @@
     def add(a, b):
    -    return a - b
    +    return a + b
""")
PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]


def build_task(root: Path, *, graded: bool = True) -> Path:
    """The calc-add task; ``graded=False`` makes its oracle `true` with no held-out tests."""
    task = root / "suite" / "calc-add"
    (task / "repo" / "tests").mkdir(parents=True)
    (task / "repo" / "calc.py").write_text(SRC)
    (task / "repo" / "tests" / "test_calc.py").write_text(TEST)
    (task / "heldout" / "tests").mkdir(parents=True)
    (task / "heldout" / "tests" / "test_held.py").write_text(HELD)
    (task / "solution.patch").write_text(PATCH)
    data: dict[str, object] = {
        "id": "calc-add",
        "title": "add",
        "prompt": "fix add",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "python",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": PYTEST if graded else ["true"]},
    }
    if graded:
        data["heldout"] = {"path": "heldout", "command": PYTEST}
        data["reference"] = "solution.patch"
    (task / "task.yaml").write_text(yaml.safe_dump(data))
    return task


SHELL_PRELUDE = r"""
set -e
task="$1"; n="$2"; work="$3"; py="$4"
export GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x
export PYTHONDONTWRITEBYTECODE=1
"""

BOOKKEEPING_FLOOR = (
    SHELL_PRELUDE
    + r"""
for i in $(seq "$n"); do
  ws="$work/ws$i"; cp -r "$task/repo" "$ws"; cd "$ws"
  git init -q . && git add -A && git commit -qm pristine
  git add -A && git diff --cached --binary HEAD > ../patch$i.diff
  cd "$work"; rm -rf "$ws"
done
"""
)

FULL_FLOOR = (
    SHELL_PRELUDE
    + r"""
for i in $(seq "$n"); do
  ws="$work/ws$i"; cp -r "$task/repo" "$ws"; cd "$ws"
  git init -q . && git add -A && git commit -qm pristine
  git apply "$task/solution.patch"
  git add -A && git diff --cached --binary HEAD > ../patch$i.diff
  "$py" -m pytest -q -p no:cacheprovider tests > /dev/null
  cp -r "$ws" "$work/grade$i"; cp -r "$task/heldout/." "$work/grade$i/"; cd "$work/grade$i"
  "$py" -m pytest -q -p no:cacheprovider tests > /dev/null
  cd "$work"; rm -rf "$ws" "$work/grade$i"
done
"""
)

J = TypeVar("J")
R = TypeVar("R")


class InlineExecutor:
    """Runs each trial in the calling thread, so cProfile sees the trial's own work."""

    def run(
        self,
        jobs: Sequence[J],
        work: Callable[[J], R],
        on_done: Callable[[J, Future[R]], None],
        should_stop: Callable[[], bool],
        cancel: threading.Event,
    ) -> None:
        for job in jobs:
            if should_stop() or cancel.is_set():
                return
            future: Future[R] = Future()
            future.set_result(work(job))
            on_done(job, future)


def shell_floor(script: str, task: Path, trials: int, root: Path) -> float:
    """Seconds per trial of ``script`` run over ``trials`` workspaces."""
    work = root / "floor"
    work.mkdir()
    argv = ["bash", "-c", script, "floor", str(task), str(trials), str(work), sys.executable]
    start = time.perf_counter()
    subprocess.run(argv, check=True)
    return (time.perf_counter() - start) / trials


def harness(
    root: Path, behavior: str, trials: int, out: str, **kw: object
) -> tuple[float, RunResult]:
    """Seconds per trial of a whole `localagentbench run` (setup, records and summary included)."""
    options = RunOptions(
        tasks_dir=root / "suite",
        configurations=[configuration_from_cli("mock", None, mock_behavior=behavior)],
        repeats=trials,
        out=root / out,
    )
    start = time.perf_counter()
    result = execute(options, **kw)  # type: ignore[arg-type]
    per_trial = (time.perf_counter() - start) / trials
    if result.summary.configurations[f"mock-{behavior}"].successes != trials:
        raise SystemExit(f"bench invalid: not every {behavior} trial succeeded in {out}")
    return per_trial, result


def bookkeeping(records: list[TrialRecord], per_trial: float) -> float:
    """A trial's seconds less what its agent took (from the records)."""
    return per_trial - statistics.fmean(r.wall_s for r in records)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--full", action="store_true", help="also time whole graded trials")
    parser.add_argument("--profile", type=Path, help="write cProfile stats of bookkeeping here")
    args = parser.parse_args()
    n = args.trials
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as tmp:
        root = Path(tmp) / "bookkeeping"
        task = build_task(root, graded=False)
        floor = shell_floor(BOOKKEEPING_FLOOR, task, n, root)
        per_trial, result = harness(root, "noop", n, "run")
        records = result.run_dir.records()
        spent = bookkeeping(records, per_trial)
        grading = statistics.fmean(r.grade_s for r in records)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(harness, root, "noop", n, "profiled", executor=InlineExecutor())
            profiler.dump_stats(args.profile)
        print(f"trials: {n} per measurement")
        print(f"bookkeeping floor: {floor:.3f} s/trial (shell: cp, git init/add/commit/diff, rm)")
        print(f"bookkeeping:       {spent:.3f} s/trial (whole run less the agent's seconds)")
        print(f"  of it grading:   {grading:.3f} s/trial (private copy, sandboxed `true` oracle)")
        print(
            f"  outside grading: {spent - grading:.3f} s/trial (guard, prepare, patch, tamper, "
            "record, cleanup)"
        )
        print(
            f"bookkeeping ratio: {spent / floor:.2f} (target <= 1.2); outside grading: "
            f"{(spent - grading) / floor:.2f}"
        )
        if args.full:
            root = Path(tmp) / "full"
            task = build_task(root)
            floor = shell_floor(FULL_FLOOR, task, n, root)
            per_trial, _ = harness(root, "solve", n, "run")
            print(f"full floor:        {floor:.3f} s/trial (also apply, oracle, held-out)")
            print(f"full harness:      {per_trial:.3f} s/trial (localagentbench run)")
            print(f"full ratio:        {per_trial / floor:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
