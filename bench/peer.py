"""Fixed start and per-sample cost beside Inspect AI, on the same machine in one run (issue 21).

Both tools run a mock evaluation of 1 sample and of N samples (default 200) as a fresh
process, as a user would start them:

- Inspect AI: a task of N samples, the `generate()` solver and the `includes()` scorer
  against Inspect's built-in `mockllm/model`, through `inspect_ai.eval(...)` in a throwaway
  venv (`~/.cache/localagentbench/bench-peer-venv`, made with `python -m venv` + pip on the
  first run; never a project dependency), logs to a temp folder.
- LocalAgentBench: `localagentbench run --agent mock --mock-behavior solve --repeat N`
  over one tiny task (fixture, one-line oracle, no held-out tests) in a temp suite folder.
  Every trial copies a workspace, commits it to git, runs the mock agent in the sandbox,
  takes the diff and runs the oracle in a grading process, then writes its record.

The fixed start is the 1-sample total; the per-sample cost is (T_N - T_1) / (N - 1).
Inspect runs samples concurrently in one event loop; LocalAgentBench runs trials one at a
time unless `--concurrency` says otherwise, each in its own processes.

    python bench/peer.py [--samples 200] [--concurrency 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import textwrap
from pathlib import Path

import yaml

from localagentbench._proc import ProcessResult, run_process

INSPECT_SPEC = "inspect-ai>=0.3,<0.4"
VENV = Path.home() / ".cache" / "localagentbench" / "bench-peer-venv"
SRC_DIR = Path(__file__).resolve().parents[1] / "src"

INSPECT_EVAL = textwrap.dedent("""\
    import sys
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate


    def reply(*_args):
        # mockllm's default reply counts tokens with tiktoken, which downloads its encoding
        # on first use; a reply that carries its usage keeps the eval offline.
        output = ModelOutput.from_content(model="mockllm", content="hello")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output


    n, log_dir = int(sys.argv[1]), sys.argv[2]
    model = get_model("mockllm/model", custom_outputs=reply)
    task = Task(
        dataset=[Sample(input=f"Say hello {i}", target="hello") for i in range(n)],
        solver=generate(),
        scorer=includes(),
    )
    [log] = eval(task, model=model, log_dir=log_dir, display="none")
    if log.status != "success" or len(log.samples or []) != n:
        raise SystemExit(f"inspect eval {log.status}: {len(log.samples or [])}/{n} samples")
""")

TASK = {
    "id": "peer-add",
    "title": "add",
    "prompt": "fix add",
    "difficulty": "easy",
    "category": "bugfix",
    "language": "python",
    "repo": {"type": "fixture", "path": "repo"},
    "oracle": {"command": ["python", "-c", "import calc; assert calc.add(2, 2) == 4"]},
    "reference": "solution.patch",
}
PATCH = textwrap.dedent("""\
    diff --git a/calc.py b/calc.py
    --- a/calc.py
    +++ b/calc.py
    @@ -1,2 +1,2 @@
     def add(a, b):
    -    return a - b
    +    return a + b
""")


def _checked(result: ProcessResult, what: str) -> float:
    """The wall time of a run that must have succeeded."""
    if not result.ok:
        tail = (result.start_error or result.stderr or result.stdout)[-2000:]
        raise SystemExit(f"{what} failed (exit {result.exit_code}):\n{tail}")
    return result.wall_s


def inspect_python() -> Path:
    """The throwaway venv's interpreter, with Inspect AI installed on first use."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"installing {INSPECT_SPEC} into {VENV} ...", flush=True)
        _checked(run_process([sys.executable, "-m", "venv", str(VENV)], timeout_s=300), "venv")
    probe = run_process([str(python), "-c", "import inspect_ai"], timeout_s=120)
    if not probe.ok:
        pip = [str(python), "-m", "pip", "install", "-q", INSPECT_SPEC]
        _checked(run_process(pip, timeout_s=1800), "pip install inspect-ai")
    return python


def inspect_version(python: Path) -> str:
    argv = [str(python), "-c", "import inspect_ai; print(inspect_ai.__version__)"]
    return run_process(argv, timeout_s=120).stdout.strip()


def time_inspect(python: Path, n: int, root: Path) -> float:
    script = root / "inspect_eval.py"
    script.write_text(INSPECT_EVAL)
    logs = root / f"inspect-logs-{n}"
    argv = [str(python), str(script), str(n), str(logs)]
    env = {**os.environ, "INSPECT_LOG_DIR": str(logs)}
    return _checked(run_process(argv, env=env, timeout_s=3600), f"inspect eval of {n}")


def build_suite(root: Path) -> Path:
    task = root / "suite" / "peer-add"
    (task / "repo").mkdir(parents=True)
    (task / "repo" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (task / "solution.patch").write_text(PATCH)
    (task / "task.yaml").write_text(yaml.safe_dump(TASK))
    return root / "suite"


def time_lab(suite: Path, n: int, concurrency: int, root: Path) -> float:
    out = root / f"lab-run-{n}"
    argv = [
        *(sys.executable, "-m", "localagentbench", "run", "--tasks", str(suite)),
        *("--agent", "mock", "--mock-behavior", "solve"),
        *("--repeat", str(n), "--concurrency", str(concurrency), "--out", str(out)),
    ]
    path = os.environ.get("PYTHONPATH")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC_DIR), path]))}
    return _checked(run_process(argv, env=env, timeout_s=3600), f"localagentbench run of {n}")


def _row(name: str, t1: float, tn: float, n: int) -> tuple[float, float]:
    per = (tn - t1) / (n - 1)
    print(f"{name:<16} {t1:>10.2f} s {tn:>10.2f} s {per * 1000:>12.1f} ms")
    return t1, per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200, help="N, at least 2")
    parser.add_argument("--concurrency", type=int, default=1, help="LocalAgentBench trials at once")
    args = parser.parse_args()
    if args.samples < 2:
        parser.error("--samples must be at least 2")
    n = args.samples
    python = inspect_python()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="lab-peer-") as tmp:
        root = Path(tmp)
        suite = build_suite(root)
        inspect_1, inspect_n = time_inspect(python, 1, root), time_inspect(python, n, root)
        lab_1 = time_lab(suite, 1, args.concurrency, root)
        lab_n = time_lab(suite, n, args.concurrency, root)
    load_after = os.getloadavg()
    print(f"Inspect AI {inspect_version(python)} (mockllm/model) vs LocalAgentBench (mock solve)")
    print(
        f"cpus: {os.cpu_count()}  load 1/5/15 min before: {load_before[0]:.2f} "
        f"{load_before[1]:.2f} {load_before[2]:.2f}  after: {load_after[0]:.2f} "
        f"{load_after[1]:.2f} {load_after[2]:.2f}"
    )
    print(f"{'':<16} {'T1 (start)':>12} {'T' + str(n):>12} {'per sample':>15}")
    inspect_start, inspect_per = _row("Inspect AI", inspect_1, inspect_n, n)
    lab_start, lab_per = _row("LocalAgentBench", lab_1, lab_n, n)
    print(
        f"ratio LAB/Inspect: fixed start {lab_start / inspect_start:.2f}, "
        f"per sample {lab_per / inspect_per:.2f}"
    )


if __name__ == "__main__":
    main()
