"""The statistics docs stay honest: every public name is documented."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import localagentbench.stats as stats

METHODOLOGY = Path(__file__).resolve().parents[2] / "docs" / "METHODOLOGY.md"


def _statistics_section() -> str:
    text = METHODOLOGY.read_text(encoding="utf-8")
    start = text.index("\n## Statistics\n")
    end = text.find("\n## ", start + 1)
    # Fenced blocks (```console) would pair their backticks with the inline spans after them.
    return re.sub(r"^```.*$", "", text[start : end if end != -1 else len(text)], flags=re.M)


@pytest.mark.parametrize("name", stats.__all__)
def test_public_name_is_in_the_statistics_section(name: str) -> None:
    code_spans = re.findall(r"`([^`]+)`", _statistics_section())
    word = re.compile(rf"\b{name}\b")
    assert any(word.search(span) for span in code_spans), f"{name} is not in METHODOLOGY.md"


@pytest.mark.parametrize(
    "name", [n for n in stats.__all__ if inspect.isfunction(getattr(stats, n))]
)
def test_public_function_docstring_states_small_n_behaviour(name: str) -> None:
    doc = inspect.getdoc(getattr(stats, name)) or ""
    assert "Small n:" in doc, f"{name} does not say how it behaves at small n"
    assert "Raises:" in doc, f"{name} does not say what it raises"
