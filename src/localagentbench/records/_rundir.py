"""The run directory layout (SPEC section 11) and its atomic reads and writes."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import secrets
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from localagentbench._io import append_jsonl, atomic_write_text, no_space, shown_name
from localagentbench.errors import RunDirError
from localagentbench.records._index import INDEX_NAME, RecordKey, TrialIndex, record_key
from localagentbench.records._migrations import NewerVersionError, upgrade
from localagentbench.records._models import RECORD_VERSION, Incident, RunInfo, TrialRecord
from localagentbench.records._rows import ROW_VERSION, TrialRow, trial_row
from localagentbench.records._summary import Summary

__all__ = ["RunDir", "RunDirFull", "new_run_id", "utc_now"]


def _record_json(record: TrialRecord) -> str:
    """The record as JSON. A string holding a file name whose bytes are not UTF-8 (the
    agent chose it; Python carries such bytes as lone surrogates, which JSON refuses) is
    written escaped (`shown_name`) rather than losing the record."""
    try:
        return record.model_dump_json(indent=2)
    except PydanticSerializationError:
        data = _shown_strings(record.model_dump(mode="json"))
        return TrialRecord.model_validate(data).model_dump_json(indent=2)


def _shown_strings(value: object) -> object:
    if isinstance(value, str):
        return shown_name(value)
    if isinstance(value, dict):
        return {_shown_strings(k): _shown_strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown_strings(v) for v in value]
    return value


class RunDirFull(RunDirError):
    """A file of the run directory could not be written for lack of disk space or quota.

    The writers are atomic, so what was written before stays whole and the file that failed
    is absent (or its old version kept); the run stops and ``--resume`` continues it."""

    def __init__(self, path: Path, free_mb: float | None) -> None:
        self.path = path
        self.free_mb = free_mb
        room = "" if free_mb is None else f", {free_mb:.0f} MB free there"
        super().__init__(f"no space left on the disk holding {path} (writing it failed{room})")

    @classmethod
    def at(cls, path: Path) -> RunDirFull:
        """The error for ``path``, with the free space of its nearest existing folder."""
        for folder in (path, *path.parents):
            try:
                return cls(path, shutil.disk_usage(folder).free / 1e6)
            except OSError:
                continue
        return cls(path, None)


@contextlib.contextmanager
def _room(path: Path) -> Iterator[None]:
    """Turn a write of ``path`` refused for lack of space into `RunDirFull` (one line)."""
    try:
        yield
    except OSError as e:
        if no_space(e):
            raise RunDirFull.at(path) from e
        raise


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def new_run_id() -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


class RunDir:
    """``DIR/run.json``, ``summary.json``, ``incidents.jsonl``, ``trial-index.jsonl``,
    ``trials/<trial_id>/...``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._unlogged: list[Incident] = []
        """Incidents that found no room on the disk yet (`log_incident`)."""
        self._log_lock = threading.Lock()

    @property
    def run_json(self) -> Path:
        return self.path / "run.json"

    @property
    def summary_json(self) -> Path:
        return self.path / "summary.json"

    @property
    def incidents_jsonl(self) -> Path:
        return self.path / "incidents.jsonl"

    @property
    def trials(self) -> Path:
        return self.path / "trials"

    @property
    def pristine(self) -> Path:
        """Pristine archives of this run's task versions (never visible to agents)."""
        return self.path / "pristine"

    @property
    def forensics(self) -> Path:
        return self.path / "forensics"

    def trial(self, trial_id: str) -> Path:
        return self.trials / trial_id

    def record_path(self, trial_id: str) -> Path:
        return self.trial(trial_id) / "record.json"

    # run.json ---------------------------------------------------------------
    def write_info(self, info: RunInfo) -> None:
        with _room(self.run_json):
            atomic_write_text(self.run_json, info.model_dump_json(indent=2))

    def read_info(self) -> RunInfo:
        if not self.run_json.is_file():
            if not self.path.exists():
                raise RunDirError(f"{self.path}: the folder does not exist; give a run directory")
            if not self.path.is_dir():
                raise RunDirError(f"{self.path}: not a folder; give a run directory")
            raise RunDirError(f"{self.path}: no run.json here; is this a run directory?")
        try:
            data = upgrade("run", json.loads(self.run_json.read_text()), RECORD_VERSION)
            return RunInfo.model_validate(data)
        except NewerVersionError as e:
            raise RunDirError(f"{self.run_json}: {e}") from None
        except json.JSONDecodeError as e:
            raise RunDirError(f"{self.run_json}: unreadable: {e}") from e
        except ValidationError as e:
            raise RunDirError(f"{self.run_json}: unreadable: {e.errors()[0]['msg']}") from e

    # records ----------------------------------------------------------------
    def write_record(self, record: TrialRecord) -> None:
        """Atomically write a trial's record (it exists whole or not at all), then its row in
        the run's index (`records._index`; a replaced record's old row is voided first).
        The index is a cache: failing to append to it never fails the trial. No room for the
        record raises `RunDirFull`."""
        path = self.record_path(record.trial_id)
        index = TrialIndex(self.path)
        if path.exists():
            with contextlib.suppress(OSError):
                index.forget(record.trial_id)
        text = _record_json(record)
        with _room(path):
            atomic_write_text(path, text)
        # the row of the record as readers get it (the migration chain may fill fields in)
        stored = TrialRecord.model_validate_json(text)
        with contextlib.suppress(OSError):
            index.add([(record_key(path.stat()), trial_row(stored))])

    def read_record(self, trial_id: str) -> TrialRecord | None:
        found = self._read_record(self.record_path(trial_id))
        return None if found is None else found[0]

    def _read_record(self, path: Path) -> tuple[TrialRecord, RecordKey] | None:
        """The record at ``path`` and the key of the very file read; None when absent."""
        try:
            with path.open("rb") as f:
                key = record_key(os.fstat(f.fileno()))
                text = f.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None
        try:  # the common case in one pass (the model's own validator migrates)
            return TrialRecord.model_validate_json(text), key
        except ValidationError:
            pass  # read again below for the error's one line
        try:
            data = upgrade("record", json.loads(text), RECORD_VERSION)
            return TrialRecord.model_validate(data), key
        except NewerVersionError as e:
            raise RunDirError(f"{path}: {e}") from None
        except json.JSONDecodeError as e:
            raise RunDirError(f"{path}: invalid record: {e}") from e
        except ValidationError as e:
            raise RunDirError(f"{path}: invalid record: {e.errors()[0]['msg']}") from e

    def records(self) -> list[TrialRecord]:
        """Every finished trial's record, sorted by trial id."""
        if not self.trials.is_dir():
            return []
        found = []
        for child in sorted(self.trials.iterdir()):
            record = self.read_record(child.name) if child.is_dir() else None
            if record is not None:
                found.append(record)
        return found

    def rows(self) -> list[TrialRow]:
        """Every finished trial's row (`trial_row` of its record), sorted by trial id: the
        same list as ``[trial_row(r) for r in self.records()]``, read from the index where
        it is current and from record.json where it is not (`records._index`)."""
        if not self.trials.is_dir():
            return []
        index = TrialIndex(self.path)
        read = index.read()
        live: list[tuple[RecordKey, TrialRow]] = []
        fresh: list[tuple[RecordKey, TrialRow]] = []
        base = str(self.trials)
        for name in sorted(os.listdir(base)):
            try:
                key = record_key(os.stat(os.path.join(base, name, "record.json")))
            except (FileNotFoundError, NotADirectoryError):
                continue
            known = read.rows.get(name)
            if known is not None and known[0] == key:
                live.append(known)
                continue
            found = self._read_record(self.record_path(name))
            if found is not None:
                record, key = found
                live.append((key, trial_row(record)))
                fresh.append(live[-1])
        index.keep(read, live, fresh)
        return [row for _, row in live]

    def fingerprint(self) -> tuple[str, int]:
        """(digest, trial folders): a digest of the trial folders' names and the trial
        index's key (inode, size, modification and change times), opening no record.

        Every write through `write_record` appends to the index (a replaced record first
        voids its row there), `rows()` appends what it had to read from records, and a
        copied folder has a new inode, so the digest changes whenever the rows would; a
        record.json edited in place by hand, past the harness, is not seen until the next
        write. Figures cached under it (`results._cache`) are the rows' figures."""
        names = sorted(os.listdir(self.trials)) if self.trials.is_dir() else []
        try:
            index: RecordKey | None = record_key(os.stat(self.path / INDEX_NAME))
        except FileNotFoundError:
            index = None
        state = json.dumps([ROW_VERSION, index, names]).encode()
        return hashlib.sha256(state).hexdigest(), len(names)

    def discard_partial(self, trial_id: str) -> Path | None:
        """Move a trial folder without a record (an interrupted trial) aside; return where."""
        folder = self.trial(trial_id)
        if not folder.exists() or self.record_path(trial_id).exists():
            return None
        dest = self.path / "partial" / f"{trial_id}-{secrets.token_hex(3)}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), dest)
        return dest

    # incidents and summary -------------------------------------------------
    def log_incident(self, incident: Incident) -> None:
        """Append one incident. One that finds no room on the disk (a disk full for a moment,
        e.g. by an agent over its budget) is kept and appended, in order, with the next one
        that does, or by `flush_incidents`: the run goes on, and loses none."""
        with self._log_lock:
            self._unlogged.append(incident)
            with contextlib.suppress(RunDirFull):
                self._append_unlogged()

    def flush_incidents(self) -> None:
        """Append the incidents kept for lack of room; `RunDirFull` when there still is none."""
        with self._log_lock:
            self._append_unlogged()

    def _append_unlogged(self) -> None:
        while self._unlogged:
            try:
                with _room(self.incidents_jsonl):
                    item = json.loads(self._unlogged[0].model_dump_json())
                    append_jsonl(self.incidents_jsonl, item)
            except RunDirFull:
                raise
            except BaseException:
                self._unlogged.pop(0)  # any other failure is that incident's own: raise it
                raise
            self._unlogged.pop(0)

    def incidents(self) -> list[Incident]:
        if not self.incidents_jsonl.is_file():
            return []
        items = []
        for line in self.incidents_jsonl.read_text().splitlines():
            if line.strip():
                items.append(Incident.model_validate_json(line))
        return items

    def write_summary(self, summary: Summary) -> None:
        with _room(self.summary_json):
            atomic_write_text(self.summary_json, summary.model_dump_json(indent=2))
