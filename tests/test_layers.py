"""The package's import graph: no cycle between modules, and stages import only downwards.

Every module under src/localagentbench is parsed (never imported) and each of its imports of
the package is an edge: top-level ones, those under ``if TYPE_CHECKING:`` and those inside
functions, since an import moved into a function still couples the two modules.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import localagentbench

PACKAGE = Path(localagentbench.__file__).parent

LAYERS: tuple[str, ...] = (
    "localagentbench",
    "errors",
    "_lazy",
    "_env",
    "_io",
    "_platform",
    "_proc",
    "_docs",
    "_claims",
    "_plugins",
    "stats",
    "tasks",
    "records",
    "workspace",
    "sandbox",
    "environments",
    "gateway",
    "agents",
    "grading",
    "results",
    "judge",
    "trajectory",
    "runner",
    "report",
    "importers",
    "cli",
    "__main__",
)
"""Lowest first: a unit (a top-level module or a subpackage) imports only units before it."""


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (suite data excluded)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "suite" in parts:
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imported(node: ast.Import | ast.ImportFrom, module: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules one import statement depends on.

    ``from pkg import sub`` depends on the submodule ``pkg.sub``; ``from pkg import name``
    on ``pkg`` itself (its ``__init__``).
    """
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        if modules[module].name != "__init__.py":
            parts = parts[:-1]
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join([*parts, *([node.module] if node.module else [])])
    subs = {f"{base}.{alias.name}" for alias in node.names}
    found = subs & modules.keys()
    if base in modules and len(found) < len(subs):
        found.add(base)
    return found


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in its body)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _imported(node, module, modules)
        graph[module] = edges - {module}
    return graph


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path of modules (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_graph_sees_every_module_and_known_edges() -> None:
    graph = _graph()
    assert "localagentbench.grading._checks" in graph
    assert "localagentbench.grading._check_text" in graph["localagentbench.grading._checks"]
    assert "localagentbench._plugins" in graph["localagentbench.agents._registry"]


def test_no_import_cycle_between_modules() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_every_unit_has_a_layer() -> None:
    units = {_unit(module) for module in _graph()}
    assert units <= set(LAYERS), f"place these in LAYERS: {sorted(units - set(LAYERS))}"


def test_stages_import_only_layers_below_them() -> None:
    rank = {unit: i for i, unit in enumerate(LAYERS)}
    upward = sorted(
        f"{module} -> {target} ({_unit(module)} may not import {_unit(target)})"
        for module, targets in _graph().items()
        for target in targets
        if rank[_unit(target)] > rank[_unit(module)]
    )
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def _private_imports(graph: dict[str, set[str]]) -> list[str]:
    """Edges into another package's private module (``localagentbench.x._y`` imported from
    outside package ``x``): a package's surface is its ``__init__``."""
    found = []
    for module, targets in graph.items():
        for target in targets:
            parts = target.split(".")
            if len(parts) < 3 or not any(p.startswith("_") for p in parts[2:]):
                continue
            owner = ".".join(parts[:2])
            if module != owner and not module.startswith(owner + "."):
                found.append(f"{module} -> {target}")
    return sorted(found)


def test_the_checks_catch_a_private_import_and_a_cycle() -> None:
    fake = {
        "localagentbench.cli._tables": {"localagentbench.report._format"},
        "localagentbench.report._format": {"localagentbench.report._load"},
        "localagentbench.report._load": {"localagentbench.report._format"},
    }
    assert _private_imports(fake) == [
        "localagentbench.cli._tables -> localagentbench.report._format"
    ]
    assert _cycle(fake) == [
        "localagentbench.report._format",
        "localagentbench.report._load",
        "localagentbench.report._format",
    ]


def test_no_import_of_another_packages_private_module() -> None:
    found = _private_imports(_graph())
    assert not found, "import the package, not its private module:\n" + "\n".join(found)


RECORDS_CONTRACT = {
    "_models",  # record.json, run.json and their parts' models
    "_parts",
    "_migrations",
    "_rundir",  # the run directory, atomic writes
    "_index",  # the trial index
    "_rows",  # the slim row the index stores
    "_summary",  # summary.json's schema
    "_judged",  # a judge session's files
    "_regrades",  # regrade-<stamp>.json
}
"""records/ holds the on-disk contract only; what is computed from it is results/."""


def test_records_exports_only_the_on_disk_contract() -> None:
    import localagentbench.records as records

    modules = {p.stem for p in (PACKAGE / "records").glob("_*.py")} - {"__init__"}
    assert modules <= RECORDS_CONTRACT, (
        f"not on-disk contract: {sorted(modules - RECORDS_CONTRACT)}"
    )
    for name in records.__all__:
        value = getattr(records, name)
        if not (isinstance(value, type) or inspect.isfunction(value)):
            continue  # a constant (a version, a file name) or a Literal alias
        owner = value.__module__
        assert owner.startswith("localagentbench.records."), (name, owner)
        assert owner.rsplit(".", 1)[1] in RECORDS_CONTRACT, (name, owner)
