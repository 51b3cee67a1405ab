"""Upgrading stored files (record.json, run.json, summary.json) to the shape this harness reads.

Each stored kind has a chain of steps, one per version bump: ``STEPS[kind][n]`` turns a
version-n document into version n+1, and `upgrade` runs the chain from the file's version to
the current one. Within version 1 fields were added with defaults; `backfill_record_v1` gives
the older files the values their other fields imply instead of bare defaults, so a record from
the repository's first runs reads like one written today. A file newer than the harness is
refused with one line naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

__all__ = ["STEPS", "Kind", "NewerVersionError", "backfill_record_v1", "upgrade"]

Kind = Literal["record", "run", "summary"]
Step = Callable[[dict[str, Any]], dict[str, Any]]


class NewerVersionError(ValueError):
    """A stored file was written by a newer harness than this one."""


def backfill_record_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Fill fields a version-1 record gained after its first runs, from what it already holds.

    ``tokens.counting``, ``tokens.cached`` and ``requests`` come from the gateway's figures
    when the record has them; a check's ``status`` from its ``passed``; a cap_hit record's
    ``cap`` says max_requests, the only cap there was, which the agent met on its own.
    Fields added later with a None default (``gateway.tool_requests``,
    ``gateway.prompt_max_tokens``, ``agent_cost_usd``) stay None in older records: "not
    recorded", never zero.
    """
    gateway = data.get("gateway")
    if isinstance(gateway, dict):
        tokens = data.get("tokens")
        if isinstance(tokens, dict) and tokens.get("counting") is None:
            tokens["counting"] = gateway.get("token_source")
        if data.get("requests") is None and "requests" in gateway:
            data["requests"] = gateway["requests"]
        if isinstance(tokens, dict) and tokens.get("cached") is None:
            tokens["cached"] = gateway.get("cached_input_tokens")
    if data.get("status") == "cap_hit" and data.get("cap") is None:
        detail = data.get("error") or ""
        data["cap"] = {"cap": "max_requests", "detail": detail, "ended_by": "agent"}
    for check in data.get("checks") or []:
        if isinstance(check, dict) and check.get("status") is None and "passed" in check:
            check["status"] = "passed" if check["passed"] else "failed"
    return data


STEPS: dict[Kind, dict[int, Step]] = {"record": {}, "run": {}, "summary": {}}
"""Per kind, version n -> the step to version n+1. Record and run are at version 1 (their
later fields came with defaults, see `backfill_record_v1`); a summary of version 1 loads as
it is, its version kept and the fields version 2 added absent (`Summary` reads both)."""

_BACKFILL: dict[Kind, dict[int, Step]] = {"record": {1: backfill_record_v1}}


def upgrade(kind: Kind, data: Any, current: int, source: str = "") -> Any:
    """`data` upgraded step by step to version `current` (or to the newest version a step
    exists for, below it, when the model reads the older shape itself); non-dict data is
    returned as is.

    Raises NewerVersionError (one line, naming `source` when given) for a newer file.
    """
    if not isinstance(data, dict):
        return data
    version = data.get("version", 1)
    if not isinstance(version, int) or version > current:
        where = f"{source}: " if source else ""
        raise NewerVersionError(
            f"{where}{kind} version {version} is newer than this harness reads ({current}); "
            "upgrade localagentbench"
        )
    while True:
        if fill := _BACKFILL.get(kind, {}).get(version):
            data = fill(data)
        if version == current or version not in STEPS[kind]:
            return data
        data = STEPS[kind][version](data)
        version += 1
        data["version"] = version
