"""Ordinary code that uses the standard library the way real training scripts do keeps
running under the policy: Enum's own hook names, a caught refusal handled like any other
exception, logging and output redirection of the snippet's own."""

from __future__ import annotations

import pytest

from checkers import policy
from checkers.policy import Refused, tables


def run(source: str) -> dict:
    compiled = policy.compile_candidate(source)
    namespace = policy.candidate_namespace(compiled)
    policy.run_candidate(compiled, namespace)
    return namespace


@pytest.mark.parametrize(
    "source,expected",
    [
        (
            "import enum\nclass C(enum.Enum):\n    A = 1\n"
            "    @classmethod\n    def _missing_(cls, value):\n        return cls.A\nout = C(5)",
            "C.A",
        ),
        (
            "import enum\nclass C(enum.Enum):\n    _ignore_ = ['tmp']\n    _order_ = 'A B'\n"
            "    A = 1\n    B = 2\nout = [m.name for m in C]",
            ["A", "B"],
        ),
        (
            "import enum\nclass C(enum.Enum):\n"
            "    def _generate_next_value_(name, start, count, last):\n"
            "        return name.lower()\n    A = enum.auto()\nout = C.A.value",
            "a",
        ),
    ],
    ids=["missing", "ignore-order", "generate-next-value"],
)
def test_enum_hook_names_are_the_snippets_own(source, expected):
    out = run(source)["out"]
    assert (str(out) if expected == "C.A" else out) == expected


def test_only_the_guards_own_names_are_reserved():
    compiled = policy.compile_candidate("x = 1")
    namespace = policy.candidate_namespace(compiled)
    guards = {name for name in namespace if name.startswith("_") and name.endswith("_")}
    guards -= {"__builtins__", "__name__", "__file__", "__doc__", "__metaclass__"}
    assert guards <= set(tables.GUARD_NAMES)
    assert not tables.RESERVED_NAME.fullmatch("_missing_")


@pytest.mark.parametrize(
    "handler",
    [
        "    out = [type(e).__name__, str(e)]\n",
        "    out = [type(e).__name__, str(e)]\n    raise\n",
        "    out = [type(e).__name__, str(e)]\n    raise RuntimeError('wrapped') from e\n",
    ],
    ids=["printed", "re-raised", "chained"],
)
def test_a_caught_refusal_is_an_exception_with_its_own_message(handler):
    source = "import subprocess\ntry:\n    subprocess.run(['ls'])\nexcept BaseException as e:\n"
    compiled = policy.compile_candidate(source + handler)
    namespace = policy.candidate_namespace(compiled)
    with pytest.raises(Refused) as refused:
        policy.run_candidate(compiled, namespace)
    reason = "'subprocess.run' is not available in the sandbox (starts processes)"
    assert refused.value.message == reason
    assert refused.value.line == 3
    assert namespace["out"] == ["Refused", f"line 3: {reason}"]


def test_a_caught_refusal_cannot_be_rewritten():
    source = (
        "import subprocess\ntry:\n    subprocess.run(['ls'])\nexcept BaseException as e:\n"
        "    e.message = 'nothing happened'\n"
    )
    compiled = policy.compile_candidate(source)
    namespace = policy.candidate_namespace(compiled)
    with pytest.raises(Refused) as refused:
        policy.run_candidate(compiled, namespace)
    assert "subprocess.run" in refused.value.message
