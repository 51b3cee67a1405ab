"""Recording a trial's real model traffic as a cassette that `replay/<cassette>` serves back.

A cassette is a scripted model (same YAML format) with `strict: true` and, per step, the
shape of the request it answered; the workspace path is stored as `{workspace}`.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from localagentbench.gateway._canonical import ChatRequest, Reply
from localagentbench.gateway._script import CandidateCall, Expectation, Script, Step


def _generalise(value: Any, workspace: str) -> Any:
    """Replace the workspace path by `{workspace}` in every string of `value`."""
    if isinstance(value, str):
        return value.replace(workspace, "{workspace}")
    if isinstance(value, list):
        return [_generalise(item, workspace) for item in value]
    if isinstance(value, dict):
        return {key: _generalise(item, workspace) for key, item in value.items()}
    return value


class CassetteRecorder:
    """Collects main-loop replies of one trial; `write()` stores them atomically."""

    def __init__(self, path: Path, *, name: str, workspace: str) -> None:
        self.path = path
        self.name = name
        self.workspace = workspace
        self.steps: list[Step] = []

    def add(self, request: ChatRequest, reply: Reply) -> None:
        """Record one main-loop reply (the first tool call only: one call per step)."""
        calls = []
        for call in reply.tool_calls[:1]:
            try:
                args = json.loads(call.arguments or "{}")
            except ValueError:
                args = {}
            calls.append(
                CandidateCall(
                    name=call.name,
                    args=_generalise(args if isinstance(args, dict) else {}, self.workspace),
                )
            )
        expect = Expectation(
            messages=len(request.messages),
            last_role=request.messages[-1].role if request.messages else "",
            tools=sorted(tool.name for tool in request.tools),
        )
        self.steps.append(
            Step(text=_generalise(reply.text, self.workspace), tool_calls=calls, expect=expect)
        )

    def write(self) -> None:
        """Write the cassette (temp file + rename)."""
        script = Script(name=self.name, strict=True, steps=self.steps or [Step()])
        text = yaml.safe_dump(
            script.model_dump(mode="json", exclude_none=True), sort_keys=False, allow_unicode=True
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".cassette-", dir=self.path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        Path(tmp).replace(self.path)
