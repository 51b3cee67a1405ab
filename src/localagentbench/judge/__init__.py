"""The blind quality judge (SPEC section 8): rubric and pairwise verdicts on stored trials.

`judge_runs` sends each finished trial's patch, with nothing that names who made it, to a
judge model through the gateway's backends and stores every request, response and parsed
verdict under ``trials/<trial_id>/judge/<stamp>/`` (the files' schema is `records`');
`results.judge_scores` reads a stamp back as the quality part of the composite;
`agreement` compares verdicts with hand labels or with another stamp. Hard checks win: a
verdict never changes a trial's success.
"""

from typing import TYPE_CHECKING

from localagentbench._lazy import lazy_attributes
from localagentbench.judge._agreement import Agreement, agreement, binary, read_labels
from localagentbench.judge._prompt import TEMPLATE_VERSION, BlindTrial, redact
from localagentbench.records import JudgeExchange as Exchange
from localagentbench.records import JudgeIdentity, JudgeSession, PairVerdict
from localagentbench.records import JudgeVerdict as Verdict
from localagentbench.records import judge_stamps as stamps
from localagentbench.records import latest_judge_stamp as latest_stamp
from localagentbench.records import load_judge_pairs as load_pairs
from localagentbench.records import load_judge_session as load_session
from localagentbench.records import load_judge_verdicts as load_verdicts
from localagentbench.records import read_judge_exchanges as read_exchanges
from localagentbench.results import JudgeScores, judge_scores, pairwise_text

if TYPE_CHECKING:  # the names __getattr__ loads on first use
    from localagentbench.judge._session import JudgeOptions, SessionResult, judge_runs

# The session talks to the gateway's backends (aiohttp, about 0.7 s to import): `tables`
# and `report` read verdicts without it, so it loads on first use.
_LAZY = {"JudgeOptions": "_session", "SessionResult": "_session", "judge_runs": "_session"}


__getattr__ = lazy_attributes(__name__, _LAZY)


__all__ = [
    "TEMPLATE_VERSION",
    "Agreement",
    "BlindTrial",
    "Exchange",
    "JudgeIdentity",
    "JudgeOptions",
    "JudgeScores",
    "JudgeSession",
    "PairVerdict",
    "SessionResult",
    "Verdict",
    "agreement",
    "binary",
    "judge_runs",
    "judge_scores",
    "latest_stamp",
    "load_pairs",
    "load_session",
    "load_verdicts",
    "pairwise_text",
    "read_exchanges",
    "read_labels",
    "redact",
    "stamps",
]
