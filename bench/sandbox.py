"""The jail's start-up cost per trial (issue 5): `true` in each sandbox vs. run bare.

    python bench/sandbox.py [--runs 30]

Prints milliseconds per command (median and p90) for the bare subprocess helper and
for each available sandbox, the added cost and the ratio. Target: under 50 ms added.
The load average comes first: on a busy machine every figure is inflated.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from localagentbench._proc import run_process
from localagentbench.sandbox import SandboxSpec, available_backends, run_jailed, select


def _times(run: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        out.append((time.perf_counter() - start) * 1000)
    return out


def _p90(values: list[float]) -> float:
    return sorted(values)[int(0.9 * (len(values) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # a backend's per-jail warnings are not the figure
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} CPUs; {args.runs} runs each")
    with tempfile.TemporaryDirectory(prefix="lab-bench-sb-") as tmp:
        root = Path(tmp)
        root.chmod(0o755)
        (root / "work").mkdir()
        (root / "home").mkdir()
        spec = SandboxSpec(
            workspace=root / "work", home=root / "home", env={"PATH": "/usr/bin:/bin"}
        )
        bare = _times(lambda: run_process(["true"], timeout_s=30), args.runs)
        base = statistics.median(bare)
        print(f"bare:     median {base:6.1f} ms  p90 {_p90(bare):6.1f} ms")
        for status in available_backends():
            if not status.available or status.name == "none":
                continue
            sandbox = select(status.name)
            times = _times(
                lambda sb=sandbox: run_jailed(sb, ["true"], spec, timeout_s=30), args.runs
            )
            median = statistics.median(times)
            print(
                f"{status.name + ':':9} median {median:6.1f} ms  p90 {_p90(times):6.1f} ms  "
                f"added {median - base:6.1f} ms  ratio {median / base:5.1f}  "
                "(target: added < 50 ms)"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
