"""One common `Trajectory` for every agent, parsed from the agent's own log (SPEC section 3).

The trajectory is what the agent says it did. The verdict never trusts it; the gateway's
figures (requests, tokens) stay the record's numbers and the agent's own token counts are
kept beside them here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
)

from localagentbench._claims import claims_done

__all__ = ["AgentTokens", "FileDiff", "PlanItem", "Step", "ToolCall", "Trajectory"]


def _drop_empty(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``data`` without those of ``keys`` that are None or empty: optional detail only some
    agents give (ACP's) stays out of the files of the others, which stay as they were."""
    for key in keys:
        if data.get(key) in (None, [], {}):
            data.pop(key, None)
    return data


class FileDiff(BaseModel):
    """A file edit a tool call reported (ACP's ``diff`` content)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    old_text: str | None = None
    """The text before (capped); None for a new file."""
    new_text: str
    """The text after (capped)."""


class ToolCall(BaseModel):
    """One tool call the agent made."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """The tool's name as the agent calls it (`bash`, `edit`, `Write`...)."""
    ok: bool | None = None
    """True: the tool reported success; False: it failed or was refused; None: not reported."""
    detail: str | None = None
    """A short view of the arguments or the failure (capped)."""
    id: str | None = None
    """The call's id: the model's (from the gateway's reply) or the agent's (ACP
    ``toolCallId``), where one was given."""
    kind: str | None = None
    """What sort of tool (ACP: read, edit, delete, move, search, execute, think, fetch...)."""
    status: str | None = None
    """The last status the agent reported (ACP: pending, in_progress, completed, failed)."""
    arguments: Any = None
    """The arguments: as the model wrote them (JSON text, capped) from the gateway, or as
    the agent reported them (ACP ``rawInput``, an object); None from other agent logs."""
    result: str | None = None
    """What the agent sent back to the model as the call's result (capped, colour codes
    stripped); None when it sent none or it was not recorded."""
    output: str | None = None
    """What the call returned as the agent reported it (ACP tool-call content, capped)."""
    diffs: list[FileDiff] = Field(default_factory=list)
    """File edits the call reported."""
    locations: list[str] = Field(default_factory=list)
    """Files the call touched, as the agent reported them."""
    permission: str | None = None
    """How the harness answered the agent's permission request for it (allowed, denied)."""
    source: Literal["gateway", "agent"] = "agent"
    """Where the call was seen: the model's reply through the gateway, or only the agent's
    own log or events (aider's applied edits, ACP tool calls)."""

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        keys = ("id", "kind", "status", "arguments", "output", "diffs", "locations", "permission")
        return _drop_empty(handler(self), keys)


class PlanItem(BaseModel):
    """One entry of a plan the agent announced (ACP ``plan`` update)."""

    model_config = ConfigDict(extra="forbid")

    content: str
    status: str | None = None
    """pending, in_progress or completed."""
    priority: str | None = None


class Step(BaseModel):
    """One model turn: what the model said and the tools it called."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    """The assistant's text in this turn (capped)."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    seq: int | None = None
    """The gateway exchange (gateway.jsonl `seq`) this turn is; None from agent logs."""
    at: str | None = None
    """When the gateway finished the exchange (ISO 8601, UTC)."""
    reasoning: str | None = None
    """The model's reasoning text, when the backend returned one (capped)."""
    observation: str | None = None
    """What the agent sent the model next that is no tool result (a text-format agent's
    command output, an edit-format error), capped, colour codes stripped."""
    input_tokens: int | None = None
    """Prompt tokens of this exchange (the gateway's figure)."""
    output_tokens: int | None = None
    """Completion tokens of this exchange (the gateway's figure)."""
    cached_tokens: int | None = None
    """Of the prompt tokens, those the backend read from its cache."""
    latency_s: float | None = None
    """Seconds the exchange took at the gateway."""
    finish: str | None = None
    """Why the reply ended (`stop`, `tool_calls`, `length`)."""
    side: str | None = None
    """The side-request rule that matched (a title or summary call), None for a turn of
    the main loop."""
    refused: str | None = None
    """The gateway refused the request at a cap: its refusal text."""
    error: str | None = None
    """The exchange failed: the gateway's error text."""
    repaired: int = 0
    """Tool calls the gateway repaired in this reply (tool-call repair)."""
    thought: str | None = None
    """The agent's reasoning it streamed in this turn (capped), where it shows it."""
    plan: list[PlanItem] = Field(default_factory=list)
    """The plan as the agent announced it at this point (each announcement is whole)."""

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_empty(handler(self), ("thought", "plan"))


class AgentTokens(BaseModel):
    """Token counts as the agent reports them (kept beside the gateway's, never instead)."""

    model_config = ConfigDict(extra="forbid")

    input: int | None = None
    output: int | None = None
    cost: float | None = None
    """The API-equivalent cost in USD the agent printed itself; None when it printed none
    (then left out of trajectory.json, which stays as it was for agents that print none)."""
    source: Literal["agent"] = "agent"

    @model_serializer(mode="wrap")
    def _drop_absent_cost(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("cost") is None:
            data.pop("cost", None)
        return data


class Trajectory(BaseModel):
    """What the agent did, as its own output tells it (`trajectory.json` in the trial folder)."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1, 2] = 2
    """Schema version: 1 holds the agent's own log only; 2 adds the gateway's exchanges
    (every field version 1 had keeps its meaning)."""
    agent: str
    """Adapter short name."""
    source: Literal["agent", "gateway", "both"] = "agent"
    """Where the steps come from: the agent's log, the gateway's exchanges, or the
    exchanges merged with the agent's log."""
    model: str | None = None
    """The model the requests named (the configuration's model id is in the record)."""
    system: str | None = None
    """The system prompt of the first request (capped)."""
    prompt: str | None = None
    """The first user message of the first request: the task as the agent put it (capped)."""
    steps: list[Step] = Field(default_factory=list)
    """Model turns in order."""
    final_answer: str | None = None
    """The agent's last message to the user."""
    completion_claim: bool = False
    """The agent said it finished: its completion command or finish tool, or a final
    answer that claims the work is done."""
    tokens: AgentTokens | None = None
    """Tokens the agent itself reported; None when it reports none."""
    notes: list[str] = Field(default_factory=list)
    """What the adapter noticed (parse problems, refused edits, failed model calls)."""
    session: dict[str, Any] | None = None
    """The protocol session, for agents driven over one (ACP: the negotiated version, the
    agent's name and capabilities, the stop reason, refused outside accesses); None for the
    others (then left out of trajectory.json)."""

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_empty(handler(self), ("session",))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tool_calls(self) -> int:
        """Tool calls made, all steps together."""
        return sum(len(s.tool_calls) for s in self.steps)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed_tool_calls(self) -> int:
        """Tool calls that reported failure."""
        return sum(1 for s in self.steps for c in s.tool_calls if c.ok is False)

    def calls(self) -> list[ToolCall]:
        return [c for s in self.steps for c in s.tool_calls]

    def finish(self, final_answer: str | None, *, finished: bool = False) -> Trajectory:
        """Set the final answer and the completion claim (explicit finish, or a claiming answer)."""
        self.final_answer = final_answer
        self.completion_claim = finished or claims_done(final_answer)
        return self


TEXT_CAP = 2000
"""Characters kept of a turn's text or a tool detail."""


def cap(text: object, limit: int = TEXT_CAP) -> str | None:
    """A short string view of ``text`` (its start), None when empty."""
    if text is None:
        return None
    value = text if isinstance(text, str) else str(text)
    value = value.strip()
    if not value:
        return None
    return value if len(value) <= limit else value[:limit] + " [...]"
