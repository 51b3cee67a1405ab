"""Resuming a run never mixes model files: the recorded sha256 must still match."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from localagentbench.errors import RunDirError
from localagentbench.records import ConfigurationInfo, RunDir, RunInfo
from localagentbench.runner import resume_options


def _run_with_model(tmp_path: Path, model: Path, sha256: str) -> Path:
    run = tmp_path / "run"
    config = ConfigurationInfo(
        id="mini-own",
        agent="mini-swe-agent",
        model=f"llamacpp/{model}",
        settings={},
        tool_call_repair=True,
        model_info={"sha256": sha256, "path": str(model)},
    )
    info = RunInfo(
        run_id="r1",
        created_at="2026-12-02T00:00:00Z",
        harness={},
        host={},
        tasks_dir=str(tmp_path),
        tasks=[],
        configurations=[config],
        repeats=1,
        concurrency=1,
        isolation="none",
    )
    RunDir(run).write_info(info)
    return run


def test_resume_refuses_a_changed_model_file(tmp_path: Path) -> None:
    model = tmp_path / "own.gguf"
    model.write_bytes(b"GGUF first")
    run = _run_with_model(tmp_path, model, hashlib.sha256(b"GGUF first").hexdigest())
    options = resume_options(run)
    assert options.configurations[0].tool_call_repair
    model.write_bytes(b"GGUF other")
    with pytest.raises(RunDirError, match="not the one the run used"):
        resume_options(run)
