"""Generated tasks that do not leak their answer and are judged by meaning (issue 41)."""

from __future__ import annotations

import shutil

import pytest
from tests.importers._shop import go_shop, python_shop

from localagentbench.importers import ImportResult, draw_candidates
from localagentbench.importers._prove import Candidate


def _answers(candidate: Candidate) -> list[str]:
    """What the task's grading expects that the agent must find: the `set` items and the
    lines the reference patch adds (stripped, long enough to be code, not a lone brace)."""
    found = [
        item for check in candidate.data.get("checks", []) for item in check.get("expected", [])
    ]
    for line in candidate.patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            code = line[1:].strip()
            if len(code) >= 8:
                found.append(code)
    return found


def _draw(project, tmp_path) -> list[Candidate]:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    made = draw_candidates(project, scratch, ImportResult(out=tmp_path / "unused"), seed=1, count=1)
    assert {c.data["category"] for c in made} == {"bugfix", "refactor"}
    return made


def _assert_no_leak(made: list[Candidate]) -> None:
    kinds = set()
    for candidate in made:
        kinds.add(candidate.data["id"].split("-")[1])
        prompt = candidate.data["prompt"]
        answers = _answers(candidate)
        assert answers, candidate.task_id
        leaked = [a for a in answers if a in prompt]
        assert not leaked, f"{candidate.task_id}: the prompt gives away {leaked}"
    assert kinds == {"bug", "rename", "callers"}


def test_no_python_prompt_contains_an_expected_answer(tmp_path) -> None:
    _assert_no_leak(_draw(python_shop(tmp_path / "shop"), tmp_path))


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH (apt-get install golang-go)"
)
def test_no_go_prompt_contains_an_expected_answer(tmp_path) -> None:
    _assert_no_leak(_draw(go_shop(tmp_path / "shop"), tmp_path))
