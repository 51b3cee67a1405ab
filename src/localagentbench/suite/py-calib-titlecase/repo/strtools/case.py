"""Case helpers."""

from __future__ import annotations

SMALL_WORDS = frozenset("a an and at but by for in of on or the to".split())


def squash_spaces(text: str) -> str:
    """Runs of whitespace become one space; leading and trailing whitespace is removed."""
    return " ".join(text.split())


def title_case(text: str) -> str:
    """Title-case ``text`` (see the README)."""
    raise NotImplementedError
