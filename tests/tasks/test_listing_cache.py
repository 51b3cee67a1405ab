"""`list-tasks` keeps a folder's listing in the user cache: same output, never stale."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import localagentbench.tasks
from localagentbench.tasks import _listing

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def suite(make_task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two tasks, a private user cache, and no racy-stamp wait (the files are brand new)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(_listing, "RACY_S", 0.0)
    make_task("calc-add")
    make_task("calc-sub")
    return tmp_path / "suite"


def _next_tick() -> None:
    """Let the kernel's coarse file clock move on: with RACY_S at 0 an edit in the tick the
    listing was stamped in could keep the file's times (the case RACY_S guards against)."""
    time.sleep(0.05)


def _no_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any task loading fail, so a listing that still prints came from the cache."""

    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("the suite was loaded")

    monkeypatch.setattr(localagentbench.tasks, "load_suite", refuse)


def test_a_cached_listing_equals_an_uncached_one(suite: Path, cli: Cli, monkeypatch) -> None:
    uncached = cli("list-tasks", "--tasks", str(suite), "--json")
    piped = cli("list-tasks", "--tasks", str(suite))
    assert _listing.listing_file(suite).is_file()
    _no_loading(monkeypatch)
    assert cli("list-tasks", "--tasks", str(suite), "--json") == uncached
    assert cli("list-tasks", "--tasks", str(suite)) == piped
    assert [row["id"] for row in json.loads(uncached[1])] == ["calc-add", "calc-sub"]


def test_editing_a_task_file_invalidates_the_listing(suite: Path, cli: Cli) -> None:
    cli("list-tasks", "--tasks", str(suite), "--json")
    _next_tick()
    task_file = suite / "calc-sub" / "task.yaml"
    text = task_file.read_text()
    assert "difficulty: easy" in text
    task_file.write_text(text.replace("difficulty: easy", "difficulty: hard"))  # same size
    code, out, _ = cli("list-tasks", "--tasks", str(suite), "--json")
    assert code == 0
    assert {row["id"]: row["difficulty"] for row in json.loads(out)} == {
        "calc-add": "easy",
        "calc-sub": "hard",
    }


def test_removing_material_invalidates_the_listing(suite: Path, cli: Cli) -> None:
    """A listing also depends on the material the loader checks (a held-out folder gone
    makes the task unlisted), not only on the task files."""
    cli("list-tasks", "--tasks", str(suite), "--json")
    _next_tick()
    shutil.rmtree(suite / "calc-sub" / "heldout")
    code, out, err = cli("list-tasks", "--tasks", str(suite), "--json")
    assert code == 1
    assert [row["id"] for row in json.loads(out)] == ["calc-add"]
    assert "not listed: " in err


def test_a_damaged_cache_is_ignored(suite: Path, cli: Cli) -> None:
    uncached = cli("list-tasks", "--tasks", str(suite), "--json")
    cache = _listing.listing_file(suite)
    for damage in ("{not json", json.dumps({"stamp": "x", "rows": []}), "[]"):
        cache.write_text(damage)
        assert cli("list-tasks", "--tasks", str(suite), "--json") == uncached
    stamp = _listing.listing_stamp(suite)
    assert stamp is not None
    cache.write_text(json.dumps({"stamp": stamp[0], "rows": "not rows"}))
    assert cli("list-tasks", "--tasks", str(suite), "--json") == uncached
    assert _listing.read_listing(suite, stamp[0]) == json.loads(uncached[1])  # rewritten


def test_a_folder_changed_just_now_is_not_kept(suite: Path, monkeypatch) -> None:
    """File times are coarse: an edit in the same tick as the stamp could keep them, so a
    folder changed within RACY_S seconds is listed afresh next time."""
    monkeypatch.setattr(_listing, "RACY_S", 3600.0)
    stamp = _listing.listing_stamp(suite)
    assert stamp is not None
    assert not _listing.save_listing(suite, stamp, [{"id": "calc-add"}])
    assert not _listing.listing_file(suite).exists()


def test_a_selection_and_a_folder_with_problems_are_never_cached(suite: Path, cli: Cli) -> None:
    cli("list-tasks", "--tasks", str(suite), "--task", "calc-add", "--json")
    assert not _listing.listing_file(suite).exists()
    (suite / "broken.yaml").write_text("id: [\n")
    code, _, _ = cli("list-tasks", "--tasks", str(suite), "--json")
    assert code == 1
    assert not _listing.listing_file(suite).exists()
