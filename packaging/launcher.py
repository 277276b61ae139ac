"""Entry point of the bundled app (same as the `arcade-lab` console script)."""
import sys

from arcade_lab.cli import main

if __name__ == "__main__":
    import multiprocessing

    multiprocessing.freeze_support()  # the app trains agents in spawned processes; a frozen bundle needs this
    sys.exit(main())
