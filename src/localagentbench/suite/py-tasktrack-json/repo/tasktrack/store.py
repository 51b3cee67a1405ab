"""Persistence for tasks: one JSON document holding every task."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

PRIORITIES = ("high", "normal", "low")


class StoreError(Exception):
    """Raised for a missing task or an unreadable data file."""


@dataclass
class Task:
    id: int
    title: str
    done: bool = False
    priority: str = "normal"
    tags: list[str] = field(default_factory=list)

    def sort_key(self) -> tuple[int, int]:
        return (PRIORITIES.index(self.priority), self.id)


class Store:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.tasks: list[Task] = []
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            self.tasks = [Task(**item) for item in doc["tasks"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"cannot read {self.path}: {exc}") from exc

    def save(self) -> None:
        doc = {"version": 1, "tasks": [asdict(t) for t in self.tasks]}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)

    def add(self, title: str, priority: str = "normal", tags: list[str] | None = None) -> Task:
        if priority not in PRIORITIES:
            raise StoreError(f"unknown priority {priority!r}")
        title = title.strip()
        if not title:
            raise StoreError("a task needs a title")
        next_id = max((t.id for t in self.tasks), default=0) + 1
        task = Task(next_id, title, priority=priority, tags=sorted(set(tags or [])))
        self.tasks.append(task)
        return task

    def get(self, task_id: int) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise StoreError(f"no task #{task_id}")

    def select(self, include_done: bool = False, tag: str | None = None) -> list[Task]:
        chosen = [
            t
            for t in self.tasks
            if (include_done or not t.done) and (tag is None or tag in t.tags)
        ]
        return sorted(chosen, key=Task.sort_key)
