"""grill's pytest plugin (registered as `pytest11` entry point `grill`), in the conventions of
pytest-memray: a marker, a fixture and a summary option.

- `@pytest.mark.no_graph_leak(steps=None, seconds=None, device="auto")`: the test's call is
  watched as `grill run` watches a script (its own training loop, nothing rewritten) and
  fails with grill's report when autograd graph keeps accumulating. `steps` or `seconds`
  end the test's loop there and judge what was seen.
- the `no_graph_leak` fixture: `with no_graph_leak(steps=50): train(model)` watches only
  that block (setup and checks around it are not watched).
- `--grill-report`: a summary section with each watched test's verdict.

Loaded by every pytest run where grill is installed, it imports neither torch nor the grader
until a test asks for one of these: a suite that does not use it pays nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from checkers.testing import Watched

MARKER = "no_graph_leak"
REPORT_OPTION = "--grill-report"


@dataclass(frozen=True)
class _Seen:
    """One watched test, for the summary."""

    nodeid: str
    verdict: str
    line: str


_SEEN = pytest.StashKey[list[_Seen]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("grill", "grill: autograd graph kept alive by training loops")
    group.addoption(
        REPORT_OPTION,
        action="store_true",
        default=False,
        help="add a summary of every test watched by grill (no_graph_leak marker or fixture)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(steps=None, seconds=None, device='auto'): fail the test when autograd"
        " graph keeps accumulating as its training loop runs (grill)",
    )
    config.stash[_SEEN] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return (yield)
    from checkers.testing import GraphLeak, watching

    try:
        with watching(*marker.args, **marker.kwargs) as watched:
            result = yield
    except GraphLeak as leak:
        _record(item.config, item.nodeid, leak.verdict)
        raise
    _record(item.config, item.nodeid, watched.verdict)
    return result


@pytest.fixture
def no_graph_leak(
    request: pytest.FixtureRequest,
) -> Callable[..., AbstractContextManager[Watched]]:
    """`with no_graph_leak(steps=None, seconds=None, device="auto"): train(model)`: that
    block's training loop watched, and the test failed with grill's report when autograd
    graph keeps accumulating in it. The block yields a `Watched`, whose `verdict` is set
    once the block is over."""
    from contextlib import contextmanager

    from checkers.testing import GraphLeak, watching

    @contextmanager
    def watch(
        steps: int | None = None, seconds: float | None = None, device: str = "auto"
    ) -> Generator[Watched, None, None]:
        try:
            with watching(steps, seconds, device) as watched:
                yield watched
        except GraphLeak as leak:
            _record(request.config, request.node.nodeid, leak.verdict)
            raise
        _record(request.config, request.node.nodeid, watched.verdict)

    return watch


def _record(config: pytest.Config, nodeid: str, verdict: object) -> None:
    from checkers.verdict import Verdict

    if not isinstance(verdict, Verdict):
        return
    memory = f"memory {verdict.pattern}" if verdict.pattern else "too few steps for a memory curve"
    line = f"{verdict.steps} steps, {memory}"
    if verdict.retained:
        held = verdict.retained[0]
        where = f" (line {held.line})" if held.line else ""
        total = int(verdict.extra.get("retained_total", len(verdict.retained)))
        others = f" and {total - 1} more" if total > 1 else ""
        line += f"; held by `{held.path}`{where}{others}"
    config.stash[_SEEN].append(_Seen(nodeid, verdict.verdict, line))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    config = terminalreporter.config
    if not config.getoption(REPORT_OPTION):
        return
    seen = config.stash.get(_SEEN, [])
    terminalreporter.section("grill: autograd graph per watched test")
    if not seen:
        terminalreporter.write_line("no test was watched (no_graph_leak marker or fixture)")
    for found in seen:
        terminalreporter.write_line(f"{found.verdict.upper():5}  {found.nodeid}: {found.line}")
