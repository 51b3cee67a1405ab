"""Held-out checks for the velocity Verlet integrator."""

import math

from orbitsim.bodies import Body, center_of_mass, momentum, total_energy
from orbitsim.integrate import simulate
from orbitsim.systems import three_body_figure_eight, two_body


def separation(state):
    a, b = state
    return (b.pos[0] - a.pos[0], b.pos[1] - a.pos[1])


def circular_error(dt, t_end=6.0):
    # circular orbit: the separation vector rotates at angular speed 1 from (1, 0)
    final = simulate(two_body(0.0), dt=dt, steps=round(t_end / dt), method="verlet")[-1]
    sx, sy = separation(final)
    return math.hypot(sx - math.cos(t_end), sy - math.sin(t_end))


def max_position_gap(a, b):
    return max(math.hypot(x.pos[0] - y.pos[0], x.pos[1] - y.pos[1]) for x, y in zip(a, b))


def test_second_order_convergence():
    ratio = circular_error(0.02) / circular_error(0.01)
    assert 3.5 < ratio < 4.5, f"halving dt divided the error by {ratio:.2f}, expected about 4"


def test_accurate_after_one_period():
    bodies = two_body(0.0)
    final = simulate(bodies, dt=0.001, steps=round(2 * math.pi / 0.001), method="verlet")[-1]
    assert max_position_gap(final, bodies) < 1e-3


def test_energy_error_stays_bounded_over_many_orbits():
    bodies = two_body(eccentricity=0.5)
    e0 = total_energy(bodies)
    path = simulate(bodies, dt=0.005, steps=round(20 * 2 * math.pi / 0.005), method="verlet")
    worst = max(abs(total_energy(s) - e0) for s in path[::25]) / abs(e0)
    assert worst < 5e-4


def test_time_reversible():
    start = three_body_figure_eight()
    end = simulate(start, dt=0.01, steps=500, method="verlet")[-1]
    flipped = tuple(Body(b.mass, b.pos, (-b.vel[0], -b.vel[1])) for b in end)
    back = simulate(flipped, dt=0.01, steps=500, method="verlet")[-1]
    assert max_position_gap(back, start) < 1e-9


def test_negative_dt_integrates_backwards():
    start = two_body(eccentricity=0.7, mass_ratio=3.0)
    end = simulate(start, dt=0.004, steps=800, method="verlet")[-1]
    back = simulate(end, dt=-0.004, steps=800, method="verlet")[-1]
    assert max_position_gap(back, start) < 1e-9


def test_momentum_and_centre_of_mass_conserved():
    start = three_body_figure_eight()
    path = simulate(start, dt=0.01, steps=1000, method="verlet")
    for state in path[::100]:
        px, py = momentum(state)
        assert abs(px) < 1e-12 and abs(py) < 1e-12
        cx, cy = center_of_mass(state)
        assert abs(cx) < 1e-9 and abs(cy) < 1e-9


def test_softening_is_honoured():
    bodies = two_body(eccentricity=0.9)
    e0 = total_energy(bodies, softening=0.3)
    path = simulate(bodies, dt=0.002, steps=6000, method="verlet", softening=0.3)
    worst = max(abs(total_energy(s, softening=0.3) - e0) for s in path[::20]) / abs(e0)
    assert worst < 1e-4


def test_single_body_moves_uniformly():
    lone = (Body(1.0, (1.0, 2.0), (0.5, -0.25)),)
    final = simulate(lone, dt=0.1, steps=10, method="verlet")[-1][0]
    assert math.isclose(final.pos[0], 1.5) and math.isclose(final.pos[1], 1.75)
    assert final.vel == (0.5, -0.25)
