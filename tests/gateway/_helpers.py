"""Helpers shared by the gateway tests."""

from __future__ import annotations

from pathlib import Path


def write_script(folder: Path, text: str, name: str = "s.yaml") -> str:
    """Write a scripted model file and return its model id."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return f"scripted/{path}"
