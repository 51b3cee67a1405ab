"""Grading never trusts the workspace: symlinks, planted files, printed PASS lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labtest import script
from localagentbench.grading import claims_done, inject, private_copy
from localagentbench.runner import RunOptions, configuration_from_cli, execute


def test_inject_replaces_a_symlinked_folder_instead_of_writing_through_it(tmp_path: Path):
    """Threat: the agent makes tests/ a symlink so the grader writes held-out files elsewhere."""
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    (work / "elsewhere").mkdir(parents=True)
    (work / "tests").symlink_to("elsewhere")  # inside the tree: kept as a link
    (work / "leak").symlink_to(outside)  # out of the tree: left out of the copy
    material = tmp_path / "heldout"
    (material / "tests").mkdir(parents=True)
    (material / "tests" / "test_hidden.py").write_text("HIDDEN")
    dest = tmp_path / "copy"
    assert [line.split(":")[0] for line in private_copy(work, dest)] == ["leak"]
    assert (dest / "tests").is_symlink()  # copied as a link, not followed
    assert not os.path.lexists(dest / "leak")
    injected = inject(material, dest)
    assert injected == ["tests/test_hidden.py"]
    assert not (dest / "tests").is_symlink()
    assert (dest / "tests" / "test_hidden.py").read_text() == "HIDDEN"
    assert list((dest / "elsewhere").iterdir()) == []
    assert list(outside.iterdir()) == []


def test_inject_replaces_a_symlinked_file(tmp_path: Path):
    """Threat: a planted symlink at the held-out file's path redirects the write."""
    target = tmp_path / "victim.txt"
    target.write_text("keep")
    dest = tmp_path / "copy"
    (dest / "tests").mkdir(parents=True)
    (dest / "tests" / "test_hidden.py").symlink_to(target)
    material = tmp_path / "heldout"
    (material / "tests").mkdir(parents=True)
    (material / "tests" / "test_hidden.py").write_text("HIDDEN")
    inject(material, dest)
    assert target.read_text() == "keep"
    assert not (dest / "tests" / "test_hidden.py").is_symlink()


def test_private_copy_does_not_follow_links_out_of_the_workspace(tmp_path: Path):
    """Threat: a link to a folder outside makes the grader copy (and grade) what it points at."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "big.bin").write_bytes(b"x" * 10)
    work = tmp_path / "work"
    work.mkdir()
    os.symlink(secret, work / "escape")
    skipped = private_copy(work, tmp_path / "copy")
    assert not os.path.lexists(tmp_path / "copy" / "escape")
    assert skipped[0].startswith("escape: ")


def test_printed_pass_lines_do_not_beat_exit_codes(make_task, tmp_path: Path):
    """Threat: the agent makes the test command print a passing summary and exit non-zero.
    (The visible oracle of a task with held-out tests runs the agent's own test set-up; where
    it is the graded run, the agent's conftest is not even loaded: see test_runner_tampering.)"""
    make_task()
    agent = script(
        tmp_path / "spoof.sh",
        """\
        cat > tests/conftest.py <<'PY'
def pytest_sessionfinish(session, exitstatus):
    print("\\n==== 999 passed in 0.01s ====")
PY
        echo "Done, all tests pass."
    """,
    )
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "r")
    )
    [record] = result.run_dir.records()
    log = (result.run_dir.trial(record.trial_id) / "grading" / "visible-0.log").read_text()
    assert "999 passed" in log
    assert record.visible.passed is False
    assert record.visible.exit_codes == [1]
    assert record.success is False


def test_heldout_tests_are_not_in_the_agent_workspace(make_task, tmp_path: Path):
    make_task()
    agent = script(
        tmp_path / "look.sh",
        """\
        find . -name 'test_heldout*' | wc -l
    """,
    )
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "r")
    )
    [record] = result.run_dir.records()
    assert record.final_answer == "0"


@pytest.mark.parametrize(
    ("answer", "claimed"),
    [
        ("Done: fixed the off-by-one.", True),
        ("All tests pass now.", True),
        ("I implemented the feature.", True),
        ("I could not fix it; the tests still fail.", False),
        ("Not done yet, need more time.", False),
        ("Here is the file content.", False),
        (None, False),
        ("", False),
    ],
)
def test_completion_claims(answer, claimed):
    assert claims_done(answer) is claimed
