"""``python -m localagentbench``."""

from localagentbench.cli import main

if __name__ == "__main__":
    main()
