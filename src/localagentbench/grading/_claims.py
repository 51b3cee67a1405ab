"""Grading's view of the completion claim: the rule lives below every stage (`_claims`)."""

from localagentbench._claims import claims_done

__all__ = ["claims_done"]
