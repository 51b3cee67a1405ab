import math

import pytest

from orbitsim.bodies import Body, center_of_mass, momentum, total_energy
from orbitsim.integrate import accelerations, simulate
from orbitsim.systems import three_body_figure_eight, two_body


def test_two_body_initial_conditions():
    bodies = two_body(eccentricity=0.0)
    assert center_of_mass(bodies) == pytest.approx((0.0, 0.0))
    assert momentum(bodies) == pytest.approx((0.0, 0.0))
    # circular orbit, separation 1, total mass 1: E = -m1*m2/2
    assert total_energy(bodies) == pytest.approx(-0.125)


def test_accelerations_are_newtonian_and_symmetric():
    a, b = Body(2.0, (0.0, 0.0), (0.0, 0.0)), Body(1.0, (2.0, 0.0), (0.0, 0.0))
    (ax, ay), (bx, by) = accelerations([a, b])
    assert (ax, ay) == pytest.approx((0.25, 0.0))
    assert (bx, by) == pytest.approx((-0.5, 0.0))


def test_simulate_returns_every_state():
    path = simulate(two_body(), dt=0.1, steps=5)
    assert len(path) == 6
    assert path[0] == two_body()


def test_euler_energy_drifts():
    bodies = two_body(eccentricity=0.5)
    path = simulate(bodies, dt=0.01, steps=628, method="euler")
    assert abs(total_energy(path[-1]) - total_energy(bodies)) > 1e-3


def test_unknown_method():
    with pytest.raises(ValueError):
        simulate(two_body(), dt=0.1, steps=1, method="magic")


def test_verlet_conserves_energy():
    bodies = two_body(eccentricity=0.5)
    path = simulate(bodies, dt=0.01, steps=1257, method="verlet")
    e0 = total_energy(bodies)
    assert max(abs(total_energy(s) - e0) for s in path) < 1e-3 * abs(e0)


def test_figure_eight_with_verlet_runs():
    path = simulate(three_body_figure_eight(), dt=0.01, steps=100, method="verlet")
    assert all(math.isfinite(b.pos[0]) for b in path[-1])
