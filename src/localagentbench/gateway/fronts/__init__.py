"""The fronts: the wire formats agents speak to the gateway (OpenAI chat completions, OpenAI
Responses, Anthropic messages, Gemini, Ollama), each parsed into a `ChatRequest` and
answered from the backend's `Event`s.

`resolve` picks the front (or listing endpoint) a request path names; `parse_logged`
reads a logged request body back through the front that parsed it live.
"""

from localagentbench.gateway.fronts._base import Front
from localagentbench.gateway.fronts._logged import parse_logged
from localagentbench.gateway.fronts._paths import Fronts, Route, resolve

__all__ = ["Front", "Fronts", "Route", "parse_logged", "resolve"]
