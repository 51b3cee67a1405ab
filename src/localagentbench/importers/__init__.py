"""Tasks at scale: benchmarks people already run, imported; new tasks generated.

Every task written here is proven first by the calls `check` and `verify` make, and appears
whole or not at all (``_prove.write_proven``). A candidate that fails is reported with its
reason and counted, never written.
"""

from localagentbench.importers._exercism import TRACKS, import_exercism
from localagentbench.importers._generate import KINDS, draw_candidates, generate_tasks
from localagentbench.importers._prove import Candidate, ImportResult, Rejected, write_proven
from localagentbench.importers._terminal_bench import import_terminal_bench

__all__ = [
    "KINDS",
    "TRACKS",
    "Candidate",
    "ImportResult",
    "Rejected",
    "draw_candidates",
    "generate_tasks",
    "import_exercism",
    "import_terminal_bench",
    "write_proven",
]
