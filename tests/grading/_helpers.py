"""Task folders for grading tests, built in tmp_path."""

from __future__ import annotations

from pathlib import Path

import yaml


def grading_task(
    root: Path,
    repo: dict[str, str],
    heldout: dict[str, str] | None,
    oracle: list[str],
    heldout_cmd: list[str] | None = None,
    **fields: object,
) -> Path:
    """A task folder ``root/<id>`` with the given repo and held-out files."""
    task_id = str(fields.pop("id", "t-one"))
    base = root / "suite" / task_id
    for folder, files in (("repo", repo), ("heldout", heldout or {})):
        for rel, text in files.items():
            (base / folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / folder / rel).write_text(text)
    data: dict[str, object] = {
        "id": task_id,
        "title": "t",
        "prompt": "p",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "python",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": oracle, "timeout_s": 120},
    }
    if heldout is not None:
        data["heldout"] = {"path": "heldout", "command": heldout_cmd or oracle, "timeout_s": 120}
    data.update(fields)
    (base / "task.yaml").write_text(yaml.safe_dump(data))
    return base
