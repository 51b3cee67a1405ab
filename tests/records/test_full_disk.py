"""Writes of the run directory when its disk is full (issue 34, item 7): one line, nothing
half-written, every finished record intact."""

from __future__ import annotations

import errno
import os

import pytest

from localagentbench import _io
from localagentbench.records import Incident, RunDir, RunDirFull, RunInfo, utc_now


def _enospc(*_args: object, **_kw: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_an_atomic_write_refused_for_space_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "record.json"
    target.write_text("old, whole")
    monkeypatch.setattr(_io.os, "fsync", _enospc)
    with pytest.raises(OSError, match="No space left") as caught:
        _io.atomic_write_text(target, "new")
    assert _io.no_space(caught.value)
    assert target.read_text() == "old, whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json"]


def test_an_append_cut_short_by_a_full_disk_leaves_no_half_line(tmp_path, monkeypatch):
    log = tmp_path / "incidents.jsonl"
    _io.append_jsonl(log, {"n": 1})
    real_write = os.write
    calls = {"n": 0}

    def half_then_full(fd: int, data: bytes | memoryview) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_io.os, "write", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        _io.append_jsonl(log, {"n": 2, "pad": "x" * 100})
    monkeypatch.undo()
    assert log.read_text() == '{"n": 1}\n'


def test_an_incident_that_finds_no_room_is_kept_and_appended_later_in_order(tmp_path, monkeypatch):
    """A disk full for a moment (an agent over its budget) loses no incident and stops
    nothing; one still full when the run ends says so in one line."""
    run_dir = RunDir(tmp_path / "run")
    first, held, later = (
        Incident(time=utc_now(), kind="rerun", detail=detail) for detail in ("1", "2", "3")
    )
    run_dir.log_incident(first)
    monkeypatch.setattr(_io.os, "fsync", _enospc)
    run_dir.log_incident(held)  # no room: kept, nothing raised
    assert [i.detail for i in run_dir.incidents()] == ["1"]  # the refused line taken back
    with pytest.raises(RunDirFull, match=r"no space left on the disk holding .*incidents\.jsonl"):
        run_dir.flush_incidents()
    monkeypatch.undo()
    run_dir.log_incident(later)
    assert [i.detail for i in run_dir.incidents()] == ["1", "2", "3"]
    run_dir.flush_incidents()  # nothing left to append


def test_a_record_that_finds_no_room_is_one_line_and_leaves_the_old_one_whole(
    tmp_path, monkeypatch
):
    run_dir = RunDir(tmp_path / "run")
    run_dir.write_info(
        RunInfo(
            run_id="r",
            created_at=utc_now(),
            harness={},
            host={},
            tasks_dir=str(tmp_path),
            tasks=[],
            configurations=[],
            repeats=1,
            concurrency=1,
            isolation="none",
        )
    )
    before = run_dir.run_json.read_text()
    monkeypatch.setattr(_io.os, "fsync", _enospc)
    with pytest.raises(RunDirFull, match=r"run\.json \(writing it failed, \d+ MB free there\)"):
        run_dir.write_info(run_dir.read_info().model_copy(update={"repeats": 2}))
    assert run_dir.run_json.read_text() == before
    assert sorted(p.name for p in run_dir.path.iterdir()) == ["run.json"]
