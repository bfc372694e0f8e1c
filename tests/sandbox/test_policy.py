"""The policy layer in-process (no sandbox): what the grader relies on when it compiles,
instruments and runs a snippet, and the compile-time refusals."""

from __future__ import annotations

import ast

import pytest

from checkers import policy
from checkers.policy import CandidateError, Refused, identity, tables


def run(source: str, extra: dict | None = None, transform=None, **options) -> dict:
    compiled = policy.compile_candidate(source, transform=transform)
    namespace = policy.candidate_namespace(compiled, extra, **options)
    policy.run_candidate(compiled, namespace)
    return namespace


@pytest.mark.parametrize(
    "source,message",
    [
        ("import os", "'os' is not available in the sandbox"),
        ("import inspect", "'inspect' is not available in the sandbox"),
        ("import pickle", "'pickle' is not available in the sandbox (unpickling runs code)"),
        ("x = y.__dict__", '"__dict__" is an invalid attribute name'),
        ("def __del__(self):\n    pass", '"__del__" is an invalid variable name'),
        ("class A:\n    def __reduce__(self):\n        return 1", '"__reduce__" is an invalid'),
        (
            "class A:\n    def f(self):\n        def __init__():\n            pass",
            '"__init__" is an invalid variable name',
        ),
        ("_getattr_ = 1", '"_getattr_" is an invalid variable name'),
        ("async def f():\n    pass", "AsyncFunctionDef statements are not allowed"),
    ],
    ids=[
        "os",
        "inspect",
        "pickle",
        "dict",
        "del-at-top",
        "reduce",
        "nested-init",
        "underscore",
        "async",
    ],
)  # one underscore is the snippet's own; RestrictedPython's names stay closed
def test_compile_time_refusals(source, message):
    with pytest.raises(Refused) as refused:
        policy.compile_candidate(source)
    assert message in refused.value.message
    assert refused.value.line is not None


def test_typing_offers_annotations_but_not_evaluation():
    run(
        "from typing import List, Optional\ndef f(x: List[int]) -> Optional[int]:\n"
        "    return x[0] if x else None\n"
    )
    with pytest.raises(Refused, match="'typing.get_type_hints' is not available"):
        run("import typing\ntyping.get_type_hints(print, {})\n")


def test_hasattr_follows_the_attribute_rules():
    namespace = run(
        "import torch\nnet = torch.nn.Linear(2, 2)\n"
        "found = [hasattr(net, 'weight'), hasattr(net, 'missing')]\n"
    )
    assert namespace["found"] == [True, False]
    with pytest.raises(Refused, match="'Linear.__dict__' is not available"):
        run("import torch\nhasattr(torch.nn.Linear(2, 2), '__dict__')\n")


def test_a_closed_family_stays_closed_under_a_name_that_re_exports_it(monkeypatch):
    import torch

    monkeypatch.setattr(torch.nn.functional, "script_again", torch.jit.script, raising=False)
    assert identity.home(torch.jit.script) == "torch.jit._script.script"
    with pytest.raises(Refused, match="'torch.nn.functional.script_again' is not available"):
        run("import torch.nn.functional as F\nF.script_again(print)\n")


def test_a_real_module_handed_back_by_torch_comes_only_as_an_allowed_proxy():
    with pytest.raises(Refused, match="'torch.cpu' is not available"):
        run("import torch\ntorch.get_device_module('cpu').amp\n")
    namespace = run(
        "import torch\ncuda = torch.get_device_module('cuda')\nseen = cuda.is_available()\n"
    )
    assert namespace["seen"] in (True, False)


def test_module_attributes_cannot_be_replaced():
    with pytest.raises(Refused, match="'math.pi = ...' is not available"):
        run("import math\nmath.pi = 3\n")


def test_first_violation_in_reading_order_is_reported():
    with pytest.raises(Refused) as refused:
        policy.compile_candidate("x = 1\ny = ().__class__.__base__\nimport os\n")
    assert (refused.value.line, refused.value.message.split()[0]) == (2, '"__class__"')


def test_import_gives_a_proxy_but_classes_and_tensors_are_real():
    import torch

    namespace = run(
        "import torch\nfrom torch import nn\nclass Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(2, 2)\nnet = Net()\nt = torch.ones(2)\n"
    )
    assert isinstance(namespace["torch"], identity.ModuleProxy)
    assert isinstance(namespace["net"], torch.nn.Module)
    assert type(namespace["t"]) is torch.Tensor


def test_grader_transform_runs_after_the_policy_and_keeps_lines():
    calls = []

    def add_probe(tree: ast.Module) -> ast.Module:
        probe = ast.Expr(ast.Call(ast.Name("__grill_probe__", ast.Load()), [], []))
        tree.body.insert(1, ast.copy_location(probe, tree.body[1]))
        return tree

    with pytest.raises(CandidateError) as error:
        run("x = 1\ny = 2\nz = 1 / 0\n", {"__grill_probe__": lambda: calls.append(1)}, add_probe)
    assert calls == [1]
    assert error.value.line == 3


def test_a_candidate_exception_that_claims_to_be_control_flow_is_still_the_candidates():
    with pytest.raises(CandidateError) as error:
        run("class Stop(Exception):\n    grill_control = True\n\nraise Stop('early')\n")
    assert (error.value.kind, error.value.message, error.value.line) == ("Stop", "early", 4)


def test_a_dataclass_rebuilt_with_slots_is_still_the_candidates_class():
    # dataclass(slots=True) returns a new class; it must not pass for grader control flow.
    with pytest.raises(CandidateError) as error:
        run(
            "from dataclasses import dataclass\n@dataclass(slots=True)\n"
            "class Stop(Exception):\n    grill_control = True\n    step: int = 0\n\n"
            "raise Stop(3)\n"
        )
    assert (error.value.kind, error.value.line) == ("Stop", 7)


def test_slots_are_literal_public_names_in_a_class_body():
    namespace = run("class P:\n    __slots__ = ('a', 'b')\n\np = P()\np.a, p.b = 1, 2\n")
    assert (namespace["p"].a, namespace["p"].b) == (1, 2)
    for source in (
        "class A:\n    __slots__ = ('__dict__',)",
        "class A:\n    __slots__ = names",
        "__slots__ = ('a',)",
        "class A:\n    def f(self):\n        __slots__ = ('a',)",
    ):
        with pytest.raises(Refused, match='"__slots__" is an invalid variable name'):
            policy.compile_candidate(source)


def test_candidate_exceptions_become_candidate_errors():
    with pytest.raises(CandidateError) as error:
        run("def f(d):\n    return d['k']\n\nf({})\n")
    assert (error.value.kind, error.value.message, error.value.line) == ("KeyError", "'k'", 2)
    assert error.value.traceback.startswith("Traceback (most recent call last):")


def test_a_refusal_caught_by_the_candidate_is_still_reported():
    with pytest.raises(Refused) as refused:
        run("import torch\ntry:\n    torch.save\nexcept BaseException:\n    pass\nx = 1\n")
    assert (refused.value.line, refused.value.message) == (
        3,
        "'torch.save' is not available in the sandbox",
    )


def test_print_is_capped_with_a_note(capsys):
    run("print('a' * 50)\nprint('more')\n", print_limit=10)
    out = capsys.readouterr().out
    assert out.startswith("a" * 10 + "\n[output truncated after 10 characters]")
    assert "more" not in out


def test_imports_not_made_by_a_candidate_import_statement_return_no_module():
    namespace = policy.candidate_namespace(policy.compile_candidate("x = 1"))
    importer = namespace["__builtins__"]["__import__"]
    assert importer("json") is None


def test_every_allowed_module_resolves_and_denied_families_have_reasons():
    for name in tables.ALLOWED_MODULES:
        assert isinstance(identity.import_proxy(name), identity.ModuleProxy)
    assert all(reason for _, reason in tables.DENIED)
    assert tables.denial_reason("torch.load") == "unpickling runs arbitrary code"
    assert tables.denial_reason("torch.nn.Linear") is None


def test_what_the_policy_hands_out_names_nothing_of_grill():
    namespace = run(
        "from torch.utils.data import DataLoader\nfrom dataclasses import dataclass\n"
        "shown = [repr(print), repr(open), repr('{}'.format), repr(str.format_map),"
        " repr(DataLoader), repr(dataclass)]\n"
    )
    assert namespace["shown"][0] == "<built-in function print>"
    assert namespace["shown"][1].startswith("<function open at ")
    assert namespace["shown"][2].startswith("<function str.format at ")
    assert namespace["shown"][3].startswith("<function str.format_map at ")
    assert namespace["shown"][4] == "<class 'torch.utils.data.DataLoader'>"
    assert namespace["shown"][5].startswith("<function dataclass at ")
