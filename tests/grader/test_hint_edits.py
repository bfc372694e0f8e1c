"""A hint's edit runs what the snippet wrote exactly as often as the snippet does: a dict
rebuilt with a key detached evaluates the dict once, whatever expression builds it."""

import ast

import pytest
import torch

from checkers.judge.edits import key_detached


def evaluated(code: str, keys: list[str], scope: dict) -> dict:
    expression = ast.Expression(key_detached(ast.parse(code, mode="eval").body, keys))
    return eval(compile(ast.fix_missing_locations(expression), "<hint>", "eval"), scope)


@pytest.mark.parametrize(
    "code",
    ["{k: make(k) for k in names}", "build(names)", "stats"],
    ids=["comprehension", "call", "name"],
)
def test_the_dict_is_evaluated_once_and_only_the_named_key_is_detached(code):
    calls = []

    def make(key):
        calls.append(key)
        return torch.ones(1, requires_grad=True) * 2

    def build(names):
        return {k: make(k) for k in names}

    names = ["loss", "acc"]
    scope = {"make": make, "build": build, "names": names, "stats": build(names)}
    calls.clear()
    value = evaluated(code, ["'loss'"], scope)
    assert calls == ([] if code == "stats" else names)
    assert value["loss"].grad_fn is None
    assert value["acc"].grad_fn is not None
