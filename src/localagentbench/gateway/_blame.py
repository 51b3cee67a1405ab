"""Which row of the failure table (`_failures.FAILURES`) an upstream exception is."""

from __future__ import annotations

import asyncio
import ssl

import aiohttp

from localagentbench.gateway._errors import BackendHTTPError
from localagentbench.gateway._failures import FAILURES, Failure, Fault, classify_status

__all__ = ["FAILURES", "Failure", "Fault", "classify_exception", "classify_status"]


def classify_exception(error: BaseException, *, started: bool) -> str:
    """The kind of an exception raised while calling the upstream; `started` says whether
    any event of the reply had arrived."""
    if isinstance(error, BackendHTTPError):
        return classify_status(error.status)
    if isinstance(error, aiohttp.ClientConnectorCertificateError | aiohttp.ClientSSLError):
        return "tls_error"
    if isinstance(error, ssl.SSLError):
        return "tls_error"
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return "connect_timeout"
    if isinstance(error, TimeoutError | asyncio.TimeoutError | aiohttp.ServerTimeoutError):
        return "read_timeout" if started else "first_byte_timeout"
    if isinstance(error, aiohttp.ClientConnectorError | ConnectionRefusedError):
        return "connect_refused"
    if started and isinstance(error, aiohttp.ClientPayloadError | aiohttp.ServerDisconnectedError):
        return "stream_broken"
    if isinstance(
        error,
        aiohttp.TooManyRedirects
        | aiohttp.ClientResponseError
        | aiohttp.ClientPayloadError
        | aiohttp.InvalidURL
        | ValueError
        | UnicodeError,
    ):
        return "protocol_error"
    if isinstance(error, aiohttp.ClientError | OSError):
        return "stream_broken" if started else "connect_refused"
    return "backend_fault"
