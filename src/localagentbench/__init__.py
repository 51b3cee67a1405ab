"""LocalAgentBench: a local-first evaluation harness for terminal coding agents."""

__version__ = "0.1.0"

__all__ = ["__version__"]
