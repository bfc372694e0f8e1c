"""Capabilities closed by what they are, not by the name they were reached under: a string
formatter walks only what the snippet may read however it was reached (an attribute,
`vars(str)`, `inspect.getmembers`, a subclass of str, logging's `{` style)."""

from __future__ import annotations

import abc
import importlib
import logging
import string
import sys
import types
import warnings

import pytest

from checkers import policy
from checkers.policy import Refused, descriptors, identity, tables
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


@pytest.mark.parametrize(
    "source",
    [
        "import codecs\ncodecs.open(0, 'rb')",
        "import gzip\ngzip.GzipFile(0, 'rb')",
        "import tokenize\ntokenize.open(0)",
    ],
    ids=["codecs", "gzipfile", "tokenize"],
)
def test_no_stdlib_path_opens_a_raw_descriptor(source):
    with pytest.raises(Refused, match="raw file descriptors"):
        run(source)


def test_stdlib_file_helpers_still_open_files_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = run(
        "import codecs, gzip, tokenize, logging, tempfile\n"
        "with codecs.open('a.txt', 'w', 'utf-8') as f:\n    f.write('x = 1\\n')\n"
        "with gzip.open('a.gz', 'wt') as f:\n    f.write('zipped')\n"
        "handler = logging.FileHandler('run.log')\nhandler.close()\n"
        "with tempfile.TemporaryFile(dir='.') as spare:\n    spare.write(b'spare')\n"
        "with tokenize.open('a.txt') as f:\n    source = f.read()\n"
        "out = [source, gzip.open('a.gz', 'rt').read()]"
    )
    assert namespace["out"] == ["x = 1\n", "zipped"]


def kinds_found(value: object) -> list[str]:
    """Which of the capability kinds above `value` is, judged without asking grill."""
    found = []
    if value is descriptors.REAL_OPEN or value is descriptors.REAL_OS_OPEN:
        found.append("a real opener, which opens any path and raw descriptors")
    if any(value is getattr(str, name) for name in ("format", "format_map")) or (
        type(value) is types.BuiltinMethodType
        and isinstance(value.__self__, str)
        and value.__name__ in ("format", "format_map")
    ):
        found.append("an unpoliced string formatter")
    if isinstance(value, types.MethodType) and value.__func__ is abc.ABCMeta.register:
        found.append("an ABC registry writer bound to a class grill did not let the snippet own")
    if value is logging.StrFormatStyle or value is string.Formatter:
        found.append("a formatter class that walks templates unguarded")
    return found


def test_no_open_module_hands_out_a_capability_of_these_kinds():
    """Every name of every open standard-library module, and every attribute of its classes,
    as the snippet would get it (through `identity.admit`): none is one of the kinds."""
    policy.candidate_namespace(policy.compile_candidate("x = 1"))  # the stand-ins installed
    seen = []
    for name in sorted(tables.OPEN_STDLIB):
        module = importlib.import_module(name)
        for attribute in dir(module):
            values = [getattr(module, attribute, None)]
            if isinstance(values[0], type):
                values += [getattr(values[0], member, None) for member in dir(values[0])]
            for value in values:
                try:
                    held = identity.admit(value)
                except Refused:
                    continue
                found = kinds_found(held)
                if found:
                    seen.append((f"{name}.{attribute}", found))
    assert seen == []


def test_no_stdlib_code_holds_a_real_opener():
    """The openers open stdlib code calls itself, wherever it keeps them (a module's global, a
    class attribute, `io.open`, `os.open`), are the checked ones."""
    policy.candidate_namespace(policy.compile_candidate("x = 1"))
    real = (descriptors.REAL_OPEN, descriptors.REAL_OS_OPEN)
    held = [
        f"{name}.{key}"
        for name in sorted(tables.STDLIB_HOMES | {"builtins", "os"})
        if name in sys.modules
        for key, value in vars(sys.modules[name]).items()
        if any(value is opener for opener in real)
        or isinstance(value, type)
        and any(kept is opener for kept in vars(value).values() for opener in real)
    ]
    assert held == []


OUTSIDE_PATHS = [
    "import argparse\nargparse.FileType('r')(SECRET)",
    "import codecs\ncodecs.open(SECRET).read()",
    "import gzip\ngzip.open(SECRET).read()",
    "import bz2\nbz2.open(SECRET).read()",
    "import lzma\nlzma.open(SECRET).read()",
    "import tokenize\ntokenize.open(SECRET).read()",
    "import logging\nlogging.FileHandler(SECRET + '.log')",
    "import logging.handlers\nlogging.handlers.RotatingFileHandler(SECRET + '.log')",
    "import pathlib\npathlib.Path(SECRET).read_text()",
    "import shutil\nshutil.copyfile(SECRET, 'here.txt')",
    "import configparser\nconfigparser.ConfigParser().read(SECRET)",
    "import zipfile\nzipfile.ZipFile(SECRET)",
    "import tempfile, os\ntempfile.mkstemp(dir=os.path.dirname(SECRET))",
    "import codecs, json\ncodecs.open(json.__file__, 'a')",
]


@pytest.mark.parametrize("source", OUTSIDE_PATHS, ids=lambda s: s.split("\n")[1][:30])
def test_no_stdlib_path_opens_a_file_outside_the_runs_folder(source, tmp_path, monkeypatch):
    """Whichever open module opens it, by whichever real opener: a path outside the run's
    folder is refused as the snippet's own `open` refuses it (a write to library code too)."""
    (tmp_path / "run").mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("[host]\nkey = 1\n")
    monkeypatch.chdir(tmp_path / "run")
    with pytest.raises(Refused, match="files outside the run's folder"):
        run(f"SECRET = {str(secret)!r}\n{source}")


@pytest.mark.parametrize("opener", ["fileinput.input", "shelve.open", "dbm.open"])
def test_stdlib_modules_that_open_files_in_c_or_unpickle_stay_closed(opener):
    with pytest.raises(Refused, match="not available"):
        run(f"import {opener.split('.')[0]}\n{opener}('x')")


def test_pickle_writes_as_torch_save_does_and_never_reads(tmp_path, monkeypatch):
    """A script pickling its log (wgan-gp's `tflib.plot`) runs: `pickle.dump` and `dumps` walk
    the objects as `torch.save` does. Reading a pickle runs code, and a Pickler of the
    snippet's own would be handed every object the walk reaches: refused by name."""
    monkeypatch.chdir(tmp_path)
    namespace = run(
        "import pickle\n"
        "log = {'disc cost': {0: 1.5, 1: 1.25}}\n"
        "with open('log.pkl', 'wb') as f:\n"
        "    pickle.dump(log, f, pickle.HIGHEST_PROTOCOL)\n"
        "size = len(pickle.dumps(log))\n"
    )
    assert namespace["size"] == (tmp_path / "log.pkl").stat().st_size
    for use in ("load(open('log.pkl', 'rb'))", "loads(b'')", "Unpickler", "Pickler", "_loads"):
        with pytest.raises(Refused, match=f"'pickle.{use.split('(')[0]}' is not available"):
            run(f"import pickle\npickle.{use}\n")


def test_files_in_the_runs_folder_and_library_code_open_as_usual(tmp_path, monkeypatch):
    """Logging to a file, `argparse.FileType`, pathlib and shutil in the run's folder; reading
    library source as inspect, linecache and tokenize do for tracebacks and warnings."""
    monkeypatch.chdir(tmp_path)
    namespace = run(
        "import argparse, inspect, json, logging, pathlib, platform, shutil, tokenize, warnings\n"
        "platform.platform()\n"
        "pathlib.Path('in.txt').write_text('data')\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--data', type=argparse.FileType('r'))\n"
        "args = parser.parse_args(['--data', 'in.txt'])\n"
        "log = logging.getLogger('run')\nlog.propagate = False\n"
        "handler = logging.FileHandler('run.log')\nlog.addHandler(handler)\n"
        "log.warning('step 1')\nhandler.close()\n"
        "shutil.copyfile('in.txt', 'copy.txt')\n"
        "source = inspect.getsource(json.dumps)\n"
        "with tokenize.open(json.__file__) as f:\n    first = f.readline()\n"
        "out = [args.data.read(), open('run.log').read(), open('copy.txt').read(),"
        " source.startswith('def dumps'),"
        " first.strip() in warnings.formatwarning('m', UserWarning, json.__file__, 1)]"
    )
    assert namespace["out"] == ["data", "step 1\n", "data", True, True]


def test_getmembers_reads_only_what_the_snippet_may_read():
    namespace = run(
        "import inspect, torch\n"
        "loss = (torch.ones(2, requires_grad=True) * 2).sum()\n"
        "names = [name for name, _ in inspect.getmembers(loss.grad_fn)]\n"
        "class Net:\n    width = 3\n"
        "threes = inspect.getmembers(Net(), lambda v: v == 3)\n"
        "out = ['metadata' in names, 'name' in names, dict(inspect.getmembers(Net))['width'],"
        " [n for n, _ in threes]]"
    )
    assert namespace["out"] == [False, True, 3, ["width"]]
