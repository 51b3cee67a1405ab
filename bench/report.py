"""`tables`, report.md and the site over a large run: seconds and peak memory each.

Writes a synthetic run directory of N trial records with a stdout, a patch and,
for the configurations with a model, a gateway.jsonl per trial, plus the run's
trial-index.jsonl as the runner appends it (in a process pool, without fsync, the
shared files hard-linked: 100,000 records take minutes, not a quarter of an hour);
then, each in a fresh Python process, runs `localagentbench tables RUN`, writes
report.md from the stored run (`load_run(pages=False)`: the index's rows, no full
record), builds the site (load the run, index, one page per trial, report.md),
and builds it once more over the first (the incremental rebuild a nightly job
does: unchanged trial pages are carried over), printing seconds, peak resident
memory and the ratio to the goal.

The shape grows the way a nightly matrix does: 5 repeats, 50 tasks, and as many
configurations as N needs (10,000 -> 40 configurations; 100,000 -> 400), so
per-task estimators over k = 1..repeats stay what a real run computes.

    python bench/report.py [--trials 10000] [--keep DIR] [--jobs 4] [--only tables,report.md]

With --keep DIR holding a run from an earlier --keep, that run is timed again.

Goals (issue 36): tables and report.md under 3 s and 500 MB at 100,000 records once
the run's figures are in its results.sqlite (`results._cache`: the first read after the
records change computes them, every later one loads them); the site under 10 s and 1 GB
at 10,000 (issue 21). "tables (cold)" starts without the cache and fills it; each figure
prints with its ratio to its goal.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from localagentbench.grading import CheckResult, CommandsResult
from localagentbench.records import (
    ConfigurationInfo,
    RunDir,
    RunInfo,
    TaskProvenance,
    Tokens,
    TrialIndex,
    TrialRecord,
    TrialRow,
    record_key,
    trial_row,
)
from localagentbench.results import CACHE_NAME, PRICES_FILE, summarise

BUILD = """
import resource, sys, time
from pathlib import Path
t = time.perf_counter()
from localagentbench.report import build_site, load_run
run = load_run(Path(sys.argv[1]))
result = build_site([run], Path(sys.argv[2]))
seconds = time.perf_counter() - t
usage, forks = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
cpu = usage.ru_utime + usage.ru_stime + forks.ru_utime + forks.ru_stime
peak_mb = usage.ru_maxrss / 1024
print(f"{seconds:.2f} {cpu:.2f} {peak_mb:.0f} {result.pages}-pages,{result.reused}-carried-over")
"""

TABLES = """
import contextlib, io, resource, sys, time
t = time.perf_counter()
from localagentbench.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["tables", sys.argv[1]])
    except SystemExit as exit:
        assert not exit.code, exit.code
seconds = time.perf_counter() - t
usage, forks = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
cpu = usage.ru_utime + usage.ru_stime + forks.ru_utime + forks.ru_stime
peak_mb = usage.ru_maxrss / 1024
print(f"{seconds:.2f} {cpu:.2f} {peak_mb:.0f} -")
"""

REPORT_MD = """
import resource, sys, time
from pathlib import Path
t = time.perf_counter()
from localagentbench.report import load_run, markdown_for
text = markdown_for([load_run(Path(sys.argv[1]), pages=False)])
(Path(sys.argv[2]) / "report.md").write_text(text)
seconds = time.perf_counter() - t
usage, forks = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
cpu = usage.ru_utime + usage.ru_stime + forks.ru_utime + forks.ru_stime
peak_mb = usage.ru_maxrss / 1024
print(f"{seconds:.2f} {cpu:.2f} {peak_mb:.0f} -")
"""

PATCH = """diff --git a/pkg/mod_{i}.py b/pkg/mod_{i}.py
--- a/pkg/mod_{i}.py
+++ b/pkg/mod_{i}.py
@@ -1,4 +1,5 @@
 def f(x):
-    return x - 1
+    # fixed
+    return x + 1

 def g(y):
"""


def _shape(trials: int) -> tuple[int, int, int]:
    tasks, repeats = 50, 5
    configs = max(1, round(trials / (tasks * repeats)))
    return tasks, configs, repeats


def _templates(root: Path, tasks: int) -> Path:
    """The files the trials of a task share (stdout, patch), written once and hard-linked
    into each trial folder (the site reads them like any other); `_shared` adds the ones
    every trial of a configuration shares."""
    folder = root / "templates"
    folder.mkdir(parents=True, exist_ok=True)
    for t in range(tasks):
        (folder / f"agent.stdout.{t}").write_text(f"step {t}\n" * 40 + "Done.\n")
        (folder / f"patch.diff.{t}").write_text(PATCH.format(i=t))
    return folder


def _shared(templates: Path, c: int) -> Path:
    """Configuration ``c``'s stderr and gateway log: one pair per configuration, as a file
    takes at most 65,000 hard links."""
    folder = templates / f"config-{c}"
    folder.mkdir(exist_ok=True)
    (folder / "agent.stderr").write_text("")
    with (folder / "gateway.jsonl").open("w") as f:
        for seq in range(1, 6):
            line = {
                "seq": seq,
                "at": "2026-12-02T00:00:00Z",
                "front": "openai",
                "path": "/v1/chat/completions",
                "status": 200,
                "latency_s": 1.5,
                "ttft_s": 0.3,
                "usage": {"input": 900, "output": 80, "source": "backend"},
                "error": None,
            }
            f.write(json.dumps(line) + "\n")
    return folder


def write_run(root: Path, trials: int, seed: int = 7, workers: int = 4) -> Path:
    """The synthetic run, written the cheap way: each record serialised once and written
    without fsync, the shared files hard-linked, and the index rows appended per
    configuration through the records API (`TrialIndex`), as the runner's writes would."""
    tasks, configs, repeats = _shape(trials)
    run_dir = RunDir(root / "run")
    run_id = "bench-report"
    task_ids = [f"task-{t:03d}" for t in range(tasks)]
    configurations = [
        ConfigurationInfo(
            id=f"agent{c}-model{c % 3}",
            agent=("opencode", "qwen-code", "aider")[c % 3] if c else "mock",
            model=None if c == 0 else f"ollama/model-{c % 3}:7b",
            settings={},
            agent_version=f"1.{c}.0",
        )
        for c in range(configs)
    ]
    run_dir.write_info(
        RunInfo(
            run_id=run_id,
            created_at="2026-12-02T00:00:00Z",
            harness={"version": "bench", "git_commit": None},
            host={"os": "Linux", "cpu": "bench", "cpu_count": 2, "python": sys.version.split()[0]},
            tasks_dir=str(root / "no-suite"),
            tasks=[
                TaskProvenance(
                    id=t,
                    version=1,
                    digest="0" * 64,
                    commit="0" * 40,
                    source="task.yaml",
                    project=f"p{i % 7}",
                    language="python",
                    category="bugfix",
                    difficulty="easy",
                    tier=None,
                )
                for i, t in enumerate(task_ids)
            ],
            configurations=configurations,
            repeats=repeats,
            concurrency=1,
            isolation="bwrap",
        )
    )
    (run_dir.path / PRICES_FILE).write_text(  # priced, so the cost columns are computed too
        "prices:\n  - {model: 'ollama/*', input_per_million: 0.2, output_per_million: 0.6,"
        " cached_input_per_million: 0.05, date: 2026-12-01, source: bench}\n"
    )
    shared = _templates(root, tasks)
    jobs = [
        (run_dir.path, shared, config, c, task_ids, repeats, seed)
        for c, config in enumerate(configurations)
    ]
    rows: list[TrialRow] = []
    with multiprocessing.Pool(workers) as pool:
        for written in pool.imap(_write_config, jobs):
            rows += written
    run_dir.write_summary(summarise(run_id, rows, generated_at="2026-12-02T00:10:00Z"))
    return run_dir.path


def _gateway(
    rng: random.Random,
    trial_id: str,
    config: ConfigurationInfo,
    requests: int | None,
    tokens: Tokens,
) -> dict[str, object] | None:
    """The gateway's figures a model trial's record carries, tool audit included."""
    if config.model is None or requests is None:
        return None
    calls = {"bash": rng.randint(0, requests), "edit": rng.randint(0, 5), "read": rng.randint(0, 9)}
    if rng.random() < 0.1:
        calls["webfetch"] = 1
    return {
        "trial_id": trial_id,
        "model": config.model,
        "requests": requests,
        "input_tokens": tokens.input,
        "output_tokens": tokens.output,
        "cached_input_tokens": 0,
        "prompt_max_tokens": rng.randint(2000, 30000),
        "prompt_p50_tokens": rng.uniform(1000, 9000),
        "tool_requests": requests,
        "tools_declared": ["bash", "edit", "read", "webfetch"],
        "tool_calls": calls,
        "token_source": "gateway-backend",
        "latency_p50_s": rng.uniform(0.5, 5),
        "latency_p90_s": rng.uniform(5, 20),
        "ttft_p50_s": rng.uniform(0.1, 1),
    }


def _write_config(
    job: tuple[Path, Path, ConfigurationInfo, int, list[str], int, int],
) -> list[TrialRow]:
    """Write one configuration's trials and append their index rows in one write."""
    run_path, shared, config, c, task_ids, repeats, seed = job
    run_dir = RunDir(run_path)
    rng = random.Random(seed * 100_003 + c)
    skill = 0.2 + 0.6 * (c % 10) / 10
    own = _shared(shared, c)
    written = []
    for t, task_id in enumerate(task_ids):
        for r in range(1, repeats + 1):
            success = rng.random() < skill
            claimed = success or rng.random() < 0.5
            status = "completed" if rng.random() > 0.03 else "timeout"
            tokens = Tokens(input=rng.randint(1000, 90000), output=rng.randint(100, 9000))
            requests = rng.randint(1, 40) if config.model else None
            record = TrialRecord(
                run_id="bench-report",
                trial_id=f"{task_id}--{config.id}--r{r}",
                task_id=task_id,
                task_version=1,
                config_id=config.id,
                agent=config.agent,
                model=config.model,
                repeat=r,
                status=status,
                success=success and status == "completed",
                correctness=1.0 if success else rng.choice([0.0, 0.5]),
                overfit=False,
                claimed_done=claimed,
                false_success=claimed and not success,
                damage=[],
                wall_s=rng.uniform(20, 600),
                isolation="bwrap",
                tokens=tokens,
                requests=requests,
                gateway=_gateway(rng, f"{task_id}--{config.id}--r{r}", config, requests, tokens),
                visible=CommandsResult(passed=success, exit_codes=[0 if success else 1]),
                heldout=CommandsResult(passed=success, exit_codes=[0 if success else 1]),
                checks=[CheckResult(kind="command", name="lint", passed=True, reason="ok")],
                started_at="2026-12-02T00:00:00Z",
                finished_at="2026-12-02T00:05:00Z",
                pristine_commit="0" * 40,
            )
            folder = run_dir.trial(record.trial_id)
            folder.mkdir(parents=True)
            path = folder / "record.json"
            text = record.model_dump_json(indent=2)
            path.write_text(text)
            os.link(shared / f"agent.stdout.{t}", folder / "agent.stdout")
            os.link(own / "agent.stderr", folder / "agent.stderr")
            os.link(shared / f"patch.diff.{t}", folder / "patch.diff")
            if config.model:
                os.link(own / "gateway.jsonl", folder / "gateway.jsonl")
            stored = TrialRecord.model_validate_json(text)  # as readers get it, like the runner
            written.append((record_key(path.stat()), trial_row(stored)))
    TrialIndex(run_path).add(written)
    return [row for _, row in written]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--keep", type=Path, help="Write the run and site here and keep them.")
    parser.add_argument(
        "--jobs", type=int, default=4, help="Processes writing the synthetic run (I/O bound)."
    )
    parser.add_argument(
        "--only",
        default="tables,report.md,site",
        help="Steps to time, of tables,report.md,site (site: the build and the rebuild).",
    )
    args = parser.parse_args()
    steps = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="lab-bench-report-") as scratch:
        base = args.keep or Path(scratch)
        t = time.perf_counter()
        if args.keep and (base / "run" / "run.json").is_file():
            run = base / "run"  # a run kept by an earlier --keep: timed again as it is
            print(f"reusing {run}")
        else:
            run = write_run(base, args.trials, workers=args.jobs)
            print(f"wrote {args.trials} synthetic records in {time.perf_counter() - t:.1f} s")
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        (run / CACHE_NAME).unlink(missing_ok=True)
        for name, code, goal_s, goal_mb in (
            ("tables (cold)", TABLES, 3.0, 500.0),
            ("tables", TABLES, 3.0, 500.0),
            ("report.md", REPORT_MD, 3.0, 500.0),
            ("site", BUILD, 10.0, 1024.0),
            ("site again", BUILD, 10.0, 1024.0),
        ):
            if name.split()[0] not in steps:
                continue
            out_dir = base / name.replace(".", "-").split()[0]
            out_dir.mkdir(parents=True, exist_ok=True)
            out = subprocess.run(
                [sys.executable, "-c", code, str(run), str(out_dir)],
                capture_output=True,
                text=True,
            )
            if out.returncode != 0:
                sys.exit(f"{name} failed ({out.returncode}):\n{out.stderr.strip()[-2000:]}")
            seconds, cpu, peak_mb, pages = out.stdout.split()
            what = pages.replace("-", " ").replace(",", ", ") if pages != "-" else "done"
            print(
                f"{name:13} {what} in {seconds} s, {cpu} s of CPU (goal {goal_s:.0f} s, ratio "
                f"{float(seconds) / goal_s:.2f}; CPU ratio {float(cpu) / goal_s:.2f}), peak "
                f"memory {peak_mb} MB (goal < {goal_mb:.0f} MB, ratio "
                f"{float(peak_mb) / goal_mb:.2f}); load average {os.getloadavg()[0]:.2f}"
            )


if __name__ == "__main__":
    main()
