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
        ("_getattr_ = 1", '"_getattr_" is a name the sandbox uses for itself'),
        ("def f(_call_):\n    pass", '"_call_" is a name the sandbox uses for itself'),
        ("__builtins__['open']", '"__builtins__" is a name the sandbox uses for itself'),
        ("async def f():\n    pass", "'async def' is not available in the sandbox"),
        ("exec('1')", "'exec()' is not available in the sandbox"),
        ("from torch import *", "'from ... import *' is not available in the sandbox"),
        ("try:\n    pass\nexcept* ValueError:\n    pass", "'except*' is not available"),
    ],
    ids=[
        "guard-name",
        "guard-parameter",
        "builtins",
        "async",
        "exec",
        "star-import",
        "except-star",
    ],
)
def test_compile_time_refusals_are_only_the_sandboxs_own_names_and_constructs(source, message):
    """Names are judged by what they reach when the code runs; at compile time only the names
    grill's guards use, and constructs the sandbox does not offer, are refused."""
    with pytest.raises(Refused) as refused:
        policy.compile_candidate(source)
    assert message in refused.value.message
    assert refused.value.line is not None


@pytest.mark.parametrize(
    "source",
    [
        "import os",
        "import subprocess",
        "import pickle",
        "x = [].__class__.__name__",
        "class A:\n    def __del__(self):\n        pass",
        "class A:\n    def __reduce__(self):\n        return 1",
        "class A:\n    def __getattr__(self, name):\n        return 1",
        "class A:\n    __slots__ = ('_x', '__dict__')",
        "from __future__ import annotations",
        "if False:\n    import wandb",
    ],
)
def test_ordinary_code_compiles_whatever_its_underscores(source):
    policy.compile_candidate(source)


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
    with pytest.raises(Refused, match="'function.__globals__' is not available"):
        run("hasattr(lambda: 1, '__globals__')\n")


def test_a_closed_family_stays_closed_under_a_name_that_re_exports_it(monkeypatch):
    import torch

    monkeypatch.setattr(torch.nn.functional, "script_again", torch.jit.script, raising=False)
    assert identity.verified_home(torch.jit.script) == ("torch.jit._script", "script")
    with pytest.raises(Refused, match="'torch.nn.functional.script_again' is not available"):
        run("import torch.nn.functional as F\nF.script_again(print)\n")


def test_a_real_module_handed_back_by_torch_comes_only_as_its_proxy():
    namespace = run("import torch\nshown = repr(torch.get_device_module('cpu'))\n")
    assert namespace["shown"] == "<module 'torch.cpu' (sandboxed)>"
    namespace = run(
        "import torch\ncuda = torch.get_device_module('cuda')\nseen = cuda.is_available()\n"
    )
    assert namespace["seen"] in (True, False)


def test_a_modules_functions_cannot_be_replaced_but_its_plain_settings_can():
    with pytest.raises(Refused, match="'math.sqrt = ...' is not available"):
        run("import math\nmath.sqrt = print\n")
    namespace = run(
        "import torch\ntorch.backends.cudnn.benchmark = True\n"
        "torch.backends.cuda.matmul.allow_tf32 = True\nseen = torch.backends.cudnn.benchmark\n"
    )
    assert namespace["seen"] is True


def test_first_violation_in_reading_order_is_reported():
    with pytest.raises(Refused) as refused:
        policy.compile_candidate("x = 1\n_getiter_ = iter\nexec('1')\n")
    assert (refused.value.line, refused.value.message.split()[0]) == (2, '"_getiter_"')


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


def test_a_class_body_is_built_as_its_metaclass_builds_it():
    """An Enum's body needs the namespace its metaclass prepares; slots, any dunder, and
    `metaclass=` are the snippet's own business in its own class."""
    namespace = run(
        "import enum, abc\nclass Color(enum.Enum):\n    RED = 1\n    GREEN = enum.auto()\n"
        "class P:\n    __slots__ = ('a', '_b')\n"
        "class Base(metaclass=abc.ABCMeta):\n    @abc.abstractmethod\n    def f(self): ...\n"
        "p = P()\np.a, p._b = 1, 2\nseen = (Color.GREEN.value, p.a, p._b, type(Base).__name__)\n"
    )
    assert namespace["seen"] == (2, 1, 2, "ABCMeta")


def test_candidate_exceptions_become_candidate_errors():
    with pytest.raises(CandidateError) as error:
        run("def f(d):\n    return d['k']\n\nf({})\n")
    assert (error.value.kind, error.value.message, error.value.line) == ("KeyError", "'k'", 2)
    assert error.value.traceback.startswith("Traceback (most recent call last):")


def test_a_refusal_caught_by_the_candidate_is_still_reported():
    with pytest.raises(Refused) as refused:
        run("import torch\ntry:\n    torch.jit.script\nexcept BaseException:\n    pass\nx = 1\n")
    assert (refused.value.line, refused.value.message) == (
        3,
        "'torch.jit.script' is not available in the sandbox (compilation and TorchScript"
        " run code outside the policy and write generated files)",
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


def test_every_closed_family_and_module_says_why():
    assert all(reason for _, reason in tables.TORCH_CLOSED)
    assert all(tables.CLOSED_MODULES.values())
    assert tables.torch_reason("torch.hub.load") == "downloads, compiles or loads native code"
    assert tables.torch_reason("torch.nn.Linear") is None
    assert tables.torch_reason("torch.jit.is_scripting") is None


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


@pytest.mark.parametrize(
    "source",
    [
        "async def f():\n    pass",
        "async def f():\n    async for x in y:\n        pass",
        "async def f():\n    async with x:\n        pass",
        "async def f():\n    await x",
        "try:\n    pass\nexcept* ValueError:\n    pass",
        "exec('1')",
        "eval('1')",
        "from os import *",
        "_getattr_ = 1",
        "def f(_write_):\n    pass",
        "class _call_:\n    pass",
        "import x as _getiter_",
        "for _print in []:\n    pass",
    ],
)
def test_compile_time_refusals_speak_grills_words_not_restrictedpythons(source):
    with pytest.raises(Refused) as refused:
        policy.compile_candidate(source)
    message = refused.value.message
    assert "is not available in the sandbox" in message or "the sandbox uses for itself" in message
    for phrase in ("invalid", "statements are not allowed", "is not allowed", "restricted name"):
        assert phrase not in message, message


def test_an_augmented_target_that_is_not_safe_to_read_twice_is_evaluated_once():
    namespace = run(
        "class B:\n    def __init__(self):\n        self.buf = [0, 0]\n"
        "it = iter([1, 0])\nb = B()\nb.buf[next(it)] += 5\n"
        "objs = iter([b])\nnext(objs).buf[0] += 2\nleft = list(it)\n"
    )
    assert namespace["b"].buf == [2, 5]
    assert namespace["left"] == [0]
