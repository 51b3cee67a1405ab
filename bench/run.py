"""End-to-end seconds of mock runs as a user types them (issue 21).

Two cases, each a fresh ``localagentbench run`` process with the mock agent applying the
reference solution, so the agent takes milliseconds and what is timed is the harness:

- one trial of one bundled Python task (goal 1.5 s);
- the whole bundled suite, one repeat, ``--concurrency 2`` (goal 15 s on 2 cores).

Each case runs twice against one private cache folder: *cold* (nothing cached: the
toolchain proof and the pristine-tree results are computed) and *warm* (the second run on
an unchanged machine reuses them, as a user's second run does). Printed: seconds, the goal
and their ratio (goal met when <= 1), the seconds inside grading summed over the trials
(from the records), and the load average, which moves these numbers more than the code.

    PYTHONPATH=src python bench/run.py [--task py-calib-titlecase] [--skip-suite]
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


def run_once(args: list[str], out: Path, cache: Path) -> tuple[float, float, int]:
    """Seconds of one run, the grading seconds summed over its trials, and its trial count."""
    # Timed as a user's install runs: with its bytecode cached (a shell that sets
    # PYTHONDONTWRITEBYTECODE would make every start compile the package from source).
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "localagentbench", "run", "--agent", "mock"]
    cmd += ["--mock-behavior", "solve", "--out", str(out), *args]
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    records = [json.loads(p.read_text()) for p in out.glob("trials/*/record.json")]
    failed = [r["trial_id"] for r in records if not r["success"]]
    if failed:
        sys.exit(f"the reference solution failed in {', '.join(failed)}: fix that first")
    return seconds, sum(r.get("grade_s", 0.0) for r in records), len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="py-calib-titlecase", help="task of the 1-trial case")
    parser.add_argument("--skip-suite", action="store_true", help="time only the 1-trial case")
    opts = parser.parse_args()
    cases = [(f"1 trial ({opts.task})", ["--task", opts.task], 1.5)]
    if not opts.skip_suite:
        cases.append(("bundled suite, concurrency 2", ["--concurrency", "2"], 15.0))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set here; unset for the timed processes")
    print(f"load average {load}; {os.cpu_count()} cpus")
    print(
        f"{'case':<34} {'cache':<5} {'trials':>6} {'s':>7} {'grade s':>8} {'goal':>5} {'ratio':>6}"
    )
    with tempfile.TemporaryDirectory(prefix="lab-bench-run-") as tmp:
        for i, (name, args, goal) in enumerate(cases):
            cache = Path(tmp) / f"cache-{i}"
            for state in ("cold", "warm"):
                out = Path(tmp) / f"case-{i}-{state}"
                seconds, grade_s, n = run_once(args, out, cache)
                line = f"{name:<34} {state:<5} {n:>6} {seconds:>7.2f} {grade_s:>8.2f}"
                print(f"{line} {goal:>5.1f} {seconds / goal:>6.2f}")
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
