"""The numbers a mock interview is asked for, each one `checkers.inputs.Range`: `grill mock`
parses them with it and `setup.build_session` checks them with it, for the command line and
the app's `m` key alike. Light on purpose: `grill --help` builds its parser from these."""

from __future__ import annotations

from checkers.inputs import Range

QUESTIONS = Range("the number of questions", 1, 100, whole=True)
MINUTES = Range("the time limit", 0, 24 * 60, unit="minutes", above_low=True)
SEED = Range("the seed", 0, 2**63 - 1, whole=True)
"""Any whole number SQLite and JSON hold exactly."""
