"""Early stop at the cap with a real agent CLI (issue 18, part 4): a scripted model that
never stops calling tools drives mini-swe-agent; at max_requests the harness ends the
agent's process instead of waiting for its timeout, grades what it left, records cap_hit."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ._e2e import require, run_agent

TIMEOUT_S = 600
"""The task's agent timeout: the trial must end long before it."""


def _endless(tmp_path: Path) -> str:
    """A model that answers every turn with one more shell command, never a finish."""
    steps = [
        {
            "text": f"Step {n}: looking further.",
            "tool_calls": [{"name": "bash", "args": {"command": f"echo step {n}"}}],
        }
        for n in range(200)
    ]
    path = tmp_path / "endless.yaml"
    data = {
        "name": "endless",
        "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        "steps": steps,
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return f"scripted/{path}"


@pytest.mark.slow
def test_an_agent_that_never_stops_is_ended_at_max_requests(make_task, tmp_path: Path) -> None:
    require("mini-swe-agent")
    make_task(max_requests=2, timeout_s=TIMEOUT_S)
    trial = run_agent("mini-swe-agent", _endless(tmp_path), tmp_path / "suite", tmp_path / "run")
    record = trial.record
    assert record.status == "cap_hit", trial.explain()
    assert record.cap is not None
    assert record.cap.cap == "max_requests"
    assert record.cap.ended_by == "harness", trial.explain()  # mini retries the refusal
    assert record.requests == 2
    assert record.cap.saved_s is not None
    assert record.cap.saved_s > TIMEOUT_S / 2
    assert record.visible.exit_codes  # graded: what the agent left was tested
