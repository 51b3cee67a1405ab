"""Ready-made initial conditions."""

from __future__ import annotations

import math

from orbitsim.bodies import Body, State


def two_body(eccentricity: float = 0.0, mass_ratio: float = 1.0) -> State:
    """Two bodies of total mass 1 on a Kepler orbit with semi-major axis 1 (period 2*pi).

    The bodies start at apoapsis on the x axis, the centre of mass at rest at
    the origin.
    """
    if not 0.0 <= eccentricity < 1.0:
        raise ValueError("eccentricity must be in [0, 1)")
    m1 = 1.0 / (1.0 + mass_ratio)
    m2 = 1.0 - m1
    r = 1.0 + eccentricity  # separation at apoapsis
    v = math.sqrt((1.0 - eccentricity) / (1.0 + eccentricity))  # relative speed there
    return (
        Body(m1, (-m2 * r, 0.0), (0.0, -m2 * v)),
        Body(m2, (m1 * r, 0.0), (0.0, m1 * v)),
    )


def three_body_figure_eight() -> State:
    """The Chenciner-Montgomery figure-eight choreography (equal masses)."""
    p = (0.97000436, -0.24308753)
    v = (0.466203685, 0.43236573)
    return (
        Body(1.0, p, (v[0] / 2, v[1] / 2)),
        Body(1.0, (-p[0], -p[1]), (v[0] / 2, v[1] / 2)),
        Body(1.0, (0.0, 0.0), (-v[0], -v[1])),
    )
