"""Held-out checks for `tasktrack list --format json`."""

import io
import json

import pytest

from tasktrack.cli import main


def run(tmp_path, *argv):
    out = io.StringIO()
    code = main(["--file", str(tmp_path / "tasks.json"), *argv], out=out)
    return code, out.getvalue()


def seed(tmp_path):
    run(tmp_path, "add", "Write release notes", "--priority", "high", "--tag", "docs")
    run(tmp_path, "add", "Fix flaky test", "--tag", "ci", "--tag", "backend")
    run(tmp_path, "add", "Café menu ✓", "--priority", "low")
    run(tmp_path, "done", "2")


def test_json_lists_open_tasks_in_display_order(tmp_path):
    seed(tmp_path)
    code, text = run(tmp_path, "list", "--format", "json")
    assert code == 0
    assert json.loads(text) == [
        {"id": 1, "title": "Write release notes", "done": False, "priority": "high", "tags": ["docs"]},
        {"id": 3, "title": "Café menu ✓", "done": False, "priority": "low", "tags": []},
    ]


def test_json_respects_all_and_tag(tmp_path):
    seed(tmp_path)
    items = json.loads(run(tmp_path, "list", "--all", "--format", "json")[1])
    assert [t["id"] for t in items] == [1, 2, 3]
    assert items[1]["done"] is True
    assert items[1]["tags"] == ["backend", "ci"]
    tagged = json.loads(run(tmp_path, "list", "--all", "--tag", "ci", "--format", "json")[1])
    assert [t["id"] for t in tagged] == [2]
    assert json.loads(run(tmp_path, "list", "--tag", "ci", "--format", "json")[1]) == []


def test_json_with_no_tasks_is_empty_array(tmp_path):
    code, text = run(tmp_path, "list", "--format", "json")
    assert code == 0
    assert json.loads(text) == []


def test_json_output_is_one_document(tmp_path):
    seed(tmp_path)
    text = run(tmp_path, "list", "--format", "json")[1]
    # the whole of stdout must be a single JSON document, nothing else printed
    assert isinstance(json.loads(text), list)
    assert text.endswith("\n")


def test_text_stays_default(tmp_path):
    seed(tmp_path)
    explicit = run(tmp_path, "list", "--format", "text")[1]
    assert explicit == run(tmp_path, "list")[1]
    assert explicit == "#1 [ ] (high) Write release notes  +docs\n#3 [ ] (low) Café menu ✓\n"


def test_unknown_format_is_usage_error(tmp_path):
    with pytest.raises(SystemExit) as info:
        run(tmp_path, "list", "--format", "yaml")
    assert info.value.code == 2
