"""`python -m checkers FILE`: the same options and output as `grill check FILE`."""

import argparse
import sys

from checkers.cli import add_check_arguments, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m checkers",
        description="Grade a PyTorch training-loop snippet for retained autograd graphs.")
    add_check_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
