"""Capabilities closed by what they are, not by the name they were reached under: a string
formatter walks only what the snippet may read however it was reached (an attribute,
`vars(str)`, `inspect.getmembers`, a subclass of str, logging's `{` style)."""

from __future__ import annotations

import logging
import sys
import warnings

import pytest

from checkers import policy
from checkers.policy import Refused
from checkers.policy.standins import stand_in

WALK = "{0.__globals__}"
FRAME_WALK = "{msg.f_globals}"


def run(source: str) -> dict:
    compiled = policy.compile_candidate(source)
    namespace = policy.candidate_namespace(compiled)
    policy.run_candidate(compiled, namespace)
    return namespace


@pytest.mark.parametrize(
    "source",
    [
        f"def f(): pass\nout = '{WALK}'.format(f)",
        f"def f(): pass\nout = vars(str)['format']('{WALK}', f)",
        "def f(): pass\nout = str.__dict__['format_map']('{f.__globals__}', {'f': f})",
        f"import inspect\ndef f(): pass\nout = dict(inspect.getmembers('{WALK}'))['format'](f)",
        f"class S(str): pass\ndef f(): pass\nout = S('{WALK}').format(f)",
        f"import string\ndef f(): pass\nout = string.Formatter().format('{WALK}', f)",
        "import logging, inspect\n"
        f"formatter = logging.Formatter('{FRAME_WALK}', style='{{', validate=False)\n"
        "record = logging.LogRecord('x', 20, 'p', 1, inspect.currentframe(), None, None)\n"
        "out = formatter.format(record)",
        "import logging, inspect\n"
        f"style = logging.StrFormatStyle('{FRAME_WALK}')\n"
        "record = logging.LogRecord('x', 20, 'p', 1, inspect.currentframe(), None, None)\n"
        "out = style.format(record)",
    ],
    ids=[
        "attribute",
        "vars",
        "class-dict-format-map",
        "getmembers",
        "str-subclass",
        "string-formatter",
        "logging-brace-style",
        "logging-str-format-style",
    ],
)
def test_a_formatter_reached_any_way_walks_only_what_the_snippet_may_read(source):
    with pytest.raises(Refused):
        run(source)


def test_formatting_that_reads_only_open_attributes_still_works():
    namespace = run(
        "import logging, io\n"
        "class Point:\n    x = 3\n"
        "stream = io.StringIO()\n"
        "handler = logging.StreamHandler(stream)\n"
        "handler.setFormatter(logging.Formatter('{levelname}:{msg}', style='{'))\n"
        "log = logging.getLogger('mine')\nlog.addHandler(handler)\nlog.propagate = False\n"
        "log.warning('loss %.2f', 0.5)\n"
        "out = ['{0.x} {1:.3f}'.format(Point(), 0.25), vars(str)['format']('{}', 1),"
        " stream.getvalue()]"
    )
    assert namespace["out"] == ["3 0.250", "1", "WARNING:loss %.2f\n"]


@pytest.mark.parametrize(
    "source",
    [
        "import collections.abc\nclass X:\n    pass\ncollections.abc.Mapping.register(X)",
        "import numbers\nclass X:\n    pass\nnumbers.Number.register(X)",
        "import abc, collections.abc\nclass X:\n    pass\n"
        "abc.ABCMeta.register(collections.abc.Sequence, X)",
        "import abc, collections.abc\nclass X:\n    pass\n"
        "abc._abc_register(collections.abc.Sequence, X)",
    ],
    ids=["mapping", "number", "unbound", "c-level"],
)
def test_an_abc_the_snippet_did_not_define_keeps_its_registry(source):
    with pytest.raises(Refused, match="isinstance says of classes the snippet did not define"):
        run(source)


def test_the_snippets_own_abc_registers_what_it_likes():
    namespace = run(
        "import abc\nclass Shape(abc.ABC):\n    pass\nclass Square:\n    pass\n"
        "Shape.register(Square)\nabc.ABCMeta.register(Shape, int)\n"
        "out = [isinstance(Square(), Shape), isinstance(3, Shape)]"
    )
    assert namespace["out"] == [True, True]


def test_grill_measures_under_its_own_interpreter_state_and_the_snippet_keeps_its_own():
    """What the snippet set for the process (warnings, logging, a stdout redirected into its
    own buffer) is put aside while grill measures, and back for its code that runs on."""
    seen: dict[str, object] = {}

    def measure_now() -> None:
        with policy.measuring():
            seen["stdout"] = sys.stdout
            seen["disabled"] = logging.root.manager.disable
            seen["filters"] = list(warnings.filters)

    before = (sys.stdout, logging.root.manager.disable, list(warnings.filters))
    compiled = policy.compile_candidate(
        "import contextlib, io, logging, warnings\n"
        "warnings.simplefilter('ignore')\nlogging.disable(logging.CRITICAL)\n"
        "buffer = io.StringIO()\n"
        "with contextlib.redirect_stdout(buffer):\n"
        "    measure_now()\n    print('mine')\n"
        "out = [buffer.getvalue(), logging.root.manager.disable]"
    )
    namespace = policy.candidate_namespace(compiled, {"measure_now": stand_in(measure_now)})
    try:
        policy.run_candidate(compiled, namespace)
    finally:
        logging.disable(logging.NOTSET)
        warnings.filters[:] = before[2]
    assert (seen["stdout"], seen["disabled"], seen["filters"]) == before
    assert namespace["out"] == ["mine\n", logging.CRITICAL]
