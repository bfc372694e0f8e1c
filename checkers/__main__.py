"""`python -m checkers FILE`: the same options and output as `grill check FILE`."""

import argparse
import sys

from checkers.cli import add_check_arguments, run
from checkers.sandbox.ending import ending_cleanly


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m checkers",
        description="Grade a PyTorch training-loop snippet for retained autograd graphs.",
    )
    add_check_arguments(parser)
    args = parser.parse_args(argv)
    try:
        with ending_cleanly():
            return run(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
