"""Milliseconds a trial spends recording its patch and rebuilding the graded tree (issue 34).

For each bundled task (or the ones named): a workspace is unpacked from the pristine archive,
the reference solution applied in it as the mock agent does, then timed, best of
``--repeats``: ``take_patch`` (walk, blobs, tree, diff), ``graded_tree`` (apply to the
index, check out) and, for comparison, what the harness did before (``git add -A`` in a
private git folder, then ``git diff --cached``, which grading followed by copying the live
workspace). Printed per task, then the median over the tasks, with the load average.

    PYTHONPATH=src python bench/patch.py [--task ID ...] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from localagentbench.tasks import bundled_suite, load_tasks
from localagentbench.workspace import (
    PristineStore,
    git,
    graded_tree,
    prepare_workspace,
    take_patch,
)


def best_ms(step: Callable[[int], object], repeats: int) -> float:
    times = []
    for i in range(repeats):
        start = time.perf_counter()
        step(i)
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", default=[], help="a bundled task id")
    parser.add_argument("--repeats", type=int, default=5)
    opts = parser.parse_args()
    selected = load_tasks(bundled_suite(), opts.task)
    tasks = [t for t in selected if (t.reference or "").endswith(".patch")]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'task':<26} {'files':>5} {'take ms':>8} {'apply ms':>9} {'before ms':>10}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="lab-bench-patch-") as tmp:
        store = PristineStore(Path(tmp) / "store")
        for task in tasks:
            pristine = store.ensure(task)
            dirs = prepare_workspace(pristine, Path(tmp))
            reference = task.resolve(task.reference or "")  # a .patch, by the filter above
            git(["apply", "--whitespace=nowarn", str(reference)], cwd=dirs.work)
            files = sum(len(f) for _, _, f in os.walk(dirs.work))
            patch = dirs.root / "patch.diff"

            def take(_: int, dirs=dirs, commit=pristine.commit, patch=patch) -> object:
                return take_patch(dirs.git_dir, dirs.work, commit, patch)

            def rebuild(i: int, dirs=dirs, commit=pristine.commit, patch=patch) -> object:
                return graded_tree(dirs.git_dir, commit, patch, dirs.root / f"graded-{i}")

            def before(_: int, dirs=dirs) -> object:
                where = ["--git-dir", str(dirs.git_dir), "--work-tree", str(dirs.work)]
                git([*where, "add", "-A", "--", "."], cwd=dirs.work)
                return git([*where, "diff", "--cached", "--binary", "HEAD"], cwd=dirs.work)

            row = (
                best_ms(take, opts.repeats),
                best_ms(rebuild, opts.repeats),
                best_ms(before, opts.repeats),
            )
            rows.append(row)
            print(f"{task.id:<26} {files:>5} {row[0]:>8.1f} {row[1]:>9.1f} {row[2]:>10.1f}")
            shutil.rmtree(dirs.root)
    if rows:
        take_m, apply_m, before_m = (statistics.median(col) for col in zip(*rows, strict=True))
        print(f"{'median':<26} {'':>5} {take_m:>8.1f} {apply_m:>9.1f} {before_m:>10.1f}")
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
