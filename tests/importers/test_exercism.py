"""`import exercism` on small Exercism-shaped tracks built in tmp_path.

Each import proves its tasks by the calls `check` and `verify` make (through the real
pipeline, hence slow); the tests then read what was written, and run `check` on it once
more from the CLI as a user would.
"""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from tests.importers._track import (
    circular_buffer_track,
    go_track,
    javascript_track,
    python_track,
)

from localagentbench.importers import import_exercism


def _task(out, task_id):
    return yaml.safe_load((out / task_id / "task.yaml").read_text())


def _no_leftovers(out) -> None:
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_python_exercise_imported_proven_and_the_broken_one_not_written(tmp_path, cli) -> None:
    track = python_track(tmp_path / "python")
    out = tmp_path / "suite"
    result = import_exercism(track, "python", out)
    assert result.written == ["py-leap"]
    assert [(r.item, r.reason) for r in result.rejected] == [
        ("leap-broken", "example fails its tests")
    ]
    assert "test_year_divisible_by_100_not_divisible_by_400" in result.rejected[0].detail
    assert sorted(p.name for p in out.iterdir()) == ["py-leap"]  # nothing of leap-broken
    task = _task(out, "py-leap")
    assert sorted(task["fail_to_pass"]) == sorted(
        f"leap_test.py::LeapTest::{name}"
        for name in (
            "test_year_not_divisible_by_4_in_common_year",
            "test_year_divisible_by_4_not_divisible_by_100_in_leap_year",
            "test_year_divisible_by_100_not_divisible_by_400_in_common_year",
            "test_year_divisible_by_400_is_leap_year",
            "test_negative_year_is_refused",
        )
    )
    assert "pass_to_pass" not in task  # the stub passes none of them
    assert task["difficulty"] == "easy"
    assert task["provenance"]["license"] == "MIT License"
    assert task["provenance"]["item"] == "exercises/practice/leap"
    assert task["provenance"]["item_version"].startswith("sha256:")
    # the message the tests assert and the instructions leave out is in the prompt
    assert "`ValueError`: `year must be positive`" in task["prompt"]
    assert "error message" in task["notes"]
    visible = (out / "py-leap" / "repo" / "leap_test.py").read_text()
    assert visible.count("def test_") == 2  # the first third of 5, rounded up
    assert (out / "py-leap" / "heldout" / "leap_test.py").read_text().count("def test_") == 5
    assert (out / "py-leap" / "repo" / "leap.py").read_text() == (
        "def leap_year(year):\n    pass\n"
    )
    _no_leftovers(out)
    code, stdout, stderr = cli("check", "--tasks", str(out))
    assert code == 0, stderr


@pytest.mark.slow
def test_error_hints_name_the_exception_class_the_tests_check(tmp_path) -> None:
    """circular-buffer's tests catch the built-in ``BufferError`` and then demand the stub's
    ``BufferEmptyException``/``BufferFullException``: the prompt names those."""
    out = tmp_path / "suite"
    result = import_exercism(circular_buffer_track(tmp_path / "python"), "python", out)
    assert result.written == ["py-circular-buffer"], result.rejected
    prompt = _task(out, "py-circular-buffer")["prompt"]
    assert "- `BufferEmptyException`: `Circular buffer is empty`" in prompt
    assert "- `BufferFullException`: `Circular buffer is full`" in prompt
    assert "`BufferError`" not in prompt


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_exercise_converted_from_jest_and_proven(tmp_path, cli) -> None:
    out = tmp_path / "suite"
    result = import_exercism(javascript_track(tmp_path / "js"), "javascript", out)
    assert result.written == ["js-two-fer"], result.rejected
    task = _task(out, "js-two-fer")
    assert task["oracle"]["command"] == ["node", "--test", "two-fer.spec.js"]
    assert task["fail_to_pass"] == [  # each test with its describe path
        "twoFer() > no name given",
        "twoFer() > a name given",
        "twoFer() > another name given",
        "twoFer() > an empty name is refused",
    ]
    assert "`Error`: `name must not be empty`" in task["prompt"]
    repo = out / "js-two-fer" / "repo"
    assert json.loads((repo / "package.json").read_text())["type"] == "module"
    assert not (repo / "babel.config.js").exists()  # Jest's tooling stays behind
    assert "@jest/globals" not in (repo / "two-fer.spec.js").read_text()
    code, _, stderr = cli("check", "--tasks", str(out))
    assert code == 0, stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_go_exercise_imported_with_go_test_ids(tmp_path) -> None:
    out = tmp_path / "suite"
    result = import_exercism(go_track(tmp_path / "go"), "go", out)
    assert result.written == ["go-hamming"], result.rejected
    task = _task(out, "go-hamming")
    assert sorted(task["fail_to_pass"]) == [
        "TestDifferentStrands",
        "TestEmptyStrands",
        "TestUnequalLengths",
    ]
    assert task["difficulty"] == "medium"
    visible = (out / "go-hamming" / "repo" / "hamming_test.go").read_text()
    assert "TestEmptyStrands" in visible
    assert "TestUnequalLengths" not in visible


def test_exercises_that_cannot_become_tasks_are_reported_before_anything_runs(tmp_path) -> None:
    track = javascript_track(tmp_path / "js")
    spec = track / "exercises" / "practice" / "two-fer" / "two-fer.spec.js"
    spec.write_text(spec.read_text().replace("expect(twoFer())", "jest.fn(); expect(twoFer())"))
    out = tmp_path / "suite"
    result = import_exercism(track, "javascript", out)
    assert result.written == []
    assert [r.reason for r in result.rejected] == ["jest not convertible"]
    assert "jest.fn" in result.rejected[0].detail
    assert not out.exists() or not list(out.iterdir())


def test_bad_track_and_unknown_exercise_are_one_line_errors(tmp_path, cli) -> None:
    code, _, err = cli(
        "import", "exercism", str(tmp_path), "--track", "python", "--out", str(tmp_path / "o")
    )
    assert code == 2
    assert "no config.json; give the root of an Exercism track checkout" in err
    track = python_track(tmp_path / "python", broken=False)
    args = ["import", "exercism", str(track), "--out", str(tmp_path / "o")]
    code, _, err = cli(*args, "--track", "cobol")
    assert code == 2
    assert "valid tracks are python, javascript, go" in err
    code, _, err = cli(*args, "--track", "python", "--exercise", "leapp")
    assert code == 2
    assert "--exercise leapp: not a practice exercise" in err
