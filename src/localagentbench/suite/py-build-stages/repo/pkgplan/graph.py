"""Dependency graph operations over a parsed manifest."""

from __future__ import annotations

import heapq

from pkgplan.manifest import Package


class MissingDependencyError(ValueError):
    """A package requires something the manifest does not define."""

    def __init__(self, package: str, dependency: str) -> None:
        super().__init__(f"{package} requires {dependency}, which is not in the manifest")
        self.package = package
        self.dependency = dependency


def dependencies(packages: dict[str, Package]) -> dict[str, list[str]]:
    """Effective edges: required deps plus optional deps that exist."""
    edges: dict[str, list[str]] = {}
    for name, pkg in packages.items():
        deps = []
        for dep in pkg.requires:
            if dep not in packages:
                raise MissingDependencyError(name, dep)
            deps.append(dep)
        deps.extend(dep for dep in pkg.optional if dep in packages)
        edges[name] = sorted(set(deps))
    return edges


def build_order(packages: dict[str, Package]) -> list[str]:
    """Topological order, dependencies first; ties broken alphabetically."""
    edges = dependencies(packages)
    waiting = {name: len(deps) for name, deps in edges.items()}
    users: dict[str, list[str]] = {name: [] for name in edges}
    for name, deps in edges.items():
        for dep in deps:
            users[dep].append(name)
    ready = [name for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        name = heapq.heappop(ready)
        order.append(name)
        for user in users[name]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, user)
    if len(order) != len(edges):
        raise ValueError("dependency cycle")
    return order


def build_stages(packages: dict[str, Package]) -> list[list[str]]:
    """Group packages into stages that can be built in parallel."""
    raise NotImplementedError("build_stages is not implemented yet")
