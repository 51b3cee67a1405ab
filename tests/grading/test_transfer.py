"""The workspace reaches grading as a tar stream that follows no link (issue 5)."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

from localagentbench.grading import _transfer, private_copy


@pytest.fixture(params=["data_filter", "fallback"])
def filtered(request, monkeypatch):
    """Run each test with tarfile's own ``data`` filter and with the pre-3.11.4 fallback."""
    if request.param == "fallback":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    elif not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python has no tarfile.data_filter (before 3.11.4)")
    return request.param


def test_links_leading_out_are_left_out_and_named(tmp_path: Path, filtered: str):
    """Threat: links planted for the grader to follow to hidden files or to the host's files."""
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "mod.py").write_text("x = 1\n")
    (work / "abs").symlink_to(secret)
    (work / "pkg" / "up").symlink_to("../../secret.txt")
    (work / "pkg" / "inside").symlink_to("mod.py")
    (work / ".git").mkdir()
    (work / ".git" / "config").write_text("[core]\n")
    dest = tmp_path / "copy"
    skipped = private_copy(work, dest)
    assert [line.split(":")[0] for line in skipped] == ["abs", "pkg/up"]
    assert not os.path.lexists(dest / "abs")
    assert not os.path.lexists(dest / "pkg" / "up")
    assert os.readlink(dest / "pkg" / "inside") == "mod.py"  # a link within the tree stays
    assert (dest / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert not (dest / ".git").exists()
    assert secret.read_text() == "hidden"


def test_a_link_named_with_bytes_that_are_not_utf8_is_named_escaped(tmp_path: Path, filtered: str):
    """The list goes into the record and not-transferred.txt, both UTF-8 only: a name the
    agent chose must not make grading fail."""
    work = tmp_path / "work"
    work.mkdir()
    os.symlink("/etc", os.path.join(os.fsencode(work), b"link\xff"))
    skipped = private_copy(work, tmp_path / "copy")
    assert len(skipped) == 1
    assert skipped[0].startswith("link\\xff: ")
    skipped[0].encode("utf-8")


def test_a_linked_folder_cannot_carry_later_files_out(tmp_path: Path, filtered: str):
    """Threat: a link to a folder outside, then files "inside" it, so the unpack writes there."""
    outside = tmp_path / "outside"
    outside.mkdir()
    stream = tmp_path / "evil.tar"
    with tarfile.open(stream, "w") as tar:
        link = tarfile.TarInfo("d")
        link.type, link.linkname = tarfile.SYMTYPE, str(outside)
        tar.addfile(link)
        planted = tmp_path / "payload"
        planted.write_text("pwned")
        tar.add(planted, "d/payload")
        tar.add(planted, "../escaped")
    dest = tmp_path / "copy"
    dest.mkdir()
    skipped: list[str] = []
    with stream.open("rb") as f:
        _transfer._read(f, dest, skipped)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "escaped").exists()
    assert len(skipped) == 2
    assert not (dest / "d").is_symlink()  # "d/payload" landed in a real folder of the copy


def test_special_files_and_modes(tmp_path: Path, filtered: str):
    """Threat: a FIFO in the workspace hangs the grader; setuid bits survive into the copy."""
    work = tmp_path / "work"
    work.mkdir()
    os.mkfifo(work / "fifo")
    (work / "run.sh").write_text("#!/bin/sh\n")
    (work / "run.sh").chmod(0o4777)
    dest = tmp_path / "copy"
    skipped = private_copy(work, dest)
    assert [line.split(":")[0] for line in skipped] == ["fifo"]
    assert (dest / "run.sh").stat().st_mode & 0o7777 == 0o755
