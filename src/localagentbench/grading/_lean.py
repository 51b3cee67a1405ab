"""Whether a task's pytest runs may skip the plugins the harness's environment happens to have.

Task commands name ``python``, the harness's interpreter, so pytest autoloads every plugin
installed beside the harness. In a development install these are the dev tools'
(hypothesis, pytest-benchmark, anyio): profiled, they are most of a graded pytest start
(about 1.3 s of CPU of 1.5 s on this project's machine; the jail itself costs 0.1 s;
hypothesis alone imports itself whole in its terminal-summary hook). A task's tests rarely
use them, but one might (a ``mocker`` fixture, ``-n auto`` in ``addopts``), and guessing
from the sources would change verdicts. So it is measured: the graded commands run once
more on the pristine tree (held-out files injected) with autoload off, and only when that
report equals the full one, test id by test id and outcome by outcome, do the task's
graded pytest runs go without autoloaded plugins. Plugins the tree names itself (``-p``,
``pytest_plugins``, ``addopts``) still load. The proof depends on the task and the
machine only, so it is kept like the pristine results (key ``id@version#lean``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from localagentbench.grading._baseline import PristineBaseline
from localagentbench.grading._reports import TestReport, detect_runner

__all__ = ["lean_proven"]


def lean_proven(
    commands: list[list[str]],
    *,
    key: str,
    before: TestReport | None,
    lean_run: Callable[[], TestReport | None],
    baseline: PristineBaseline[TestReport | None] | None,
    cancel: threading.Event | None = None,
) -> bool:
    """Whether ``commands`` report the same on the pristine tree without autoloaded plugins
    (``lean_run``, done once per task version with a baseline) as with them (``before``).

    False when a command is not pytest (nothing to gain), when the full pristine run left no
    usable report (nothing to compare) or when a run was cancelled.
    """
    if before is None or not commands or (cancel is not None and cancel.is_set()):
        return False
    if any(detect_runner(argv) != "pytest" for argv in commands):
        return False
    lean = lean_run() if baseline is None else baseline.get(f"{key}#lean", lean_run)
    return lean is not None and lean == before
