"""Harness overhead per trial against a plain shell floor (issue 2, acceptance 8).

The harness runs N mock `solve` trials of a small Python task (visible oracle +
held-out tests). The floor does the same work with a plain shell loop: copy the
fixture, git init/add/commit, apply the reference, git diff, run the oracle
and the held-out tests in a copy. Prints seconds per trial and the ratio.

    python bench/overhead.py [--trials 50]

Target: ratio <= 1.5.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import yaml

from localagentbench.runner import RunOptions, configuration_from_cli, execute

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
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]


def build_task(root: Path) -> Path:
    task = root / "suite" / "calc-add"
    (task / "repo" / "tests").mkdir(parents=True)
    (task / "repo" / "calc.py").write_text(SRC)
    (task / "repo" / "tests" / "test_calc.py").write_text(TEST)
    (task / "heldout" / "tests").mkdir(parents=True)
    (task / "heldout" / "tests" / "test_held.py").write_text(HELD)
    (task / "solution.patch").write_text(PATCH)
    data = {
        "id": "calc-add", "title": "add", "prompt": "fix add", "difficulty": "easy",
        "category": "bugfix", "language": "python",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]},
        "heldout": {"path": "heldout",
                    "command": ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]},
        "reference": "solution.patch",
    }  # fmt: skip
    (task / "task.yaml").write_text(yaml.safe_dump(data))
    return task


FLOOR = r"""
set -e
task="$1"; n="$2"; work="$3"; py="$4"
export GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x
export PYTHONDONTWRITEBYTECODE=1
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as tmp:
        root = Path(tmp)
        task = build_task(root)
        floor_dir = root / "floor"
        floor_dir.mkdir()
        start = time.perf_counter()
        subprocess.run(["bash", "-c", FLOOR, "floor", str(task), str(args.trials), str(floor_dir),
                        sys.executable], check=True)  # fmt: skip
        floor = (time.perf_counter() - start) / args.trials

        options = RunOptions(
            tasks_dir=root / "suite",
            configurations=[configuration_from_cli("mock", None, mock_behavior="solve")],
            repeats=args.trials,
            out=root / "run",
        )
        start = time.perf_counter()
        result = execute(options)
        harness = (time.perf_counter() - start) / args.trials
        solved = result.summary.configurations["mock-solve"].successes
        if solved != args.trials:
            raise SystemExit(f"bench invalid: only {solved}/{args.trials} trials succeeded")
    print(f"trials: {args.trials} (mock solve, visible + held-out pytest)")
    print(
        f"floor:   {floor:.3f} s/trial (shell: cp, git init/add/commit, apply, diff, oracle, held-out)"
    )
    print(f"harness: {harness:.3f} s/trial (localagentbench run, records, summary)")
    print(f"ratio:   {harness / floor:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
