"""One module per `grill` subcommand, each exposing `run(args) -> int`.

Modules here are imported only when their command runs, so `grill --help` stays fast and
never imports torch or Textual.
"""
