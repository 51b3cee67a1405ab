"""A stored run to judge, laid out by hand (no agent, no grading): fast and exact."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from labtest import trial_record
from localagentbench.grading import CommandsResult
from localagentbench.records import (
    ConfigurationInfo,
    RunDir,
    RunInfo,
    TaskProvenance,
    TrialRecord,
)

PROMPT = "add() returns the wrong result; fix it."
PATCH = (
    "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
    "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
)
CONFIGS = {
    "alpha-opencode-qwen": ("opencode", "ollama/qwen2.5-coder:7b"),
    "beta-aider-llama": ("aider", "openai/llama-3.1-8b"),
}
"""config id -> (agent, model): names the stored prompts must never contain."""


def write_script(path: Path, *texts: str) -> str:
    """A scripted judge replying with ``texts`` in order; its model id."""
    path.write_text(yaml.safe_dump({"name": "judge", "steps": [{"text": t} for t in texts]}))
    return f"scripted/{path}"


def _record(
    run_id: str, trial_id: str, config: str, task: str, repeat: int, success: bool
) -> TrialRecord:
    agent, model = CONFIGS[config]
    return trial_record(
        task,
        config,
        repeat,
        success,
        run_id=run_id,
        trial_id=trial_id,
        agent=agent,
        model=model,
        wall_s=10.0,
        heldout=CommandsResult(passed=success, exit_codes=[0 if success else 1]),
        final_answer=f"Done ({agent} with {model}): fixed add in {trial_id}.",
    )


RunFactory = Callable[..., Path]


@pytest.fixture
def stored_run(tmp_path: Path) -> RunFactory:
    """``factory(repeats=1, no_patch=())``: a run of two configurations on task calc-add,
    each trial with patch.diff and grading logs (except the trial ids in ``no_patch``)."""

    def factory(repeats: int = 1, no_patch: tuple[str, ...] = (), name: str = "run") -> Path:
        suite = tmp_path / f"{name}-suite" / "calc-add"
        (suite / "repo").mkdir(parents=True)
        (suite / "repo" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        (suite / "task.yaml").write_text(
            yaml.safe_dump(
                {
                    "id": "calc-add",
                    "title": "Fix add",
                    "prompt": PROMPT,
                    "difficulty": "easy",
                    "category": "bugfix",
                    "language": "python",
                    "repo": {"type": "fixture", "path": "repo"},
                    "oracle": {"command": ["true"]},
                }
            )
        )
        run = tmp_path / name
        run_dir = RunDir(run)
        run_id = f"{name}-20260101"
        run_dir.write_info(
            RunInfo(
                run_id=run_id,
                created_at="2026-01-01T00:00:00Z",
                harness={"version": "0.1.0"},
                host={},
                tasks_dir=str(suite.parent),
                tasks=[
                    TaskProvenance(
                        id="calc-add",
                        version=1,
                        digest="d",
                        commit="0" * 40,
                        source=str(suite / "task.yaml"),
                        project="calc",
                        language="python",
                        category="bugfix",
                        difficulty="easy",
                        tier=None,
                    )
                ],
                configurations=[
                    ConfigurationInfo(id=c, agent=a, model=m, settings={})
                    for c, (a, m) in CONFIGS.items()
                ],
                repeats=repeats,
                concurrency=1,
                isolation="none",
            )
        )
        for config in CONFIGS:
            for repeat in range(1, repeats + 1):
                trial_id = f"calc-add--{config}--r{repeat}"
                success = config.startswith("alpha")
                run_dir.write_record(_record(run_id, trial_id, config, "calc-add", repeat, success))
                folder = run_dir.trial(trial_id)
                grading = folder / "grading"
                grading.mkdir(parents=True, exist_ok=True)
                (grading / "pristine-0.log").write_text(
                    f"$ python -m pytest --junitxml={folder}/x.xml\n# exit 1 in 1s, jail: none\n"
                    f"--- stdout ---\nF {folder}/tests/test_calc.py:5: AssertionError\n"
                )
                (grading / "visible-0.log").write_text(
                    f"--- stdout ---\n{'.' if success else 'F'} 1 test in {tmp_path}/scratch\n"
                )
                if trial_id not in no_patch:
                    (folder / "patch.diff").write_text(PATCH)
        return run

    return factory
