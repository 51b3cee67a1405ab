"""How long the CLI takes to start, for the commands that should feel instant (issue 21).

Each case runs in a fresh interpreter N times; the median wall-clock seconds are printed
next to the goal and their ratio (median / goal; goal met when <= 1). The load average is
printed too, since on a shared machine it moves the numbers more than the code does.

    python bench/startup.py [--repeats 5] [--goal 0.3]

Run it from a checkout with ``PYTHONPATH=src`` so the checkout's package is the one timed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES: dict[str, list[str]] = {
    "localagentbench --help": ["-m", "localagentbench", "--help"],
    "localagentbench list-tasks": ["-m", "localagentbench", "list-tasks"],
    "import localagentbench.cli": ["-c", "import localagentbench.cli"],
}


def seconds(args: list[str]) -> float:
    """Wall-clock seconds of one ``python ARGS`` run; a failing command stops the bench."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per case (median kept)")
    parser.add_argument("--goal", type=float, default=0.3, help="target seconds per case")
    opts = parser.parse_args()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average {load}; {opts.repeats} runs per case; goal {opts.goal:.2f} s")
    print(f"{'case':<28} {'median s':>9} {'goal s':>7} {'ratio':>6}")
    for name, args in CASES.items():
        seconds(args)  # warm the file cache so the first run is not an outlier
        median = statistics.median(seconds(args) for _ in range(opts.repeats))
        ratio = median / opts.goal
        print(f"{name:<28} {median:>9.3f} {opts.goal:>7.2f} {ratio:>6.2f}")


if __name__ == "__main__":
    main()
