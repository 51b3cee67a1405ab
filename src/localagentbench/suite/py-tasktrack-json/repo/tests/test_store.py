import json

import pytest

from tasktrack.store import Store, StoreError


def test_roundtrip(tmp_path):
    path = tmp_path / "t.json"
    store = Store(path)
    store.add("  Buy milk ", tags=["home", "home", "errand"])
    store.save()
    again = Store(path)
    assert [(t.id, t.title, t.tags) for t in again.tasks] == [(1, "Buy milk", ["errand", "home"])]
    assert json.loads(path.read_text())["version"] == 1


def test_ids_keep_increasing(tmp_path):
    store = Store(tmp_path / "t.json")
    store.add("a")
    store.add("b")
    assert store.add("c").id == 3


def test_empty_title_rejected(tmp_path):
    with pytest.raises(StoreError):
        Store(tmp_path / "t.json").add("   ")


def test_corrupt_file(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("{not json")
    with pytest.raises(StoreError):
        Store(path)
