"""Judge seconds per trial with the shipped local models on this machine.

Lays out a stored run whose trials carry real patches (the bundled suite's reference
solutions, one trial per task), then judges it with each model through llama.cpp, as
`localagentbench judge RUN --model llamacpp/NAME` does, and prints per model: trials,
mean and median judge seconds per trial (the model's calls only), the server's start
(the first call's extra), parse errors and the scores given; then the ratio of each
model's median to the first one's.

    python bench/judge.py [--tasks 6] [--models qwen2.5-coder-0.5b,qwen2.5-coder-1.5b]

The models must be fetched first (`localagentbench models fetch NAME`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from localagentbench.gateway.llamacpp import SERVERS
from localagentbench.grading import CommandsResult
from localagentbench.judge import JudgeOptions, judge_runs, load_verdicts, read_exchanges
from localagentbench.records import (
    ConfigurationInfo,
    RunDir,
    RunInfo,
    TaskProvenance,
    Tokens,
    TrialRecord,
)
from localagentbench.tasks import bundled_suite, load_tasks


def _run(root: Path, count: int) -> Path:
    """A run of ``count`` bundled tasks, each trial's patch its reference solution."""
    suite = bundled_suite()
    tasks = [t for t in load_tasks(suite) if t.reference][:count]
    run_dir = RunDir(root / "run")
    run_dir.write_info(
        RunInfo(
            run_id="bench-judge",
            created_at="2026-01-01T00:00:00Z",
            harness={},
            host={},
            tasks_dir=str(suite),
            tasks=[
                TaskProvenance(
                    id=t.id,
                    version=t.version,
                    digest="-",
                    commit="0" * 40,
                    source=str(t.file),
                    project=t.project or t.id,
                    language=t.language,
                    category=t.category,
                    difficulty=t.difficulty,
                    tier=t.tier,
                )
                for t in tasks
            ],
            configurations=[ConfigurationInfo(id="ref", agent="mock", model=None, settings={})],
            repeats=1,
            concurrency=1,
            isolation="none",
        )
    )
    passed = CommandsResult(passed=True, exit_codes=[0])
    for task in tasks:
        trial_id = f"{task.id}--ref--r1"
        run_dir.write_record(
            TrialRecord(
                run_id="bench-judge",
                trial_id=trial_id,
                task_id=task.id,
                task_version=task.version,
                config_id="ref",
                agent="mock",
                model=None,
                repeat=1,
                status="completed",
                success=True,
                correctness=1.0,
                overfit=False,
                claimed_done=True,
                false_success=False,
                damage=[],
                wall_s=1.0,
                isolation="none",
                tokens=Tokens(),
                visible=passed,
                heldout=passed,
                checks=[],
                final_answer="Done: the change is made and the tests pass.",
                started_at="2026-01-01T00:00:00Z",
                finished_at="2026-01-01T00:00:01Z",
                pristine_commit="0" * 40,
            )
        )
        reference = Path(task.file).parent / str(task.reference)
        (run_dir.trial(trial_id) / "patch.diff").write_text(reference.read_text())
    return run_dir.path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--models", default="qwen2.5-coder-0.5b,qwen2.5-coder-1.5b")
    args = parser.parse_args()
    medians = []
    with tempfile.TemporaryDirectory(prefix="bench-judge-") as tmp:
        run = _run(Path(tmp), args.tasks)
        for name in args.models.split(","):
            started = time.perf_counter()
            [result] = judge_runs([run], JudgeOptions(model=f"llamacpp/{name}"))
            wall = time.perf_counter() - started
            SERVERS.stop_all()
            verdicts = list(load_verdicts(run, result.session.stamp).values())
            seconds = [v.seconds for v in verdicts if v.attempts]
            median = statistics.median(seconds)
            medians.append(median)
            errors = sum(len(v.parse_errors) for v in verdicts)
            usage = [
                e.response.get("usage") or {}
                for v in verdicts
                for e in read_exchanges(run, v.trial_id, result.session.stamp)
            ]
            tokens_in = statistics.fmean(u.get("input_tokens", 0) for u in usage)
            tokens_out = statistics.fmean(u.get("output_tokens", 0) for u in usage)
            scores = Counter(v.score if v.score is not None else v.status for v in verdicts)
            print(
                f"{name}: {len(seconds)} trials, judge s/trial mean "
                f"{statistics.fmean(seconds):.1f} median {median:.1f} (slowest "
                f"{max(seconds):.1f}; the first trial's includes loading the model; "
                f"{wall - sum(seconds):.1f} s outside calls); "
                f"{tokens_in:.0f} prompt + {tokens_out:.0f} reply tokens per call; "
                f"parse errors {errors}; scores {dict(sorted(scores.items(), key=str))}"
            )
    for name, median in zip(args.models.split(","), medians, strict=True):
        print(f"ratio {name} / {args.models.split(',')[0]}: {median / medians[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
