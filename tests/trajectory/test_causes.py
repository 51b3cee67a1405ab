"""Each failure rule on a real stored trial from leaderboard/ (a built one where the
committed runs hold no such failure), and the per-configuration breakdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.agents import Step, ToolCall, Trajectory
from localagentbench.records import RunDir
from localagentbench.trajectory import (
    CAUSES,
    Cause,
    Evidence,
    classify,
    failure_breakdown,
    trial_causes,
)

LEADERBOARD = Path(__file__).resolve().parents[2] / "leaderboard"


def _causes(run: str, trial: str) -> dict[str, Cause]:
    folder = LEADERBOARD / run / "trials" / trial
    if not folder.is_dir():
        pytest.skip(f"stored trial {run}/{trial} not in this checkout")
    record = RunDir(LEADERBOARD / run).read_record(trial)
    assert record is not None
    return {c.name: c for c in trial_causes(record, folder)}


def test_no_edit_and_tool_calls_written_as_text_by_mini_swe_agent() -> None:
    causes = _causes("cpu-qwen05", "go-ini-rename--mini-q05--r3")
    assert "the patch is empty" in causes["no_edit"].evidence
    pseudo = causes["pseudo_tool_calls"]
    assert pseudo.step == 1
    assert "[Makes bash tool call" in pseudo.evidence


def test_pseudo_tool_call_as_a_json_block_from_pi() -> None:
    pseudo = _causes("cpu-q05-pi-repair", "go-calib-clamp--pi-q05--r1")["pseudo_tool_calls"]
    assert '"name": "Clamp"' in pseudo.evidence


def test_edits_rejected_by_aiders_search_replace_format() -> None:
    rejected = _causes("cpu-q05-aider-diff", "py-calib-titlecase--aider-diff-q05--r1")[
        "edit_format_rejected"
    ]
    assert "edit(s) rejected" in rejected.evidence
    assert "failed to match" in rejected.evidence
    assert rejected.step == 1


def test_mini_swe_agents_repeated_format_error_counts_as_rejected_format() -> None:
    rejected = _causes("cpu-qwen05", "go-ini-rename--mini-q05--r3")["edit_format_rejected"]
    assert "No tool calls found" in rejected.evidence


def test_timeout() -> None:
    causes = _causes("cpu-q05-aider-whole", "go-ringq-wrap--aider-whole-q05--r1")
    assert "time limit" in causes["timeout"].evidence


def test_cap_hit_by_the_agents_own_step_limit() -> None:
    cap = _causes("cpu-qwen05-repair", "js-duration-format--mini-q05-repair--r1")["cap_hit"]
    assert "LimitsExceeded" in cap.evidence


def test_loop_of_identical_replies() -> None:
    loop = _causes("cpu-q05-aider-whole", "go-ini-rename--aider-whole-q05--r1")["loop"]
    assert loop.step == 1
    assert "identical steps" in loop.evidence


def test_tests_broken_by_the_edit() -> None:
    broken = _causes("cpu-q15-aider-diff", "py-invoicer-exempt--aider-diff-q15--r1")
    assert "8 test(s) that passed before the edit fail after it" in broken["tests_broken"].evidence


def test_wrong_edit_of_the_right_file() -> None:
    causes = _causes("cpu-q05-aider-whole", "go-calib-clamp--aider-whole-q05--r1")
    assert "mathx.go" in causes["wrong_edit_right_file"].evidence
    assert "edit_outside_task_files" not in causes
    assert "no_edit" not in causes


def test_edit_outside_the_tasks_files_copied_from_aiders_format_example() -> None:
    causes = _causes("cpu-q05-aider-files", "go-ringq-wrap--aider-files-q05--r1")
    outside = causes["edit_outside_task_files"]
    assert "path/to/filename.js" in outside.evidence
    assert "ring.go" in outside.evidence  # what the reference changes
    assert "wrong_edit_right_file" not in causes


def test_tampering_flagged_when_a_protected_test_file_is_edited() -> None:
    causes = _causes("cpu-q05-aider-files", "go-calib-clamp--aider-files-q05--r3")
    assert "mathx_test.go (edited)" in causes["tampering"].evidence


def test_a_successful_trial_has_no_cause() -> None:
    run = RunDir(LEADERBOARD / "cpu-q15-aider-diff")
    if not run.path.is_dir():
        pytest.skip("leaderboard not in this checkout")
    solved = [r for r in run.records() if r.success]
    assert solved
    assert trial_causes(solved[0], run.trial(solved[0].trial_id)) == []


def test_context_window_exceeded_on_a_built_trial() -> None:
    """No committed trial ran out of context: a built one whose second request failed."""
    run = RunDir(LEADERBOARD / "cpu-qwen05")
    if not run.path.is_dir():
        pytest.skip("leaderboard not in this checkout")
    record = run.records()[0]
    steps = [
        Step(seq=1, text="Reading.", tool_calls=[ToolCall(name="bash", arguments="{}")]),
        Step(
            seq=2,
            error="backend answered HTTP 400: the request exceeds the available context size "
            "(4096 tokens)",
        ),
    ]
    evidence = Evidence(record=record, trajectory=Trajectory(agent="x", steps=steps), patch="")
    context = {c.name: c for c in classify(evidence)}["context_exceeded"]
    assert context.step == 2
    assert "exceeds the available context size" in context.evidence


def test_cap_hit_where_the_gateway_refused_on_a_built_trial() -> None:
    run = RunDir(LEADERBOARD / "cpu-qwen05")
    if not run.path.is_dir():
        pytest.skip("leaderboard not in this checkout")
    record = run.records()[0]
    refusal = "LocalAgentBench request cap reached: this trial may make at most 2 model requests"
    steps = [Step(seq=1, text="a"), Step(seq=2, text="b"), Step(seq=3, refused=refusal)]
    evidence = Evidence(record=record, trajectory=Trajectory(agent="x", steps=steps), patch="")
    cap = {c.name: c for c in classify(evidence)}["cap_hit"]
    assert cap.step == 3
    assert "request cap reached" in cap.evidence


def test_breakdown_per_configuration_over_the_committed_runs() -> None:
    runs = [LEADERBOARD / "cpu-qwen05", LEADERBOARD / "cpu-q15-aider-diff"]
    if not all(r.is_dir() for r in runs):
        pytest.skip("leaderboard not in this checkout")
    breakdown = failure_breakdown(runs)
    mini = breakdown["mini-q05"].as_dict()
    assert (mini["trials"], mini["failures"], mini["unexplained"]) == (30, 30, 0)
    assert list(mini["causes"]) == list(CAUSES)  # every cause named, zero included
    assert mini["causes"]["no_edit"] == 30
    aider = breakdown["aider-diff-q15"]
    assert aider.failures == aider.trials - 3  # three trials solved
    assert aider.causes["edit_format_rejected"] >= 1


def test_the_trial_page_shows_each_cause_with_its_evidence_and_step_link() -> None:
    from localagentbench.report._site import template_env
    from localagentbench.report._trialpage import trial_page

    run = RunDir(LEADERBOARD / "cpu-qwen05")
    if not run.path.is_dir():
        pytest.skip("leaderboard not in this checkout")
    trial = "go-ini-rename--mini-q05--r3"
    record = run.read_record(trial)
    assert record is not None
    page = trial_page(record, run.trial(trial), prompt=None)
    html = template_env().get_template("trial.html").render(root="../../", page=page, r=record)
    section = html.split('id="causes"', 1)[1].split("</section>", 1)[0]
    assert 'data-cause="no_edit"' in section
    assert 'tool calls written as text</strong> at <a href="#step-1">step 1</a>' in section
    assert 'id="step-1"' in html
