"""Time integration of the N-body equations of motion."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from orbitsim.bodies import Body, State, Vec


def accelerations(bodies: Sequence[Body], softening: float = 0.0) -> list[Vec]:
    """Gravitational acceleration of every body (G = 1), pairwise and symmetric."""
    acc = [[0.0, 0.0] for _ in bodies]
    eps2 = softening * softening
    for i, a in enumerate(bodies):
        for j in range(i + 1, len(bodies)):
            b = bodies[j]
            dx = b.pos[0] - a.pos[0]
            dy = b.pos[1] - a.pos[1]
            inv_r3 = 1.0 / (dx * dx + dy * dy + eps2) ** 1.5
            acc[i][0] += b.mass * dx * inv_r3
            acc[i][1] += b.mass * dy * inv_r3
            acc[j][0] -= a.mass * dx * inv_r3
            acc[j][1] -= a.mass * dy * inv_r3
    return [(ax, ay) for ax, ay in acc]


def euler_step(bodies: State, dt: float, softening: float = 0.0) -> State:
    """Explicit (forward) Euler: first order, energy drifts. Kept for teaching."""
    acc = accelerations(bodies, softening)
    return tuple(
        Body(
            b.mass,
            (b.pos[0] + dt * b.vel[0], b.pos[1] + dt * b.vel[1]),
            (b.vel[0] + dt * a[0], b.vel[1] + dt * a[1]),
        )
        for b, a in zip(bodies, acc)
    )


Stepper = Callable[[State, float, float], State]

METHODS: dict[str, Stepper] = {
    "euler": euler_step,
}


def simulate(
    bodies: Sequence[Body],
    dt: float,
    steps: int,
    method: str = "euler",
    softening: float = 0.0,
) -> list[State]:
    """Advance ``steps`` steps of size ``dt``; return every state, the initial one first."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {sorted(METHODS)}")
    if not (math.isfinite(dt) and dt != 0):
        raise ValueError(f"dt must be a finite non-zero number, got {dt}")
    if steps < 0:
        raise ValueError("steps must be >= 0")
    step = METHODS[method]
    state: State = tuple(bodies)
    path = [state]
    for _ in range(steps):
        state = step(state, dt, softening)
        path.append(state)
    return path
