"""The record step: one `TrialRecord` merged from the parts each step contributes.

Each step's result says its own fields (``part()``); `build_record` only merges them, so a
new field touches the step that produces it and the record model, never this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from localagentbench.records import TrialRecord

__all__ = ["RecordPart", "build_record"]


class RecordPart(Protocol):
    """A step's result: the record fields it owns."""

    def part(self) -> dict[str, Any]: ...


def build_record(*parts: RecordPart | Mapping[str, Any]) -> TrialRecord:
    """Merge the steps' parts (a mapping: fields the caller owns, such as the identity and
    times) into one validated record. Two parts naming the same field is a harness bug."""
    fields: dict[str, Any] = {}
    for part in parts:
        given = dict(part) if isinstance(part, Mapping) else part.part()
        clash = fields.keys() & given.keys()
        if clash:
            raise ValueError(f"record fields given by two steps: {', '.join(sorted(clash))}")
        fields.update(given)
    return TrialRecord.model_validate(fields)
