"""The user-cache files the runner keeps (toolchain proofs, pristine results): one shape.

Each is a JSON object ``{"version": N, "entries": {key: entry}}``. A file that is missing,
damaged or of another version reads as empty (what it held is computed again); a write
merges with what another run may have written meanwhile and fails quietly (a read-only
cache costs the next run a recomputation, nothing else).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

from localagentbench._io import atomic_write_text

__all__ = ["CacheFile", "merge_cache", "read_cache"]

E = TypeVar("E", bound=BaseModel)
C = TypeVar("C", bound="CacheFile[Any]")


class CacheFile(BaseModel, Generic[E]):
    """A cache file's shape; a subclass sets ``version``'s default and the entry type."""

    version: int = 1
    entries: dict[str, E] = Field(default_factory=dict)


def read_cache(path: Path, kind: type[C]) -> C:
    """The file at ``path`` as ``kind``; empty when it is missing, damaged or another version."""
    empty = kind()
    try:
        cache = kind.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return empty
    return cache if cache.version == empty.version else empty


def merge_cache(
    path: Path, kind: type[C], fresh: Mapping[str, BaseModel], indent: int | None = None
) -> None:
    """Add ``fresh`` to the file at ``path``, re-read first (nothing written when empty)."""
    if not fresh:
        return
    cache = read_cache(path, kind)
    cache.entries.update(fresh)
    with contextlib.suppress(OSError):
        atomic_write_text(path, cache.model_dump_json(indent=indent))
