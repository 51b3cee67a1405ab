"""Bodies and conserved quantities."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Vec = tuple[float, float]


@dataclass(frozen=True)
class Body:
    mass: float
    pos: Vec
    vel: Vec

    def __post_init__(self) -> None:
        if not self.mass > 0:
            raise ValueError(f"mass must be positive, got {self.mass}")


State = tuple[Body, ...]


def kinetic_energy(bodies: Sequence[Body]) -> float:
    return sum(0.5 * b.mass * (b.vel[0] ** 2 + b.vel[1] ** 2) for b in bodies)


def potential_energy(bodies: Sequence[Body], softening: float = 0.0) -> float:
    total = 0.0
    for i, a in enumerate(bodies):
        for b in bodies[i + 1 :]:
            dx = b.pos[0] - a.pos[0]
            dy = b.pos[1] - a.pos[1]
            total -= a.mass * b.mass / math.sqrt(dx * dx + dy * dy + softening * softening)
    return total


def total_energy(bodies: Sequence[Body], softening: float = 0.0) -> float:
    return kinetic_energy(bodies) + potential_energy(bodies, softening)


def momentum(bodies: Sequence[Body]) -> Vec:
    return (
        sum(b.mass * b.vel[0] for b in bodies),
        sum(b.mass * b.vel[1] for b in bodies),
    )


def center_of_mass(bodies: Sequence[Body]) -> Vec:
    m = sum(b.mass for b in bodies)
    return (
        sum(b.mass * b.pos[0] for b in bodies) / m,
        sum(b.mass * b.pos[1] for b in bodies) / m,
    )
