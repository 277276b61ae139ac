import argparse

from .main import main

p = argparse.ArgumentParser(prog="python -m arcade_lab.app")
p.add_argument("game", nargs="?")
p.add_argument("--frames", type=int, default=0)
p.add_argument("--self-test", action="store_true")
raise SystemExit(main(p.parse_args()))
