"""Interpreter-global state a snippet may set for itself, swapped out while grill measures.

Ordinary code configures the process it runs in: `warnings.filterwarnings("ignore")`,
`logging.basicConfig(...)`, `logging.disable(...)`, `contextlib.redirect_stdout(buffer)`. That
is the snippet's business while its own code runs; grill's measuring must not run under it
(a rebound `sys.stdout` whose `flush` is the snippet's, a record factory of its own). So
`guards.measuring` puts back the state taken before the snippet's code began, and the snippet's own
afterwards, for its code that runs on.
"""

from __future__ import annotations

import logging
import sys
import warnings
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class State:
    stdout: Any
    stderr: Any
    warning_filters: list[Any]
    logging_disabled: int
    record_factory: Any
    logger_class: type


def taken() -> State:
    return State(
        stdout=sys.stdout,
        stderr=sys.stderr,
        warning_filters=list(warnings.filters),
        logging_disabled=logging.root.manager.disable,
        record_factory=logging.getLogRecordFactory(),
        logger_class=logging.getLoggerClass(),
    )


def put(state: State) -> None:
    sys.stdout, sys.stderr = state.stdout, state.stderr
    filters: list[Any] = warnings.filters  # type: ignore[assignment]  # a list at run time
    filters[:] = state.warning_filters
    warnings._filters_mutated()  # type: ignore[attr-defined]  # what filterwarnings itself calls
    logging.root.manager.disable = state.logging_disabled
    logging.setLogRecordFactory(state.record_factory)
    logging.setLoggerClass(state.logger_class)


GRILLS: list[State] = []
"""The state as grill left it before the snippet's code began (`runtime.candidate_namespace`)."""


def swapped_for_grills() -> State | None:
    """Put grill's state back; the snippet's, to restore afterwards (None before any run)."""
    if not GRILLS:
        return None
    snippets = taken()
    put(GRILLS[0])
    return snippets
