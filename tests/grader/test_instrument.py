"""Every loop a snippet runs gets the grader's tick, and the snippet's lines stay its own."""

import ast

from checkers.measure.instrument import TICK, instrument


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


def test_comprehensions_are_expressions_and_get_no_tick():
    tree = instrument(ast.parse("xs = [model(x) for x in data]\n"))
    assert TICK not in ast.unparse(tree)
