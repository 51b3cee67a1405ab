"""The documentation shipped inside the package, so that error messages can point at a file
that exists after `pip install` (the repository's docs/ is the single source: the package's
docs/ holds links to it that a wheel build turns into copies)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["DOCS", "doc_path"]

DOCS: dict[str, str] = {"authoring": "AUTHORING.md", "methodology": "METHODOLOGY.md"}
"""Short name -> file name of each installed document."""


def doc_path(name: str) -> Path:
    """The installed path of the document ``name`` (a key of DOCS)."""
    return Path(str(resources.files("localagentbench") / "docs" / DOCS[name]))
