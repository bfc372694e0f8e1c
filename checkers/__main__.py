"""`python -m checkers FILE`: the same options and output as `grill check FILE`."""

import argparse
import sys

from checkers.cli import add_check_arguments, run
from checkers.sandbox.ending import ending_cleanly
from checkers.streams import prepare_standard_streams


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m checkers",
        description="Grade a PyTorch training-loop snippet for retained autograd graphs.",
    )
    add_check_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:  # --help, or a usage error argparse has already explained
        return exit.code if isinstance(exit.code, int) else 2
    try:
        with ending_cleanly():
            return run(args)  # no exception of grill's own escapes it
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    prepare_standard_streams()
    sys.exit(main())
