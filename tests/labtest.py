"""Helpers importable from every test package (tests/ is on sys.path)."""

from __future__ import annotations

import textwrap
from pathlib import Path


def script(path: Path, body: str) -> Path:
    """Write an executable shell script."""
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def processes_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().split(") ", 1)[1][:1]
            except OSError:
                continue
            if marker.encode() in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


def install_plugin(
    site: Path, package: str, modules: dict[str, str], entry_points: str = "", dist: str = ""
) -> Path:
    """Lay out ``package`` (its modules: name -> source) in ``site`` as an installed
    distribution ``dist`` would, with its ``entry_points.txt`` when given. The caller puts
    ``site`` on sys.path."""
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text("")
    for name, source in modules.items():
        (site / package / f"{name}.py").write_text(source)
    if entry_points:
        info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(entry_points)
    return site
