"""orbitsim: a tiny 2-D gravitational N-body simulator (G = 1)."""

__version__ = "0.2.0"
