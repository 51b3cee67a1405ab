"""``DIR/trial-index.jsonl``: one slim row per written record, so tables read one file.

Each line holds a trial id, the ``key`` of its record.json when the row was made (inode,
size, modification and change times) and the row (`trial_row` of that record). A line is
only believed while the record it was made from is still the one on disk: a reader stats
every record.json and takes a trial's row from the index when the last line for it has the
same key, else it reads that record.json and makes the row itself. So the index can be
missing (a run from before it existed), partial (a record written without its row: killed
between the two writes), stale (a record rewritten, a run folder copied: new inodes) or end
in a half line (kill -9 mid-append): those trials are read from their records, never
given a different number. Rows of another `ROW_VERSION` are ignored the same way.

Writers append (one O_APPEND write per batch, `_io.append_bytes`); a record about to be
replaced first gets a line with no key, so its old row is void even before the new record
is in place. Readers append the rows they had to make, and rewrite the file when most of
its lines are dead, so the next read is fast again.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from localagentbench._io import append_bytes, atomic_write_bytes
from localagentbench.records._rows import ROW_VERSION, TrialRow

__all__ = ["INDEX_NAME", "IndexRead", "RecordKey", "TrialIndex", "record_key"]

INDEX_NAME = "trial-index.jsonl"

RecordKey = tuple[int, int, int, int]
"""(inode, size, mtime_ns, ctime_ns) of a record.json: it changes when the file is replaced."""


def record_key(stat: os.stat_result) -> RecordKey:
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


_Line = tuple[int, str, RecordKey | None, TrialRow | None]
"""``[row version, trial id, record key, row]``; a None key (and row) voids the trial's rows
(its record is being replaced). An array, not an object: it validates twice as fast."""

_LINE: TypeAdapter[_Line] = TypeAdapter(_Line)


@dataclass
class IndexRead:
    """The index as read: the last usable line per trial, and how many lines it had."""

    rows: dict[str, tuple[RecordKey, TrialRow]]
    lines: int


def _encode(trial_id: str, key: RecordKey | None, row: TrialRow | None) -> bytes:
    """One line; the row without its default values (shorter, and read back the same)."""
    return _LINE.dump_json((ROW_VERSION, trial_id, key, row), exclude_defaults=True) + b"\n"


class TrialIndex:
    """The index file of one run directory."""

    def __init__(self, run_path: Path) -> None:
        self.path = run_path / INDEX_NAME

    def add(self, rows: Iterable[tuple[RecordKey, TrialRow]]) -> None:
        """Append a row per (record key, row), all in one write."""
        data = b"".join(_encode(row.trial_id, key, row) for key, row in rows)
        if data:
            append_bytes(self.path, data)

    def forget(self, trial_id: str) -> None:
        """Void the trial's rows: its record is about to be replaced."""
        append_bytes(self.path, _encode(trial_id, None, None))

    def read(self) -> IndexRead:
        """Each trial's last line, when it is whole, of this row version and has a key."""
        try:
            data = self.path.read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return IndexRead({}, 0)
        rows: dict[str, tuple[RecordKey, TrialRow]] = {}
        lines = data.split(b"\n")
        for text in lines:
            try:
                version, trial_id, key, row = _LINE.validate_json(text)
            except ValidationError:
                continue  # a half line (killed mid-append) or a line of another format
            if version != ROW_VERSION or key is None or row is None:
                rows.pop(trial_id, None)
            else:
                rows[trial_id] = (key, row)
        return IndexRead(rows, sum(1 for text in lines if text))

    def rewrite(self, rows: Iterable[tuple[RecordKey, TrialRow]]) -> None:
        """Replace the file with these rows only (atomic; a row appended meanwhile is lost,
        and its trial is then read from its record)."""
        atomic_write_bytes(
            self.path,
            b"".join(_encode(row.trial_id, key, row) for key, row in rows),
        )

    def keep(
        self,
        read: IndexRead,
        live: list[tuple[RecordKey, TrialRow]],
        fresh: list[tuple[RecordKey, TrialRow]],
    ) -> None:
        """After a read that made the ``fresh`` rows from records: append them, or rewrite
        the file with the ``live`` ones when at least a third of its lines would be dead.
        Best effort: a run folder that cannot be written is read from its records again
        next time."""
        dead = read.lines - (len(live) - len(fresh))
        with contextlib.suppress(OSError):
            if dead > 16 and 2 * dead >= len(live):
                self.rewrite(live)
            elif fresh:
                self.add(fresh)
