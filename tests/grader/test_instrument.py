"""Every loop a snippet runs gets the grader's tick, and the snippet's lines stay its own."""

import ast

from checkers.measure.instrument import EACH, ENTER, LEAVE, LOOP, TICK, instrument


def ticks(source: str) -> list[tuple[int, int]]:
    """(line of the loop, line the tick names) for every tick inserted."""
    tree = instrument(ast.parse(source))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.While)):
            first = node.body[0]
            assert isinstance(first, ast.Expr) and first.value.func.id == TICK
            found.append((node.lineno, first.value.args[0].value))
    return sorted(found)


def test_every_loop_ticks_with_its_own_line_wherever_it_is():
    source = (
        "for epoch in range(3):\n"  # 1
        "    for x in data:\n"  # 2
        "        loss = f(x)\n"
        "def evaluate():\n"  # 4
        "    while more():\n"  # 5
        "        out = model(x)\n"
        "class Trainer:\n"  # 7
        "    def fit(self):\n"
        "        for step in range(9):\n"  # 9
        "            pass\n"
    )
    assert ticks(source) == [(1, 1), (2, 2), (5, 5), (9, 9)]


def test_the_tick_is_the_first_statement_and_lines_do_not_move():
    tree = instrument(ast.parse("for i in range(2):\n    a = 1\n    b = 2\n"))
    loop = tree.body[0]
    assert [statement.lineno for statement in loop.body] == [1, 2, 3]
    compile(tree, "<test>", "exec")


def test_comprehensions_and_generator_expressions_are_loops_too():
    """`kept = [train_step() for _ in range(300)]` runs 300 training steps: each item is an
    iteration (this test once said comprehensions get no tick: they are loops)."""
    source = "xs = [model(x) for x in data]\ns = sum(f(x) for x in xs)\nd = {k: f(k) for k in ks}\n"
    text = ast.unparse(instrument(ast.parse(source)))
    assert f"for x in {LOOP}(1, data, True)" in text
    assert f"for x in {LOOP}(2, xs, True)" in text
    assert f"for k in {LOOP}(3, ks, True)" in text


def test_a_for_loop_marks_its_pass_through_its_iterable():
    text = ast.unparse(instrument(ast.parse("for x in data:\n    f(x)\n")))
    assert f"for x in {LOOP}(1, data, False):" in text


def test_a_while_loop_marks_its_pass_around_it():
    tree = instrument(ast.parse("while more():\n    f()\n"))
    enter, guarded = tree.body
    assert ast.unparse(enter) == f"{ENTER}(1)"
    assert isinstance(guarded, ast.Try) and ast.unparse(guarded.finalbody[0]) == f"{LEAVE}(1)"


def test_the_iterables_of_map_filter_and_reduce_are_loops_when_the_callee_is_the_real_one():
    source = "r = list(map(step, range(3)))\nfunctools.reduce(g, it, 0)\nfilter(p, xs)\n"
    text = ast.unparse(instrument(ast.parse(source)))
    assert f"map(step, {EACH}(1, map, range(3)))" in text
    assert f"functools.reduce(g, {EACH}(2, functools.reduce, it), 0)" in text
    assert f"filter(p, {EACH}(3, filter, xs))" in text
