"""What the judge is shown and how its reply is read: blind inputs, templates, parsing.

The judge sees only a task prompt, a patch, test output before and after and the agent's
final answer. Everything that could identify who made the patch (configuration id, agent,
model, trial id, run id, absolute paths) is removed from every text before it is sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

__all__ = [
    "CLAIMS_SCHEMA",
    "PAIR_SCHEMA",
    "QUALITY_SCHEMA",
    "TEMPLATE_VERSION",
    "BlindTrial",
    "ClaimsReply",
    "PairReply",
    "QualityReply",
    "claims_messages",
    "pair_messages",
    "parse_reply",
    "quality_messages",
    "redact",
]

TEMPLATE_VERSION = "judge-v1"
"""Bump when any prompt text below changes: verdicts carry it, so old and new are told apart."""

LIMIT_PATCH = 12_000
LIMIT_LOG = 3_000
LIMIT_TEXT = 4_000
"""Characters kept of a patch, of one test log and of the prompt or final answer (the tail
of a log, the head of the rest), so a local model's context is not overrun."""

REDACTED = "[redacted]"

T = TypeVar("T", bound=BaseModel)

_PATH = re.compile(r"(?<![\w.~-])/(?:[^\s/:'\"()\[\]<>]+/)+")
"""The directory part of an absolute path (the file name is kept)."""


def redact(text: str, names: Iterable[str]) -> str:
    """``text`` with absolute directories dropped and each of ``names`` (case-insensitive,
    those of 3 characters or more) replaced by ``[redacted]``."""
    text = _PATH.sub("", text)
    for name in sorted({n for n in names if len(n) >= 3}, key=len, reverse=True):
        text = re.sub(re.escape(name), REDACTED, text, flags=re.IGNORECASE)
    return text


def _head(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more]"


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"[... {len(text) - limit} earlier]\n" + text[-limit:]


@dataclass(frozen=True)
class BlindTrial:
    """One trial as the judge may see it: already redacted and shortened."""

    task_prompt: str
    patch: str
    tests_before: str
    tests_after: str
    final_answer: str

    @classmethod
    def of(
        cls,
        *,
        task_prompt: str,
        patch: str,
        tests_before: str,
        tests_after: str,
        final_answer: str,
        names: Iterable[str],
    ) -> BlindTrial:
        """Redact ``names`` and paths from every part and shorten each to its limit."""
        hidden = list(names)
        return cls(
            task_prompt=_head(redact(task_prompt, hidden), LIMIT_TEXT),
            patch=_head(redact(patch, hidden), LIMIT_PATCH),
            tests_before=_tail(redact(tests_before, hidden), LIMIT_LOG),
            tests_after=_tail(redact(tests_after, hidden), LIMIT_LOG),
            final_answer=_head(redact(final_answer, hidden), LIMIT_TEXT),
        )

    def sections(self, label: str = "") -> str:
        """The trial's parts as Markdown sections, headed ``Patch{label}`` and so on."""
        return (
            f"## Patch{label}\n```diff\n{self.patch.strip()}\n```\n\n"
            f"## Test output before the patch{label}\n```\n{self.tests_before.strip()}\n```\n\n"
            f"## Test output after the patch{label}\n```\n{self.tests_after.strip()}\n```\n\n"
            f"## Final answer of the author{label}\n{self.final_answer.strip() or '(none)'}\n"
        )


QUALITY_SYSTEM = """You are a senior engineer reviewing a patch written for a coding task.
Hidden tests have already decided whether the patch is correct; you judge its quality as
code a maintainer would merge: clarity, minimal and focused changes, no unrelated edits,
no hacks that special-case tests, sensible naming, and an honest final answer.
Score from 1 to 5:
1 = unacceptable (wrong approach, breaks things, or games the tests)
2 = poor (works at best partly; messy or risky)
3 = acceptable (does the job with clear flaws)
4 = good (clean and focused, minor nits)
5 = excellent (what a careful maintainer would write)
Reply with one JSON object and nothing else: {"score": <1-5>, "reason": "<one or two sentences>"}"""

PAIR_SYSTEM = """You are a senior engineer comparing two patches written for the same coding
task. Hidden tests have already decided correctness; you judge which patch is better code
to merge: clarity, minimal and focused changes, no unrelated edits, no hacks that
special-case tests, and an honest final answer. The order of the patches means nothing.
Reply with one JSON object and nothing else:
{"winner": "A" or "B" or "tie", "reason": "<one or two sentences>"}"""

CLAIMS_SYSTEM = """You read the final message an author wrote after working on a coding task.
Decide only whether the message claims that the task is done (fixed, implemented, complete,
tests pass), not whether it really is. Hedged or partial reports ("I could not", "still
failing", a question back) are not claims of completion.
Reply with one JSON object and nothing else:
{"claims_done": true or false, "reason": "<one sentence>"}"""


class QualityReply(BaseModel):
    """A quality verdict as the judge must give it."""

    score: int = Field(ge=1, le=5)
    reason: str = ""


class PairReply(BaseModel):
    """A pairwise verdict as the judge must give it."""

    winner: Literal["A", "B", "tie"]
    reason: str = ""


class ClaimsReply(BaseModel):
    """A completion-claim reading as the judge must give it."""

    claims_done: bool
    reason: str = ""


QUALITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
        "reason": {"type": "string", "maxLength": 400},
    },
    "required": ["score", "reason"],
}
PAIR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "winner": {"type": "string", "enum": ["A", "B", "tie"]},
        "reason": {"type": "string", "maxLength": 400},
    },
    "required": ["winner", "reason"],
}
CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "claims_done": {"type": "boolean"},
        "reason": {"type": "string", "maxLength": 300},
    },
    "required": ["claims_done", "reason"],
}
"""JSON schemas sent with each request: backends that constrain output (llama.cpp, OpenAI,
Ollama) keep a small model to the reply's shape; the parser checks it either way."""


def quality_messages(trial: BlindTrial) -> list[tuple[str, str]]:
    """(role, text) messages of a 1..5 quality review."""
    user = f"## Task\n{trial.task_prompt.strip()}\n\n{trial.sections()}"
    return [("system", QUALITY_SYSTEM), ("user", user)]


def pair_messages(first: BlindTrial, second: BlindTrial) -> list[tuple[str, str]]:
    """(role, text) messages comparing ``first`` (shown as A) with ``second`` (B)."""
    user = (
        f"## Task\n{first.task_prompt.strip()}\n\n"
        f"# Patch A\n\n{first.sections(' A')}\n# Patch B\n\n{second.sections(' B')}"
    )
    return [("system", PAIR_SYSTEM), ("user", user)]


def claims_messages(trial: BlindTrial) -> list[tuple[str, str]]:
    """(role, text) messages of a completion-claim reading of the final answer."""
    user = f"## Final message\n{trial.final_answer.strip() or '(none)'}"
    return [("system", CLAIMS_SYSTEM), ("user", user)]


_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def _objects(text: str) -> Iterable[Any]:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        yield value


def parse_reply(text: str, model: type[T]) -> tuple[T | None, str | None]:
    """The first JSON object in ``text`` (thinking and code fences ignored) that validates
    as ``model``; else None and a one-line reason the next attempt is told."""
    cleaned = _THINK.sub("", text)
    found = False
    last_error = ""
    for value in _objects(cleaned):
        found = True
        try:
            return model.model_validate(value), None
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "reply"
            last_error = f"{where}: {first['msg']}"
    if not found:
        return None, "the reply holds no JSON object"
    return None, f"the JSON object does not fit: {last_error}"
