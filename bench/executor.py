"""The Dask executor against the local one: the same model-bound trials, in one run.

16 trials (issue 18) of a task whose grading is `true`, by a command agent that asks the
gateway for a completion a few times; the backend is a scripted model that sleeps before
each reply, so a trial is mostly waiting on the model, as trials against a real endpoint
are. Both executors run them two at a time: the local one in threads, Dask on a
LocalCluster of two single-threaded worker processes on 127.0.0.1 (the cluster's start
and stop are inside the Dask figure). Dask's fixed start cost, measured apart, is a
LocalCluster started and stopped with no trial. Target: Dask within 1.2x of local.

    python bench/executor.py [--trials 16] [--requests 4] [--delay 1.0]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml

from localagentbench.runner import RunOptions, configuration_from_cli, execute

AGENT = """\
import json, os, urllib.request
for _ in range({requests}):
    body = {{"model": "m", "messages": [{{"role": "user", "content": "Say hello."}}]}}
    request = urllib.request.Request(
        os.environ["LAB_BASE_URL"] + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={{"content-type": "application/json"}},
    )
    urllib.request.urlopen(request, timeout=60).read()
print("done")
"""


def build(root: Path, requests: int, delay: float) -> tuple[Path, Path, Path]:
    """The task, the agent script and the scripted model under ``root``."""
    task = root / "suite" / "wait-model"
    (task / "repo").mkdir(parents=True)
    (task / "repo" / "README").write_text("nothing to fix\n")
    data = {
        "id": "wait-model",
        "title": "wait on the model",
        "prompt": "Ask the model.",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "shell",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": ["true"]},
    }
    (task / "task.yaml").write_text(yaml.safe_dump(data))
    agent = root / "agent.py"
    agent.write_text(AGENT.format(requests=requests))
    model = root / "sleepy.yaml"
    steps = [{"text": "Hello.", "delay_s": delay}] * (requests + 1)
    model.write_text(yaml.safe_dump({"name": "sleepy", "steps": steps}))
    return task.parent, agent, model


def timed_run(suite: Path, agent: Path, model: Path, out: Path, trials: int, kind: str) -> float:
    config = configuration_from_cli("command", f"scripted/{model}", agent_cmd=f"python3 {agent}")
    options = RunOptions(
        tasks_dir=suite,
        configurations=[config],
        repeats=trials,
        concurrency=2,
        out=out,
        executor=kind,  # type: ignore[arg-type]
    )
    started = time.perf_counter()
    result = execute(options)
    took = time.perf_counter() - started
    records = result.run_dir.records()
    bad = [r for r in records if r.status != "completed" or not r.requests]
    if len(records) != trials or bad:
        why = f"{bad[0].status}: {bad[0].error} ({bad[0].requests} requests)" if bad else ""
        print((result.run_dir.trial(bad[0].trial_id) / "agent.stderr").read_text()[-600:])
        raise SystemExit(f"{kind}: {len(records)} records, {len(bad)} not completed; {why}")
    return took


def cluster_start_s() -> float:
    """A LocalCluster of two workers started and stopped, nothing run on it."""
    from localagentbench.runner._dask import dask_executor

    started = time.perf_counter()
    with dask_executor(None, workers=2, lanes={}, min_free_mb=0, log=lambda i: None) as ex:
        ex.workers()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--requests", type=int, default=4, help="model requests per trial")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds the model sleeps")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-executor-") as tmp:
        root = Path(tmp)
        suite, agent, model = build(root, args.requests, args.delay)
        local = timed_run(suite, agent, model, root / "local", args.trials, "local")
        dask = timed_run(suite, agent, model, root / "dask", args.trials, "dask")
        start = cluster_start_s()
    waiting = args.trials * args.requests * args.delay / 2
    print(f"{args.trials} trials x {args.requests} requests x {args.delay}s model delay, 2 at once")
    print(f"  model waiting alone: {waiting:.1f}s")
    print(f"  local executor:      {local:.1f}s")
    print(f"  dask (2 workers):    {dask:.1f}s")
    print(f"  ratio dask/local:    {dask / local:.2f} (target <= 1.2)")
    print(f"  dask fixed start:    {start:.1f}s (LocalCluster of 2 started and stopped)")


if __name__ == "__main__":
    main()
