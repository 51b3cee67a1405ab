"""A run's figures kept between reads, in SQLite beside its records.

`tables` and report.md over a large run need each configuration's summary, cells, spending
and per-task spreads, not its 100,000 rows. The first read computes them from the rows
(`summarise`, `spend_by_config`, `task_spreads`) and keeps them in ``DIR/results.sqlite``
under a key of everything they depend on: the records' fingerprint (`RunDir.fingerprint`:
every record.json's inode, size and times, so a trial written, rewritten or removed, or a
copied folder, is a new key), the regrade and judge stamps shown, the price table, and the
versions of rows, summaries and this cache. A later read with the same key loads the
figures without opening a row. The file is a cache: unreadable, locked or in a read-only
folder, it is skipped and the figures computed. SQLite (standard library) rather than a
file format of our own: atomic replace of an entry, concurrent readers, and a corrupt file
is an error to catch, not a half line to parse.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from contextlib import closing
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from localagentbench.records import ROW_VERSION, SUMMARY_VERSION, Summary
from localagentbench.results._prices import PriceTable
from localagentbench.results._spend import ConfigSpend

__all__ = ["CACHE_NAME", "CACHE_VERSION", "Aggregates", "cache_key", "load_cached", "store"]

CACHE_NAME = "results.sqlite"
CACHE_VERSION = 1
"""Bump when what is cached, or how it is computed, changes."""
KEEP = 8
"""Entries kept per run (a few regrade, judge and price views of one run)."""


class Aggregates(BaseModel):
    """A run's figures over its effective verdicts: everything a table reads."""

    model_config = ConfigDict(ser_json_inf_nan="constants")

    summary: Summary
    spend: dict[str, ConfigSpend]
    spreads: dict[str, dict[str, float]]
    """config id -> task id -> sd of per-repeat success."""


def cache_key(
    fingerprint: str, regrade: str | None, judge: str | None, prices: PriceTable | None
) -> str:
    """The digest of everything the figures depend on."""
    parts = [
        CACHE_VERSION,
        ROW_VERSION,
        SUMMARY_VERSION,
        fingerprint,
        regrade,
        judge,
        None if prices is None else prices.model_dump_json(),
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _connect(run: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(run / CACHE_NAME, timeout=2.0)
    connection.execute(
        "CREATE TABLE IF NOT EXISTS aggregates "
        "(key TEXT PRIMARY KEY, value BLOB NOT NULL, used REAL NOT NULL)"
    )
    return connection


def load_cached(run: Path, key: str) -> Aggregates | None:
    """The figures cached under ``key``; None when there are none (or the cache is
    unreadable: it is only a cache)."""
    if not (run / CACHE_NAME).is_file():
        return None
    try:
        with closing(_connect(run)) as connection, connection:
            found = connection.execute(
                "SELECT value FROM aggregates WHERE key = ?", (key,)
            ).fetchone()
            if found is None:
                return None
            connection.execute(
                "UPDATE aggregates SET used = julianday('now') WHERE key = ?", (key,)
            )
        return Aggregates.model_validate_json(zlib.decompress(found[0]))
    except (sqlite3.Error, OSError, zlib.error, ValidationError):
        return None


def store(run: Path, key: str, figures: Aggregates) -> None:
    """Keep ``figures`` under ``key``, and the `KEEP` most recently used entries."""
    blob = zlib.compress(figures.model_dump_json().encode(), 6)
    try:
        with closing(_connect(run)) as connection, connection:
            connection.execute(
                "INSERT OR REPLACE INTO aggregates VALUES (?, ?, julianday('now'))", (key, blob)
            )
            connection.execute(
                "DELETE FROM aggregates WHERE key NOT IN "
                "(SELECT key FROM aggregates ORDER BY used DESC LIMIT ?)",
                (KEEP,),
            )
    except (sqlite3.Error, OSError):
        return
