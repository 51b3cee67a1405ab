"""extract_tar: PEP 706's ``tar`` filter, and the same rules by hand on Pythons without it."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from localagentbench.errors import InfraError
from localagentbench.workspace import extract_tar

HAS_FILTERS = hasattr(tarfile, "tar_filter")


@pytest.fixture(params=["filters", "by-hand"])
def mode(request, monkeypatch) -> str:
    if request.param == "filters" and not HAS_FILTERS:
        pytest.skip("this Python has no tarfile filters (3.11.4+ has them)")
    if request.param == "by-hand":
        monkeypatch.delattr(tarfile, "tar_filter", raising=False)
    return str(request.param)


def _archive(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _file(name: str, data: bytes = b"x\n", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


def _extract(data: bytes, dest: Path) -> None:
    dest.mkdir(exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        extract_tar(tar, dest, source="test.tar")


def test_an_ordinary_tree_is_extracted_with_its_links(mode, tmp_path: Path):
    data = _archive(_file("./a/b.txt", b"hello\n"), _link("./a/c", "b.txt"), _file("./run.sh"))
    _extract(data, tmp_path / "out")
    assert (tmp_path / "out" / "a" / "b.txt").read_text() == "hello\n"
    assert (tmp_path / "out" / "a" / "c").readlink() == Path("b.txt")


@pytest.mark.parametrize(
    "members",
    [
        [_file("../evil.txt")],
        [_link("./sneak", ".."), _file("./sneak/evil.txt")],
        [_link("./sneak", str(Path(__file__).parent)), _file("./sneak/evil.txt")],
    ],
    ids=["dotdot", "through-a-relative-link", "through-an-absolute-link"],
)
def test_a_member_that_would_land_outside_is_refused(mode, tmp_path: Path, members):
    with pytest.raises(InfraError) as e:
        _extract(_archive(_file("./ok.txt"), *members), tmp_path / "out")
    assert str(e.value).startswith("test.tar: ")
    assert "evil.txt" in str(e.value)
    assert not (tmp_path / "evil.txt").exists()
    assert not (Path(__file__).parent / "evil.txt").exists()


def test_leading_slashes_are_stripped_and_links_may_point_anywhere(mode, tmp_path: Path):
    data = _archive(_file("/abs.txt"), _link("./etc", "/etc"), _link("./up", "../.."))
    _extract(data, tmp_path / "out")
    assert (tmp_path / "out" / "abs.txt").is_file()
    assert (tmp_path / "out" / "etc").readlink() == Path("/etc")


def test_a_hard_link_to_a_file_outside_is_refused_by_hand(tmp_path: Path, monkeypatch):
    monkeypatch.delattr(tarfile, "tar_filter", raising=False)
    (tmp_path / "outside").write_text("secret\n")
    with pytest.raises(InfraError, match="hard link out of the destination"):
        _extract(_archive(_link("./hard", "../outside", tarfile.LNKTYPE)), tmp_path / "out")


def test_set_id_bits_and_others_write_are_dropped(mode, tmp_path: Path):
    _extract(_archive(_file("./tool", b"#!/bin/sh\n", 0o6777)), tmp_path / "out")
    assert (tmp_path / "out" / "tool").stat().st_mode & 0o7777 == 0o755
