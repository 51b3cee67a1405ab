"""Aider end to end through the runner and the gateway, and its traps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from localagentbench.agents import make_agent
from localagentbench.agents._aider import parse_run

from ._e2e import (
    DONE,
    FIXED,
    WRONG,
    assert_false_success,
    assert_fixed,
    require,
    run_agent,
    run_direct,
)


def _script(tmp_path: Path, content: str, name: str = "aider") -> str:
    """Two replies: naming calc.py (aider adds it to the chat and asks again), then the
    whole new calc.py in aider's file-listing format and the claim."""
    steps = [{"text": "The bug is in calc.py."}, {"text": f"calc.py\n```\n{content}```\n\n{DONE}"}]
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        yaml.safe_dump(
            {"name": name, "steps": steps, "usage": {"prompt_tokens": 100, "completion_tokens": 20}}
        )
    )
    return f"scripted/{path}"


@pytest.mark.slow
def test_aider_fixes_add_and_leaves_no_file_of_its_own_in_the_repo(
    make_task, tmp_path: Path
) -> None:
    """The patch holds only calc.py: no history, tag cache or .gitignore edit in the repo."""
    require("aider")
    make_task()
    trial = run_agent("aider", _script(tmp_path, FIXED), tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, 2)
    assert ".aider" not in trial.patch
    assert ".gitignore" not in trial.patch
    trajectory = trial.trajectory
    assert [(c["name"], c["ok"]) for s in trajectory["steps"] for c in s["tool_calls"]] == [
        ("edit", True)
    ]
    assert trajectory["completion_claim"] is True
    assert trajectory["tokens"]["source"] == "agent"
    assert trial.record.wall_s < 60


@pytest.mark.slow
def test_aider_with_tracked_files_sees_the_code_in_its_first_request(
    make_task, tmp_path: Path
) -> None:
    """With `chat_files: tracked` the first request already holds calc.py's text, so one
    reply (the whole new file) fixes it: no turn spent naming the file."""
    require("aider")
    make_task()
    steps = [{"text": f"calc.py\n```\n{FIXED}```\n\n{DONE}"}]
    path = tmp_path / "aider-files.yaml"
    path.write_text(
        yaml.safe_dump(
            {"name": "f", "steps": steps, "usage": {"prompt_tokens": 100, "completion_tokens": 20}}
        )
    )
    settings = {"chat_files": "tracked", "max_output_tokens": 1234}
    trial = run_agent("aider", f"scripted/{path}", tmp_path / "suite", tmp_path / "run", settings)
    assert_fixed(trial, 1)
    first = json.dumps(trial.gateway[0]["request"]["messages"])
    assert "return a - b" in first, first[:2000]  # the buggy calc.py, as shown to the model
    # the configuration's output cap reaches the backend in every request
    assert [e["request"].get("max_tokens") for e in trial.gateway] == [1234]


@pytest.mark.slow
def test_aider_wrong_edit_claimed_done_is_false_success(make_task, tmp_path: Path) -> None:
    require("aider")
    make_task()
    model = _script(tmp_path, WRONG, "wrong")
    assert_false_success(run_agent("aider", model, tmp_path / "suite", tmp_path / "run"))


@pytest.mark.slow
def test_aider_exit_0_after_every_model_call_failed_is_recorded_as_exit_1(
    make_task, tmp_path: Path
) -> None:
    """Run directly: the runner would not start with a model whose first answer is an error."""
    require("aider")
    root = make_task()
    path = tmp_path / "refuse.yaml"
    path.write_text(
        yaml.safe_dump(
            {"name": "refuse", "steps": [{"error": {"status": 400, "message": "scripted refusal"}}]}
        )
    )
    run = run_direct("aider", f"scripted/{path}", root, tmp_path)
    assert "scripted refusal" in run.outcome.stdout + run.outcome.stderr
    assert run.outcome.exit_code == 1, run.outcome.stdout
    assert run.outcome.trajectory is not None
    assert "every model call failed" in run.outcome.trajectory["notes"]
    assert "recorded as 1" in run.outcome.stderr


def test_no_reply_in_the_history_means_every_call_failed() -> None:
    history = "TO LLM 2026-01-01T00:00:00\n-------\nUSER fix it\n"
    trajectory = parse_run(history, "litellm.BadRequestError: refused\n")
    assert trajectory.steps == []
    assert trajectory.notes == ["every model call failed"]


def test_failed_edits_and_tokens_are_parsed() -> None:
    history = "TO LLM x\nUSER fix\nLLM RESPONSE x\nASSISTANT calc.py\nASSISTANT Done: fixed.\n"
    stdout = "Tokens: 1.2k sent, 30 received.\nThe LLM did not conform to the edit format.\n"
    trajectory = parse_run(history, stdout)
    assert trajectory.failed_tool_calls == 1
    assert trajectory.tokens is not None
    assert (trajectory.tokens.input, trajectory.tokens.output) == (1200, 30)
    assert trajectory.final_answer == "calc.py\nDone: fixed."


def test_unknown_setting_is_refused_with_the_valid_ones() -> None:
    from localagentbench.errors import ConfigError

    with pytest.raises(ConfigError, match="settings.edit_fromat.*edit_format"):
        make_agent("aider", {"edit_fromat": "diff"})


def test_chat_files_tracked_puts_every_tracked_file_in_the_chat(make_task, tmp_path: Path) -> None:
    """By default aider starts with only the prompt (no repo map): `tracked` adds the files
    git tracks, after `--`, so the model sees the code as `aider $(git ls-files)` shows it."""
    import subprocess

    from localagentbench.agents._aider import AiderAgent
    from localagentbench.gateway import Gateway

    from ._e2e import trial_context

    blind = make_agent("aider", {})
    tracked = make_agent("aider", {"chat_files": "tracked"})
    assert isinstance(blind, AiderAgent)
    assert isinstance(tracked, AiderAgent)
    with Gateway() as gateway:
        ctx = trial_context(make_task(), tmp_path, gateway)
        assert ctx.route is not None
        (ctx.workspace / "pkg").mkdir()
        (ctx.workspace / "pkg" / "calc.py").write_text("x = 1\n")
        (ctx.workspace / "README.md").write_text("calc\n")
        (ctx.workspace / "untracked.txt").write_text("not in git\n")
        git = ["git", "-C", str(ctx.workspace), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "pkg", "README.md"], check=True)
        binary = Path("/opt/aider/bin/aider")
        plain = blind.invocation(ctx, ctx.route, binary).argv
        listed = tracked.invocation(ctx, ctx.route, binary).argv
    assert "--" not in plain
    assert "--model-settings-file" not in plain  # no cap set: none sent, as aider runs
    assert plain[-2:] == ["--message", ctx.prompt]
    assert listed[: len(plain)] == plain
    assert listed[len(plain) :] == ["--", "README.md", "pkg/calc.py"]
    with pytest.raises(Exception, match="chat_files"):
        make_agent("aider", {"chat_files": "all"})


def test_the_output_cap_becomes_max_tokens_in_aiders_model_settings(
    make_task, tmp_path: Path
) -> None:
    """Aider sends no max_tokens unless model settings say so: the cap is written there."""
    from localagentbench.agents._aider import AiderAgent
    from localagentbench.gateway import Gateway

    from ._e2e import trial_context

    capped = make_agent("aider", {"max_output_tokens": 2048})
    assert isinstance(capped, AiderAgent)
    with Gateway() as gateway:
        ctx = trial_context(make_task(), tmp_path, gateway)
        assert ctx.route is not None
        argv = capped.invocation(ctx, ctx.route, Path("/opt/aider/bin/aider")).argv
    settings = Path(argv[argv.index("--model-settings-file") + 1])
    assert settings.is_relative_to(ctx.home)
    assert yaml.safe_load(settings.read_text()) == [
        {"name": "aider/extra_params", "extra_params": {"max_tokens": 2048}}
    ]
