"""Entry point of the bundled app (same as the `arcade-lab` console script)."""
import sys

from engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
