"""The scripted model format (SPEC section 4) and its loader."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from localagentbench.gateway._errors import ScriptError


class ScriptUsage(BaseModel):
    """Token usage the scripted model reports for every reply."""

    prompt_tokens: int = Field(ge=0)
    """Reported prompt tokens per reply."""
    completion_tokens: int = Field(ge=0)
    """Reported completion tokens per reply."""
    cached_prompt_tokens: int = Field(default=0, ge=0)
    """Of the prompt tokens, those reported as read from a prompt cache (cached-input
    pricing); at most `prompt_tokens`."""

    @model_validator(mode="after")
    def _cached_within_prompt(self) -> ScriptUsage:
        if self.cached_prompt_tokens > self.prompt_tokens:
            raise ValueError("cached_prompt_tokens must not exceed prompt_tokens")
        return self


class CandidateCall(BaseModel):
    """One tool call candidate; used when the request offers a matching tool."""

    name: str
    """Tool name the request must offer."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Arguments; every key must be a property of the offered tool's schema."""


class Expectation(BaseModel):
    """What a recorded request looked like (cassettes): replay fails when it diverges."""

    messages: int
    """Number of messages in the recorded request."""
    last_role: str
    """Role of the recorded request's last message."""
    tools: list[str] = Field(default_factory=list)
    """Sorted tool names the recorded request offered."""


class StepError(BaseModel):
    """An HTTP error the scripted backend answers instead of a reply (rate limits, outages)."""

    status: int = Field(ge=400, le=599)
    """HTTP status (429 makes a rate_limited event)."""
    message: str = "scripted error"
    """Error text."""
    retry_after_s: float | None = None
    """Retry-After sent with the error."""


class Step(BaseModel):
    """One model turn."""

    text: str = ""
    """Assistant text of the turn."""
    reasoning: str = ""
    """Reasoning ("thinking") sent before the text, where the agent's protocol has it."""
    tool_calls: list[CandidateCall] = Field(default_factory=list)
    """Candidates: the first one the request can take is used (one call per turn)."""
    delay_s: float = Field(default=0.0, ge=0)
    """Seconds to wait before replying (a slow model, for timeouts and disconnects)."""
    error: StepError | None = None
    """Answer this turn with an HTTP error instead (consumes the step)."""
    expect: Expectation | None = None
    """Cassettes only: the request this step answered when it was recorded."""


class Script(BaseModel):
    """A scripted (or recorded) conversation replayed deterministically."""

    version: int = 1
    """Format version."""
    name: str
    """Short name shown in logs."""
    usage: ScriptUsage | None = None
    """Usage reported per reply; None lets the gateway count tokens itself."""
    side_text: str = "Scripted session"
    """Reply to side requests (title generation, memory extraction, probes)."""
    strict: bool = False
    """Fail a request that diverges from a step's `expect` (cassettes set this)."""
    steps: list[Step] = Field(min_length=1)
    """Replayed in order, one per model turn of the agent's main loop."""


def shipped_scripts() -> list[str]:
    """Names of the scripted models shipped in the package."""
    folder = resources.files("localagentbench.gateway").joinpath("scripts")
    return sorted(
        entry.name.removesuffix(".yaml")
        for entry in folder.iterdir()
        if entry.name.endswith(".yaml")
    )


def load_script(ref: str) -> Script:
    """Load `ref`: a path to a YAML file, or the name of a shipped script."""
    path = Path(ref)
    if path.suffix in {".yaml", ".yml"} or path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ScriptError(f"cannot read scripted model {ref}: {e.strerror}") from e
        where = str(path)
    else:
        entry = resources.files("localagentbench.gateway").joinpath("scripts", f"{ref}.yaml")
        if not entry.is_file():
            names = ", ".join(shipped_scripts())
            raise ScriptError(f"no shipped scripted model {ref!r}; shipped: {names}")
        text = entry.read_text(encoding="utf-8")
        where = f"scripted/{ref}"
    return parse_script(text, where)


def parse_script(text: str, where: str) -> Script:
    """Validate YAML text as a `Script`; errors name the file and the field."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ScriptError(f"{where}: not valid YAML: {e}") from e
    try:
        return Script.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ScriptError(f"{where}: {field}: {first['msg']}") from e


def expand_workspace(value: Any, workspace: str) -> Any:
    """Replace `{workspace}` in every string of `value` (recursively)."""
    if isinstance(value, str):
        return value.replace("{workspace}", workspace)
    if isinstance(value, list):
        return [expand_workspace(item, workspace) for item in value]
    if isinstance(value, dict):
        return {key: expand_workspace(item, workspace) for key, item in value.items()}
    return value
