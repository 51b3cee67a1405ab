"""Issue 34, items 4 and 9: what an agent leaves in its workspace never turns its failure into
a harness fault, a crash, a hang or a lost record.

After the agent ends, the harness reads its workspace (the disk budget's walk, the patch,
the tamper report), rebuilds the graded tree from the patch, copies it, injects the
held-out tests, lends it to the jail and writes the record. Each attack here is a `command`
agent, run through the real pipeline under bwrap and under landlock and then regraded from
the run folder alone, that aims its files at one of those steps: special files, names JSON
and UTF-8 cannot carry, permissions taken from the harness's own uid, paths too deep for the
graded tree, a daemon left writing. Odd files that are harmless are graded as written (the
honest fix beside them passes); files a harness step cannot take are the agent's scored
failure with a named reason. Either way the record is written, the trial's folders are
removed, and the regrade gives the same verdict. `tests/adversarial/test_as_user.py` runs
this file again with the harness as an ordinary user, where the agent's uid is the
harness's own.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from labtest import processes_with, script
from localagentbench.agents._protocol import ANSWER_CAP
from localagentbench.records import RunDir, TrialRecord
from localagentbench.runner import RunOptions, configuration_from_cli, execute, regrade_run
from localagentbench.sandbox import SandboxUnavailableError, select

FIX = "printf 'def add(a, b):\\n    return a + b\\n' > calc.py"
"""The honest fix of the calc-add task, as a shell line."""


@pytest.fixture(params=["bwrap", "landlock"])
def jail(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The sandbox the trial and its regrade run in (see `test_patch_integrity.jail`)."""
    name: str = request.param
    try:
        select(name)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))
    python = Path(sys.executable).resolve()
    if name == "landlock" and any(not d.stat().st_mode & 0o001 for d in python.parents):
        monkeypatch.setattr(sys, "executable", str(request.getfixturevalue("open_python")))
    return name


class Attack:
    def __init__(self, record: TrialRecord, run: Path, regraded: TrialRecord) -> None:
        self.record = record
        self.run = run
        self.regraded = regraded

    @property
    def folder(self) -> Path:
        return RunDir(self.run).trial(self.record.trial_id)

    @property
    def patch(self) -> bytes:
        return (self.folder / "patch.diff").read_bytes()

    def note(self, name: str) -> str:
        path = self.folder / name
        return path.read_text() if path.is_file() else ""


@pytest.fixture
def attack(make_task, tmp_path: Path, jail: str):
    """Run a shell body as the agent on a fresh calc-add task in ``jail``, then regrade.
    The trials' folders go under a root of the test's own, which must be empty afterwards."""

    def run(body: str, **task_fields: Any) -> Attack:
        task = make_task(**task_fields)
        agent = script(tmp_path / "attack.sh", body)
        config = configuration_from_cli("command", None, agent_cmd=str(agent))
        out, scratch = tmp_path / "run", tmp_path / "scratch"
        scratch.mkdir()
        options = RunOptions(
            tasks_dir=task.parent,
            configurations=[config],
            out=out,
            sandbox=jail,
            workdir_root=scratch,
        )
        [record] = execute(options).run_dir.records()
        result = regrade_run(out, sandbox=select(jail))
        assert result.regraded == 1
        [regraded] = result.records
        assert list(scratch.iterdir()) == [], "a trial's folders outlived it"
        return Attack(record, out, regraded)

    return run


def assert_graded_alike(done: Attack) -> None:
    """Scored (never infra_error), and the regrade says what the run said."""
    record, regraded = done.record, done.regraded
    assert record.status != "infra_error", record.error
    assert regraded.status == record.status, regraded.error
    for field in ("success", "correctness", "overfit", "claimed_done", "false_success", "error"):
        assert getattr(regraded, field) == getattr(record, field), field


def test_names_json_and_utf8_cannot_carry_are_recorded_and_graded(attack):
    """Threat: a file name whose bytes are not UTF-8. The tamper report named it, and the
    record could not be written (the run died in write_record: no record, no later trial);
    an absolute link so named made grading's not-transferred list fail to be written (an
    unscored infra_error, in the regrade too). Beside them, names git and a diff must quote
    or could read as options or diff syntax. The honest fix among them passes."""
    done = attack(f"""\
        {FIX}
        printf '{{}}' > "$(printf 'tsconfig\\377.json')"
        mkdir "$(printf 'dir\\376')" && printf x > "$(printf 'dir\\376/f')"
        ln -s /etc "$(printf 'link\\377')"
        printf x > "$(printf 'new\\nline.txt')"; printf x > "$(printf 'a\\tb')"
        printf x > 'back\\slash'; printf x > ./-rf; printf x > ./--output=x
        printf x > 'trail '; printf x > ' lead'; printf x > 'quo"te'; printf x > '[br]*'
        printf x > Calc.py; mkdir 'a b' && printf x > 'a b/c'
        printf 'diff --git a/x b/x\\n--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n' > '+++ b'
        printf 'no newline' > eof; printf 'crlf\\r\\n' > crlf.txt
        printf '[submodule "s"]\\n\\tpath = s\\n\\turl = /etc\\n' > .gitmodules
        printf x > "$(printf '%0250d' 0)"
        echo "Done."
    """)
    assert_graded_alike(done)
    assert done.record.status == "completed"
    assert done.record.success is True
    assert done.record.tamper is not None
    assert [c.path for c in done.record.tamper.changes] == ["tsconfig\\xff.json"]
    assert b"dir\\376/f" in done.patch  # git's quoting of the byte 0xfe
    assert b"new file mode 120000" in done.patch
    not_transferred = done.record.not_transferred
    assert any(line.startswith("link\\xff: ") for line in not_transferred), not_transferred
    assert "link\\xff" in done.note("grading/not-transferred.txt")


def test_permissions_the_agent_took_are_given_back_and_graded(attack):
    """Threat, with the harness as an ordinary user (agent and harness share a uid): a
    folder without search permission made the tamper report fail (infra_error, rerun, the
    rerun alike), and folders without write permission were never removed. As root the same
    files are graded as written. Here, beside the honest fix: files and folders of mode 000,
    a folder readable but not searchable, a read-only folder, an execute-only file, the
    visible test made unreadable, special mode bits, a closed folder in HOME, and the
    workspace itself closed last."""
    done = attack(f"""\
        {FIX}
        printf x > noread; chmod 000 noread
        mkdir -p nox/in && printf x > nox/in/f && chmod 600 nox
        mkdir -p closed/in && printf x > closed/in/f && chmod 000 closed
        mkdir ro && printf x > ro/f && chmod 555 ro
        printf '#!/bin/sh\\n' > xonly; chmod 100 xonly
        chmod 000 tests/test_calc.py
        printf x > suid; chmod 4755 suid; printf x > sgid; chmod 2755 sgid
        mkdir sticky && printf x > sticky/f && chmod 1777 sticky
        mkdir -p "$HOME/deep/er" && printf x > "$HOME/deep/er/f" && chmod 000 "$HOME/deep"
        echo "Done."
        chmod 000 .
    """)
    assert_graded_alike(done)
    assert done.record.status == "completed"
    assert done.record.success is True
    for path in (b"b/noread", b"b/nox/in/f", b"b/closed/in/f", b"b/ro/f", b"b/sticky/f"):
        assert path in done.patch
    assert b"new file mode 100755" in done.patch  # xonly, suid, sgid: the owner's x bit


def test_folders_around_the_workspace_closed_by_the_agents_uid_are_given_back(attack):
    """Threat, with the harness as an ordinary user: file modes are governed neither by
    landlock nor by bwrap's bind mounts, and the agent's uid is the harness's. ``chmod 000``
    on its HOME (under both sandboxes) failed the reading of its answer; under landlock, on
    the trial's folder, the run's scratch root and the harness's private git copy beside
    the workspace, it failed the jail's clean-up and the patch: an infra_error each time,
    its rerun alike. When the jail ends the folders above its trees get their modes back
    and the trees, like the trial's own folders before capture, are opened to their owner.
    (As root the agent's uid owns none of them: the same script is graded alike.)"""
    done = attack(f"""\
        {FIX}
        echo "Done."
        chmod 000 ../git/info/attributes ../git/objects/pack/* ../git 2>/dev/null
        chmod 000 "$HOME" ../.. .. 2>/dev/null
        true
    """)
    assert_graded_alike(done)
    assert done.record.status == "completed"
    assert done.record.success is True


def test_special_files_links_and_squatted_harness_paths_are_graded(attack):
    """Threat: files a copy or a walk could block on or follow (fifos, a socket, link loops,
    hard links), some named where the harness reads or writes: a fifo as the visible test
    folder's conftest, a read-only folder where a held-out test is injected, a folder where
    a runner configuration is restored, a link there. None may hang, crash or change the
    held-out run; the honest fix beside them passes."""
    done = attack(f"""\
        {FIX}
        mkfifo fifo tests/conftest.py
        python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('sock')" || true
        ln -s loop1 loop2; ln -s loop2 loop1; ln -s . self; ln -s chain2 chain1
        ln -s calc.py chain2; ln calc.py hard1; ln calc.py hard2
        mkdir -p tests/test_heldout_calc.py/sub && printf x > tests/test_heldout_calc.py/sub/f
        chmod 555 tests/test_heldout_calc.py
        mkdir -p conftest.py/x && ln -s tests setup.cfg
        echo "Done."
    """)
    assert_graded_alike(done)
    assert done.record.status == "completed"
    assert done.record.success is True
    assert done.record.heldout is not None
    assert done.record.heldout.passed
    skipped = done.note("patch-skipped.txt").splitlines()
    assert "fifo: not a file, folder or symlink" in skipped
    assert "tests/conftest.py: not a file, folder or symlink" in skipped
    assert b"b/hard2" in done.patch
    assert b"b/loop1" in done.patch


def test_a_path_too_deep_for_the_graded_tree_is_unrecordable(attack):
    """Threat: a path that just fits the system's limit under the workspace but not under
    the deeper folders the graded tree and its copies live in: the jail's hand-over of the
    graded tree failed (ENAMETOOLONG) and the trial was an infra_error, in the regrade too.
    It is the agent's scored failure now: the patch is not recorded."""
    done = attack(f"""\
        {FIX}
        base=$(pwd); want=$((4083 - ${{#base}})); d=$(printf '%0100d' 0); p=.
        while [ $(( ${{#p}} + 101 )) -le $want ]; do p="$p/$d"; done
        mkdir -p "$p" && cd "$p" && printf x > f0123456789
        echo "Done."
    """)
    assert_graded_alike(done)
    assert done.record.status == "completed"
    assert done.record.success is False
    assert done.record.correctness == 0.0
    assert (done.record.error or "").startswith("unrecordable_patch: the path ")
    assert done.record.false_success is True


def test_a_daemon_left_writing_is_gone_before_capture(attack):
    """Threat: a child that escaped the agent's process group and environment (setsid,
    env -i) keeps writing the workspace while the harness takes and grades the patch, so
    what is recorded is not what is graded. It is killed with the agent: its last write
    before that (a wrong calc.py) is what is recorded and graded, in the run and the regrade."""
    marker = "lab-daemon-3f1c"
    done = attack(f"""\
        {FIX}
        setsid env -i /bin/sh -c 'while :; do printf "def add(a, b):\\n    return 0\\n" \\
          > calc.py; echo {marker} >> grow.txt; sleep 0.05; done' </dev/null >/dev/null 2>&1 &
        sleep 0.5
        echo "Done."
    """)
    assert processes_with(marker) == []
    assert_graded_alike(done)
    assert done.record.success is False
    assert b"+    return 0" in done.patch


SPOIL_REPORT = """\
import atexit, sys


def _spoil():
    for arg in sys.argv:
        if arg.startswith("--junitxml="):
            with open(arg.split("=", 1)[1], "w") as f:
                f.write('<?xml version="1.0" encoding="bogus"?><testsuites/>')


atexit.register(_spoil)
"""
"""Appended to calc.py: as pytest's process exits, its JUnit report is rewritten."""


def test_a_report_rewritten_in_an_unknown_encoding_is_a_scored_failure(attack):
    """Threat: the code under test runs beside the runner and can rewrite the runner's
    per-test report as it exits. A JUnit file declaring an unknown encoding made the
    harness's parser raise LookupError: the trial became an unscored infra_error (its rerun
    too), which dropped the agent's failure from every denominator. An unreadable report is
    no report now: the right fix beside the rewrite fails, as a run cut short does."""
    done = attack(f"{FIX}\ncat >> calc.py <<'PY'\n{SPOIL_REPORT}PY\necho Done.\n")
    assert_graded_alike(done)
    assert done.record.status == "completed"
    assert done.record.success is False
    assert done.record.heldout is not None
    assert done.record.heldout.passed is False


@pytest.mark.parametrize(
    "plant",
    [
        'ln -sf /etc/passwd "$LAB_ANSWER_FILE"',
        'rm -f "$LAB_ANSWER_FILE"; mkfifo "$LAB_ANSWER_FILE"',
        'truncate -s 2G "$LAB_ANSWER_FILE"',
    ],
    ids=["link-to-host-file", "fifo", "sparse-2g"],
)
def test_the_answer_file_is_read_as_the_agent_left_it_and_no_further(attack, plant):
    """Threat: the command agent's answer file, in its HOME, is read by the harness after
    the jail ends, with the harness's rights. A link there made the harness copy a host
    file it can read (as root: any) into the record; a sparse file of gigabytes was read
    whole into the harness's memory (a crash or an infra_error, depending on the machine).
    It is read without following a link, only as a regular file, and only its end."""
    # a budget the sparse file fits, so that the answer is read (past it: cap_hit, not read)
    done = attack(
        f"""\
        {FIX}
        {plant}
        echo "stdout answer"
    """,
        resources={"disk_mb": 4000},
    )
    assert_graded_alike(done)
    assert done.record.status == "completed"
    assert done.record.success is True
    assert "root:" not in (done.record.final_answer or "")
    if "truncate" in plant:  # its end, the answer's cap at most, was read: not 2 GB
        assert done.record.final_answer is not None
        assert len(done.record.final_answer) <= ANSWER_CAP
    else:
        assert done.record.final_answer == "stdout answer"
