"""What a change costs a user's run: two commits of this repository timed in one sitting.

Each commit is checked out into a temporary worktree and runs the mock agent applying the
reference solution (so what is timed is the harness) over the tasks both commits bundle,
``--concurrency 2``, cold (nothing cached) then warm (the second run on an unchanged
machine), each side with a private cache; then one trial of one task, cold and warm.
Printed: seconds, grading seconds summed over the trials, the load average when each run
ended, and the after/before ratio of the warm runs (issue 34's budget: the warm suite at
most 1.15, a warm trial's grading at most 0.2 s more). Alternate the sides with ``--rounds``
on a busy machine: the load moves these numbers more than most changes do.

    python bench/trees.py --before 9374523 --after HEAD [--rounds 2] [--task py-calib-titlecase]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _worktree(commit: str, where: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(where), commit],
        check=True,
        capture_output=True,
    )
    return where


def _tasks(tree: Path) -> set[str]:
    return {p.parent.name for p in (tree / "src/localagentbench/suite").glob("*/task.yaml")}


def _run(tree: Path, args: list[str], out: Path, cache: Path) -> tuple[float, float, int]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(tree / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # timed as an install runs: bytecode cached
    cmd = [sys.executable, "-m", "localagentbench", "run", "--agent", "mock"]
    cmd += ["--mock-behavior", "solve", "--out", str(out), *args]
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=out.parent)
    seconds = time.perf_counter() - start
    records = [json.loads(p.read_text()) for p in out.glob("trials/*/record.json")]
    failed = [r["trial_id"] for r in records if not r["success"]]
    if done.returncode != 0 or failed:
        sys.exit(f"{tree.name}: run failed ({done.returncode}) {failed} {done.stderr[-400:]}")
    return seconds, sum(r.get("grade_s", 0.0) for r in records), len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="commit timed first (the baseline)")
    parser.add_argument("--after", default="HEAD", help="commit compared with it")
    parser.add_argument("--rounds", type=int, default=1, help="times to alternate the sides")
    parser.add_argument("--task", default="py-calib-titlecase", help="task of the 1-trial case")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lab-bench-trees-") as tmp:
        base = Path(tmp)
        sides = {
            "before": _worktree(opts.before, base / "before"),
            "after": _worktree(opts.after, base / "after"),
        }
        try:
            common = sorted(_tasks(sides["before"]) & _tasks(sides["after"]))
            suite = [a for t in common for a in ("--task", t)] + ["--concurrency", "2"]
            cases = {
                f"{len(common)} common tasks": suite,
                f"1 trial {opts.task}": ["--task", opts.task],
            }
            warm: dict[tuple[str, str], list[tuple[float, float, int]]] = {}
            print(f"{'side':<7} {'case':<34} {'cache':<5} {'s':>7} {'grade s':>8} {'load':>5}")
            for rnd in range(opts.rounds):
                for side, tree in sides.items():
                    for i, (name, args) in enumerate(cases.items()):
                        cache = base / f"cache-{side}-{rnd}-{i}"
                        for state in ("cold", "warm"):
                            out = base / f"run-{side}-{rnd}-{i}-{state}"
                            seconds, grade_s, n = _run(tree, args, out, cache)
                            load = os.getloadavg()[0]
                            row = f"{side:<7} {name:<34} {state:<5} {seconds:>7.2f} {grade_s:>8.2f}"
                            print(f"{row} {load:>5.2f}", flush=True)
                            if state == "warm":
                                warm.setdefault((side, name), []).append((seconds, grade_s, n))
            for name in cases:
                b, a = warm[("before", name)], warm[("after", name)]
                ratio = sum(s for s, _, _ in a) / sum(s for s, _, _ in b)
                before_g, after_g = (
                    sum(g for _, g, _ in x) / sum(n for _, _, n in x) for x in (b, a)
                )
                print(
                    f"{name}: warm after/before {ratio:.2f}; grading a trial "
                    f"{before_g:.2f} s -> {after_g:.2f} s ({after_g - before_g:+.2f})"
                )
        finally:
            for tree in sides.values():
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                    capture_output=True,
                )


if __name__ == "__main__":
    main()
