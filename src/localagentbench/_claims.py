"""Does the agent's final answer claim the task is done? (rule-based; a judge may refine it)

Below every stage: an adapter's trajectory and the grader both ask it, and neither imports
the other.
"""

from __future__ import annotations

import re

__all__ = ["claims_done"]

_NEGATIVE = re.compile(
    r"\b(not (yet )?(done|complete|completed|finished|fixed|working)|unable|could ?n[o']t|"
    r"can ?n[o']t|failed to|did ?n[o']t|gave up|give up|no changes? (were )?made|incomplete|"
    r"partially|blocked|still fail(s|ing)?)\b",
    re.IGNORECASE,
)
_POSITIVE = re.compile(
    r"\b(done|fixed|complete[d]?|finished|implemented|resolved|solved|"
    r"all (the )?tests (now )?pass(ed)?|tests (now )?pass|successfully|ready)\b",
    re.IGNORECASE,
)


def claims_done(final_answer: str | None) -> bool:
    """True when the answer says the work is complete and does not also say it is not."""
    if not final_answer:
        return False
    return bool(_POSITIVE.search(final_answer)) and not _NEGATIVE.search(final_answer)
