"""Model gateway: one local recording proxy for every agent's model traffic (SPEC section 4).

A runner starts one `Gateway` per run, opens a route per trial, points the agent at the
trial's URLs and reads the trial's `TrialStats` when it closes the trial. A model backend
(built in, or a plug-in: docs/AGENTS.md) turns a canonical `ChatRequest` into `Event`s.
"""

from typing import TYPE_CHECKING

from localagentbench._lazy import lazy_attributes
from localagentbench.gateway._canonical import (
    ChatRequest,
    Event,
    Finish,
    Message,
    ReasoningDelta,
    Reply,
    TextDelta,
    ToolArgsDelta,
    ToolCallStart,
    ToolSpec,
    Usage,
)
from localagentbench.gateway._errors import (
    BackendHTTPError,
    BackendUnavailable,
    BadRequest,
    CassetteDiverged,
    GatewayError,
    ScriptError,
    TrialNotFound,
    UnknownModel,
)
from localagentbench.gateway._failures import FAILURES, Failure, Fault
from localagentbench.gateway._redact import Redactor
from localagentbench.gateway._script import Script, Step, load_script, shipped_scripts
from localagentbench.gateway._stats import RateLimitEvent, TrialSignal, TrialStats
from localagentbench.gateway._trial_route import DEFAULT_TRIAL, TrialRoute

if TYPE_CHECKING:  # the same names __getattr__ loads on first use
    from localagentbench.gateway._gateway import Gateway
    from localagentbench.gateway._probe import ProbeResult, probe, prove
    from localagentbench.gateway._standalone import serve
    from localagentbench.gateway.backends import (
        BACKEND_GROUP,
        BACKENDS,
        Backend,
        CallContext,
        make_backend,
    )
    from localagentbench.gateway.fronts import parse_logged

# These modules import aiohttp (about 0.7 s); a record model or a CLI that only needs
# TrialStats or an error type should not pay for it, so they load on first attribute use.
_LAZY = {
    "BACKEND_GROUP": "backends",
    "BACKENDS": "backends",
    "Backend": "backends",
    "CallContext": "backends",
    "make_backend": "backends",
    "parse_logged": "fronts",
    "ProbeResult": "_probe",
    "probe": "_probe",
    "prove": "_probe",
    "serve": "_standalone",
    "Gateway": "_gateway",
}


__getattr__ = lazy_attributes(__name__, _LAZY)


__all__ = [
    "BACKENDS",
    "BACKEND_GROUP",
    "DEFAULT_TRIAL",
    "FAILURES",
    "Backend",
    "BackendHTTPError",
    "BackendUnavailable",
    "BadRequest",
    "CallContext",
    "CassetteDiverged",
    "ChatRequest",
    "Event",
    "Failure",
    "Fault",
    "Finish",
    "Gateway",
    "GatewayError",
    "Message",
    "Reply",
    "ProbeResult",
    "RateLimitEvent",
    "ReasoningDelta",
    "Redactor",
    "Script",
    "ScriptError",
    "Step",
    "TextDelta",
    "ToolArgsDelta",
    "ToolCallStart",
    "ToolSpec",
    "TrialNotFound",
    "TrialRoute",
    "TrialSignal",
    "TrialStats",
    "UnknownModel",
    "Usage",
    "load_script",
    "make_backend",
    "parse_logged",
    "probe",
    "prove",
    "serve",
    "shipped_scripts",
]
