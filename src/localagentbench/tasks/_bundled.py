"""Where the bundled suite lives (no YAML or pydantic: the CLI asks before it loads tasks)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["bundled_suite"]


def bundled_suite() -> Path:
    """The suite shipped inside the package."""
    return Path(str(resources.files("localagentbench") / "suite"))
