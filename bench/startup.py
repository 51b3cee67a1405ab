"""How long the CLI takes to start, for the commands that should feel instant (issue 21).

Each case runs in a fresh interpreter N times; the median wall-clock seconds are printed
next to the goal and their ratio (median / goal; goal met when <= 1). The load average is
printed too, since on a shared machine it moves the numbers more than the code does.
`list-tasks` is timed twice against a private cache folder: with its listing cached (as
every listing after the first of an unchanged suite) and uncached (an empty cache each run).

    python bench/startup.py [--repeats 5] [--goal 0.3]

Run it from a checkout with ``PYTHONPATH=src`` so the checkout's package is the one timed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIST_TASKS = ["-m", "localagentbench", "list-tasks"]
CASES: dict[str, tuple[list[str], bool]] = {
    "localagentbench --help": (["-m", "localagentbench", "--help"], False),
    "list-tasks (cached)": (LIST_TASKS, False),
    "list-tasks (uncached)": (LIST_TASKS, True),
    "import localagentbench.cli": (["-c", "import localagentbench.cli"], False),
}
"""Name -> (python arguments, whether each run starts with an empty user cache)."""


def seconds(args: list[str], cache: Path, empty: bool) -> float:
    """Wall-clock seconds of one ``python ARGS`` run with ``cache`` as the user cache folder
    (emptied first when ``empty``); a failing command stops the bench."""
    if empty:
        shutil.rmtree(cache, ignore_errors=True)
    # Timed as a user's install runs: with its bytecode cached (a shell that sets
    # PYTHONDONTWRITEBYTECODE would make every start compile the package from source).
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per case (median kept)")
    parser.add_argument("--goal", type=float, default=0.3, help="target seconds per case")
    opts = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("PYTHONDONTWRITEBYTECODE is set here; unset for the timed processes")
    print(f"load average {load}; {opts.repeats} runs per case; goal {opts.goal:.2f} s")
    print(f"{'case':<28} {'median s':>9} {'goal s':>7} {'ratio':>6}")
    with tempfile.TemporaryDirectory(prefix="lab-bench-startup-") as tmp:
        cache = Path(tmp) / "cache"
        for name, (args, empty) in CASES.items():
            seconds(args, cache, empty)  # warm the file cache (and fill the user cache)
            median = statistics.median(seconds(args, cache, empty) for _ in range(opts.repeats))
            ratio = median / opts.goal
            print(f"{name:<28} {median:>9.3f} {opts.goal:>7.2f} {ratio:>6.2f}")


if __name__ == "__main__":
    main()
