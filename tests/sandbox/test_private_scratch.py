"""Issue 34, item 5: a jail's scratch (/tmp, /var/tmp, /dev/shm) is its own, under bwrap and
landlock alike.

Threat: the agent's code, run by the held-out tests during grading, copies them into a
scratch folder shared with the host; the next trial's agent reads them there. bwrap mounts
a fresh tmpfs at each scratch folder per jail; landlock, which cannot mount, makes them
unreadable and unwritable and gives the jail a TMPDIR in its HOME, emptied when it ends.
Every test runs under each backend, skipped with the reason where one cannot run.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from localagentbench.sandbox import Sandbox, run_jailed
from localagentbench.sandbox._wrapped import empty_folder

from ._helpers import RunJailed, make_spec

SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
PYTHON = "/usr/bin/python3"
"""The in-jail Python of the IPC tests: the harness's own may be unreachable as nobody."""


@pytest.fixture
def token() -> Iterator[str]:
    """A name no other test uses; whatever a failing test leaked under it is removed."""
    name = f"lab-leak-{secrets.token_hex(6)}"
    yield name
    for folder in SCRATCH:
        Path(folder, name).unlink(missing_ok=True)


def _write_everywhere(token: str) -> str:
    """A shell script writing `token` into each scratch folder and TMPDIR, saying which
    writes the jail allowed."""
    lines = [
        f'if echo secret > {folder}/{token} 2>/dev/null; then echo "wrote {folder}"; fi'
        for folder in SCRATCH
    ]
    lines.append(f'echo secret > "${{TMPDIR:-/tmp}}/{token}" && echo "wrote TMPDIR"')
    return "\n".join(lines) + "\n"


def _look_everywhere(token: str) -> str:
    """A shell script printing what of `token` it can find in each scratch folder."""
    folders = " ".join([*SCRATCH, '"${TMPDIR:-/tmp}"'])
    return (
        f"for d in {folders}; do\n"
        f'  cat "$d/{token}" 2>/dev/null && echo "found in $d"\n'
        f'  ls "$d" 2>/dev/null | grep -q {token} && echo "listed in $d"\n'
        "done\ntrue\n"
    )


def test_scratch_writes_neither_reach_the_host_nor_the_next_jail(
    jail: Sandbox, trial: dict[str, Path], token: str
) -> None:
    """A jail writes a file into /tmp, /var/tmp, /dev/shm and TMPDIR; the host's folders
    never get it, a second jail of the same trial finds nothing, and the writes are counted."""
    spec = make_spec(trial)
    first = run_jailed(jail, ["/bin/sh", "-c", _write_everywhere(token)], spec, timeout_s=30)
    assert first.result.exit_code == 0, first.result.stderr
    wrote = first.result.stdout.splitlines()
    if jail.name == "bwrap":  # each write lands in the jail's own tmpfs (TMPDIR unset: /tmp)
        assert wrote == [f"wrote {folder}" for folder in SCRATCH] + ["wrote TMPDIR"]
        assert first.outside_writes == len(SCRATCH)
    else:  # refused outside TMPDIR, a folder in the jail's HOME
        assert wrote == ["wrote TMPDIR"]
        assert first.outside_writes == 1
    assert [f for f in SCRATCH if Path(f, token).exists()] == []

    second = run_jailed(jail, ["/bin/sh", "-c", _look_everywhere(token)], spec, timeout_s=30)
    assert second.result.exit_code == 0, second.result.stderr
    assert second.result.stdout == ""
    assert second.outside_writes == 0


def test_the_hosts_scratch_files_are_out_of_sight(
    jail: Sandbox, run_jailed: RunJailed, token: str
) -> None:
    """What another program (or a jail under an older version) left in the host's /tmp and
    /dev/shm cannot be read from a jail: bwrap shows other folders there, landlock none."""
    planted = [Path(folder, token) for folder in ("/tmp", "/dev/shm")]
    for path in planted:
        path.write_text("secret\n")
        path.chmod(0o644)
    result = run_jailed(jail, _look_everywhere(token))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""


def test_landlock_empties_tmpdir_when_the_jail_ends(
    landlock: Sandbox, trial: dict[str, Path], token: str
) -> None:
    """landlock's scratch is a folder in HOME: what the jail leaves in it, folders it made
    unreadable included, is counted and removed; a link put in its place is never followed."""
    tmpdir = trial["home"] / ".tmp"
    victim = trial["run"] / "keep-me"
    victim.mkdir()
    (victim / "file").write_text("harness data\n")
    script = (
        f'mkdir "$TMPDIR/deep" && echo x > "$TMPDIR/deep/{token}" && chmod 000 "$TMPDIR/deep"\n'
        f'echo x > "$TMPDIR/{token}"\n'
    )
    ran = run_jailed(landlock, ["/bin/sh", "-c", script], make_spec(trial), timeout_s=30)
    assert ran.result.exit_code == 0, ran.result.stderr
    assert ran.outside_writes == 2  # the unreadable folder counts once
    assert list(tmpdir.iterdir()) == []

    tmpdir.rmdir()
    tmpdir.symlink_to(victim)  # as the agent could have done through its HOME
    empty_folder(tmpdir)
    assert not tmpdir.is_symlink()
    assert (victim / "file").read_text() == "harness data\n"


def test_landlock_replaces_a_shared_tmpdir_with_its_own(
    landlock: Sandbox, trial: dict[str, Path]
) -> None:
    """An adapter asking for TMPDIR=/tmp (a private /tmp under bwrap) gets the jail's own
    folder: /tmp is out of reach under landlock, and temporary files would fail."""
    spec = make_spec(trial, env={"PATH": "/usr/bin:/bin", "TMPDIR": "/tmp"})
    with landlock.wrap(["true"], spec) as jailed:
        assert jailed.env["TMPDIR"] == str(trial["home"] / ".tmp")
    other = make_spec(trial, env={"PATH": "/usr/bin:/bin", "TMPDIR": str(trial["workspace"])})
    with landlock.wrap(["true"], other) as jailed:
        assert jailed.env["TMPDIR"] == str(trial["workspace"])


_IPC_PROBE = """\
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
key, name = int(sys.argv[1]), sys.argv[2].encode()
shm = libc.shmget(key, 4096, 0o1666)  # IPC_CREAT | 0666
print("shm", "made" if shm >= 0 else os.strerror(ctypes.get_errno()))
libc.mq_open.restype = ctypes.c_int
mq = libc.mq_open(name, os.O_CREAT | os.O_RDWR, 0o666, None)
print("mq", "made" if mq >= 0 else os.strerror(ctypes.get_errno()))
"""


def test_ipc_objects_do_not_outlive_the_jail(jail: Sandbox, run_jailed: RunJailed) -> None:
    """Threat: a SysV shared memory segment or POSIX message queue outlives its process, so
    one jail could leave data in it for the next. bwrap gives each jail its own IPC
    namespace (gone with it); landlock, which shares the host's, refuses to create them."""
    if not Path(PYTHON).exists():
        pytest.skip(f"needs {PYTHON} as the in-jail Python")
    key, name = 0x1AB00000 + secrets.randbelow(1 << 16), f"/lab-{secrets.token_hex(6)}"
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mq_open.restype = ctypes.c_int
    try:
        result = run_jailed(jail, [PYTHON, "-c", _IPC_PROBE, str(key), name])
        assert result.exit_code == 0, result.stderr
        expected = "made" if jail.name == "bwrap" else os.strerror(errno.EPERM)
        assert result.stdout.split("\n")[:2] == [f"shm {expected}", f"mq {expected}"]
        assert libc.shmget(key, 0, 0) == -1  # nothing on the host under that key
        assert ctypes.get_errno() == errno.ENOENT
        assert libc.mq_open(name.encode(), os.O_RDWR) == -1  # nor a queue of that name
        assert ctypes.get_errno() == errno.ENOENT
    finally:  # what a failure leaked would outlive the test too
        segment = libc.shmget(key, 0, 0)
        if segment >= 0:
            libc.shmctl(segment, 0, None)  # IPC_RMID
        libc.mq_unlink(name.encode())


def test_landlock_refuses_multiprocessing_semaphores(landlock: Sandbox, run_jailed: RunJailed):
    """The price of a /dev/shm no jail can write: POSIX semaphores live there, so
    multiprocessing's locks, queues and pools fail under landlock, plainly (PermissionError),
    where bwrap runs them (`test_adversarial.test_multiprocessing_works_in_the_jail`)."""
    if not Path(PYTHON).exists():
        pytest.skip(f"needs {PYTHON} as the in-jail Python")
    program = (
        "import multiprocessing as mp\n"
        "try:\n    mp.Lock()\nexcept PermissionError as e:\n    print('refused', e.errno)\n"
    )
    result = run_jailed(landlock, [PYTHON, "-c", program])
    assert result.stdout.strip() == f"refused {errno.EACCES}", result.stderr
