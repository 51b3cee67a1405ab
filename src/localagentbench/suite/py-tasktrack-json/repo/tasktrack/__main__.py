import sys

from tasktrack.cli import main

sys.exit(main())
