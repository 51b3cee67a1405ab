"""Recognising side requests: model calls outside the agent's main loop.

Agents ask the model for things besides the next turn: a title for the session, a
commit message, a summary for memory, a topic check, a one-token quota probe. A
scripted model answers those without consuming a step. The rules are data; the
classifier is a pure function.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from localagentbench.gateway._canonical import ChatRequest

SIDE_PROMPT_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\btitle generator\b",
        r"\bgenerate\b[^.\n]{0,60}\b(?:title|headline)\b",
        r"\bsingle \"title\" field\b",
        r"\b(?:session|conversation|chat|thread) title\b",
        r"\bcommit messages?\b",
        r"\bsummari[sz]e (?:this|the) (?:partial |following )?(?:conversation|session|chat)",
        r"\bnew conversation topic\b",
        r"\bisNewTopic\b",
        r"\bnext[_ ]speaker\b",
        r"\bextract\w* (?:\w+ )?memor(?:y|ies)\b",
        r"\bbash command prefix\b",
    )
)
"""System-prompt phrases of known side requests (OpenCode, Crush, Claude Code, Aider,
Gemini CLI); applied only to requests that offer no tools."""

PROBE_MAX_TOKENS = 16
"""Requests capped at this many output tokens or fewer are probes (quota checks)."""


@dataclass(frozen=True, slots=True)
class SideRule:
    """One way to recognise a side request."""

    name: str
    matches: Callable[[ChatRequest, bool], bool]


def _tiny_output(request: ChatRequest, seen_tools: bool) -> bool:
    return request.max_tokens is not None and request.max_tokens <= PROBE_MAX_TOKENS


def _toolless_after_tools(request: ChatRequest, seen_tools: bool) -> bool:
    return not request.tools and seen_tools


def _side_prompt(request: ChatRequest, seen_tools: bool) -> bool:
    if request.tools:
        return False
    text = request.system_text() or (request.messages[0].text if request.messages else "")
    return any(pattern.search(text) for pattern in SIDE_PROMPT_PATTERNS)


def _json_without_tools(request: ChatRequest, seen_tools: bool) -> bool:
    return request.json_mode and not request.tools


SIDE_RULES: tuple[SideRule, ...] = (
    SideRule("probe (tiny max_tokens)", _tiny_output),
    SideRule("no tools from an agent that sends tools", _toolless_after_tools),
    SideRule("side-task system prompt", _side_prompt),
    SideRule("structured JSON answer without tools", _json_without_tools),
)


def side_reason(request: ChatRequest, *, seen_tools: bool) -> str | None:
    """Name of the first rule that marks `request` as a side request, else None.

    `seen_tools` says whether this trial's agent already sent a request offering tools.
    """
    for rule in SIDE_RULES:
        if rule.matches(request, seen_tools):
            return rule.name
    return None
