"""A stored trial turned into what the judge may see (`BlindTrial`), read from the run only."""

from __future__ import annotations

import re
from pathlib import Path

from localagentbench.errors import RunDirError
from localagentbench.judge._prompt import BlindTrial
from localagentbench.records import RunDir, RunInfo, TrialRecord
from localagentbench.tasks import bundled_suite, load_suite

__all__ = ["TrialInputs", "has_patch"]

_HEADER = re.compile(r"^(\$ .*|# exit .*)$", re.MULTILINE)
"""A grading log's command line and exit line: they carry scratch paths, not test output."""


def has_patch(run: Path, record: TrialRecord) -> bool:
    """The trial left a non-empty patch.diff."""
    patch = RunDir(run).trial(record.trial_id) / "patch.diff"
    return patch.is_file() and bool(patch.read_text(errors="replace").strip())


def _logs(folder: Path, prefix: str) -> str:
    texts = []
    for path in sorted(folder.glob(f"{prefix}-*.log")):
        texts.append(_HEADER.sub("", path.read_text(errors="replace")).strip())
    return "\n\n".join(t for t in texts if t)


class TrialInputs:
    """Reads a run's task prompts once and builds each trial's blind view."""

    def __init__(self, run: Path, info: RunInfo, records: list[TrialRecord]) -> None:
        self.run = run
        self.info = info
        self.records = records
        self.prompts = self._prompts()
        self._before: dict[str, str] = {}

    def _prompts(self) -> dict[str, str]:
        """Task id -> its prompt, for every task with a patch to judge, from the task file
        run.json names or, when that is gone, the bundled suite's task at the same version.
        A task found nowhere stops here, before the first judge call."""
        prompts = {}
        wanted = {r.task_id for r in self.records if has_patch(self.run, r)}
        for task in self.info.tasks:
            if task.id not in wanted:
                continue
            for source in (Path(task.source), bundled_suite() / task.id / "task.yaml"):
                loaded = load_suite(source, [task.id]).tasks if source.is_file() else []
                if loaded and loaded[0].version == task.version:
                    prompts[task.id] = loaded[0].prompt
                    break
        missing = sorted(wanted - prompts.keys())
        if missing:
            raise RunDirError(
                f"{self.run}: run.json: no task file at the version run for "
                f"{', '.join(missing)}; the judge needs each task's prompt (restore the suite "
                "the run used)"
            )
        return prompts

    def names(self) -> set[str]:
        """Everything that would identify a configuration, agent, model, trial or run."""
        names = {self.info.run_id}
        for config in self.info.configurations:
            names |= {config.id, config.agent, *(filter(None, [config.model]))}
            if config.model:
                names |= set(config.model.split("/")[-1:])
        for r in self.records:
            names |= {r.trial_id, r.config_id, r.agent, *(filter(None, [r.model]))}
            if r.model:
                names |= set(r.model.split("/")[-1:])
        names.add(str(self.run.resolve()))
        return names

    def _tests_before(self, record: TrialRecord) -> str:
        """The pristine tree's test output: this trial's log, else any trial's of that task
        version (grading runs the pristine tests once per task)."""
        key = f"{record.task_id}@{record.task_version}"
        if key not in self._before:
            folders = [RunDir(self.run).trial(record.trial_id) / "grading"] + [
                RunDir(self.run).trial(r.trial_id) / "grading"
                for r in self.records
                if r.task_id == record.task_id and r.task_version == record.task_version
            ]
            self._before[key] = next(
                (text for folder in folders if (text := _logs(folder, "pristine"))),
                "(not recorded)",
            )
        return self._before[key]

    def blind(self, record: TrialRecord) -> BlindTrial:
        folder = RunDir(self.run).trial(record.trial_id)
        grading = folder / "grading"
        after = "\n\n".join(
            part
            for part in (
                f"Visible tests:\n{_logs(grading, 'visible')}" if _logs(grading, "visible") else "",
                f"Held-out tests:\n{_logs(grading, 'heldout')}"
                if _logs(grading, "heldout")
                else "",
            )
            if part
        )
        return BlindTrial.of(
            task_prompt=self.prompts[record.task_id],
            patch=(folder / "patch.diff").read_text(errors="replace"),
            tests_before=self._tests_before(record),
            tests_after=after or "(not recorded)",
            final_answer=record.final_answer or "",
            names=self.names(),
        )
