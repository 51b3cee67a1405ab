"""Command-line interface: `python -m tasktrack COMMAND ...`."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from tasktrack.store import PRIORITIES, Store, StoreError, Task


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tasktrack", description="A tiny to-do list.")
    parser.add_argument(
        "--file",
        default=os.environ.get("TASKTRACK_FILE", "tasks.json"),
        help="data file (default: $TASKTRACK_FILE or ./tasks.json)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    add = sub.add_parser("add", help="add a task")
    add.add_argument("title")
    add.add_argument("--priority", choices=PRIORITIES, default="normal")
    add.add_argument("--tag", action="append", default=[], help="may be repeated")

    lst = sub.add_parser("list", help="list tasks")
    lst.add_argument("--all", action="store_true", help="include completed tasks")
    lst.add_argument("--tag", help="only tasks with this tag")

    done = sub.add_parser("done", help="mark a task completed")
    done.add_argument("id", type=int)
    return parser


def format_task(task: Task) -> str:
    box = "[x]" if task.done else "[ ]"
    prio = f" ({task.priority})" if task.priority != "normal" else ""
    tags = "  " + " ".join(f"+{t}" for t in task.tags) if task.tags else ""
    return f"#{task.id} {box}{prio} {task.title}{tags}"


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        store = Store(args.file)
        if args.command == "add":
            task = store.add(args.title, args.priority, args.tag)
            store.save()
            print(f"added #{task.id}", file=out)
        elif args.command == "list":
            for task in store.select(include_done=args.all, tag=args.tag):
                print(format_task(task), file=out)
        elif args.command == "done":
            task = store.get(args.id)
            task.done = True
            store.save()
            print(f"completed #{task.id}", file=out)
    except StoreError as exc:
        print(f"tasktrack: error: {exc}", file=sys.stderr)
        return 1
    return 0
