"""The compiler's settings modules import, as real scripts import them at the top; the
compiler itself stays closed and is refused where it is used, at its line. What a snippet sets
is its own (nothing compiles), and torch's real settings, which eager code reads, stay as they
are."""

from __future__ import annotations

import importlib

import pytest

from checkers import policy
from checkers.policy import Refused


def run(source: str) -> dict:
    compiled = policy.compile_candidate(source)
    namespace = policy.candidate_namespace(compiled)
    policy.run_candidate(compiled, namespace)
    return namespace


def test_settings_modules_import_and_keep_what_the_snippet_sets():
    real = importlib.import_module("torch._dynamo.config")
    before = real.cache_size_limit
    namespace = run(
        "import torch\n"
        "import torch._inductor.config as config\n"
        "from torch._functorch import config as functorch_config\n"
        "import torch._dynamo.config\n"
        "import torch.compiler.config\n"
        "config.coordinate_descent_tuning = True\n"
        "config.triton.unique_kernel_names = True\n"
        "torch._dynamo.config.cache_size_limit = 64\n"
        "functorch_config.donated_buffer = False\n"
        "tuning = config.coordinate_descent_tuning\n"
        "nested = config.triton.unique_kernel_names\n"
        "limit = torch._dynamo.config.cache_size_limit\n"
    )
    assert (namespace["tuning"], namespace["nested"], namespace["limit"]) == (True, True, 64)
    assert real.cache_size_limit == before


@pytest.mark.parametrize(
    "use,subject",
    [
        ("model = torch.compile(model)", "torch.compile"),
        ("model = torch._dynamo.optimize('eager')(model)", "torch._dynamo.optimize"),
        ("model.compile()", "compile"),
        ("fx = torch._inductor.compile_fx", "torch._inductor.compile_fx"),
    ],
    ids=["torch.compile", "dynamo.optimize", "Module.compile", "inductor-function"],
)
def test_the_compiler_is_refused_where_it_is_used_with_its_line(use, subject):
    source = (
        "import torch\n"
        "import torch._inductor.config as config\n"
        "config.coordinate_descent_tuning = True\n"
        "model = torch.nn.Linear(2, 2)\n"
        "if True:\n"
        f"    {use}\n"
    )
    with pytest.raises(Refused) as refused:
        run(source)
    assert subject in refused.value.message
    assert "compilation" in refused.value.message
    assert refused.value.line == 6


def test_a_compile_flag_left_off_costs_nothing():
    namespace = run(
        "import torch\n"
        "import torch._inductor.config as config\n"
        "compile = False\n"
        "model = torch.nn.Linear(2, 2)\n"
        "if compile:\n"
        "    config.coordinate_descent_tuning = True\n"
        "    model = torch.compile(model)\n"
        "out = model(torch.ones(1, 2)).sum()\n"
    )
    assert namespace["out"].requires_grad


@pytest.mark.parametrize(
    "source,subject",
    [
        (
            "config.post_grad_custom_pass = lambda g: g",
            "torch._inductor.config.post_grad_custom_pass",
        ),
    ],
    ids=["a-function"],
)
def test_a_setting_holds_only_a_plain_value(source, subject):
    with pytest.raises(Refused) as refused:
        run(f"import torch._inductor.config as config\n{source}\n")
    assert subject in str(refused.value)
