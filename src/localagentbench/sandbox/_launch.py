"""Entry script of the in-jail launcher (``python -E -s -S -B _launch.py CONFIG -- ARGV``).

A script run as ``__main__`` is compiled from source on every start; a module it imports is
loaded from its cached bytecode. This stub keeps the launcher itself (`_launcher`) a module,
saving its compile time in every trial.
"""

import sys

import _launcher  # type: ignore[import-not-found]  # the script's folder is on sys.path

sys.exit(_launcher.main(sys.argv[1:]))
