"""The escape suite: hostile snippets, each with the exact verdict it must get, and each
checked for effects (canary files, the loopback listener, the parent's secret, processes
left behind): the classic ways out of a Python sandbox, and those torch adds."""

from __future__ import annotations

import pytest
from isolation_modes import in_modes
from sandbox_witness import SNIPPET, process_tree, worker_pid

REFUSED = [
    (
        "raw-frame-through-a-lambda-parameter",
        "import traceback, itertools, inspect\n"
        "list(itertools.starmap(lambda f, n: inspect.getargvalues(f), traceback.walk_stack(None)))",
        "frames, code and closures",
    ),
    (
        "type-of-a-torch-object-is-not-the-snippets-class",
        "import torch\ntype(torch.nn.Linear(1, 1)).forward = print",
        "changing a class the snippet did not define",
    ),
    (
        "descriptor-get-of-the-step-stamps",
        "import torch\nx = torch.ones(1, requires_grad=True)\nnode = (x * 2).grad_fn\n"
        "type(node).metadata.__get__(node)['grill_step'] = 0",
        "the grader stamps each autograd node",
    ),
    (
        "class-pattern-reads-the-step-stamps",
        "import torch\nx = torch.ones(1, requires_grad=True)\nmatch (x * 2).grad_fn:\n"
        "    case object(metadata=m):\n        m['grill_step'] = 0",
        "a class pattern reads it unguarded",
    ),
    (
        "own-frame-globals",
        "import inspect\ninspect.currentframe().f_globals['_getattr_']",
        "a frame's globals",
    ),
    (
        "own-frame-code",
        "import inspect\ninspect.currentframe().f_code",
        "code objects run outside the policy",
    ),
    ("import-os", "import os\nos.system('touch {canary}')", "'os.system' is not available"),
    (
        "import-subprocess",
        "import subprocess\nsubprocess.run(['touch', '{canary}'])",
        "'subprocess.run' is not available",
    ),
    ("import-socket", "import socket\nsocket.socket()", "'socket.socket' is not available"),
    (
        "import-importlib",
        "import importlib\nimportlib.import_module('os')",
        "'importlib.import_module' is not available",
    ),
    (
        "import-builtins",
        "import builtins\nbuiltins.open('{canary}', 'w')",
        "'builtins.open' is not available",
    ),
    (
        "import-threading",
        "import threading\nthreading.Thread(target=print).start()",
        "'threading.Thread' is not available",
    ),
    (
        "torch.threading",
        "import torch\ntorch.threading.Thread(target=print).start()",
        "'torch.threading' is not available",
    ),
    (
        "from-torch-import-os",
        "from torch import os\nos.system('touch {canary}')",
        "'torch.os' is not available",
    ),
    (
        "torch.os",
        "import torch\n\nx = 1\ntorch.os.system('touch {canary}')",
        "'torch.os' is not available",
    ),
    (
        "torch.sys",
        "import torch\ntorch.sys.modules['os'].system('touch {canary}')",
        "'torch.sys' is not available",
    ),
    (
        "torch.builtins",
        "import torch\ntorch.builtins.open('{canary}', 'w')",
        "'torch.builtins' is not available",
    ),
    ("torch.ctypes", "import torch\ntorch.ctypes.CDLL(None)", "'torch.ctypes' is not available"),
    (
        "torch.inspect",
        "import torch\ntorch.inspect.currentframe()",
        "'torch.inspect' is not available",
    ),
    (
        "F.torch",
        "import torch.nn.functional as F\nF.torch.os.system('touch {canary}')",
        "'torch.nn.functional.torch' is not available",
    ),
    (
        "F.importlib",
        "import torch.nn.functional as F\nF.importlib.import_module('os')",
        "'torch.nn.functional.importlib' is not available",
    ),
    (
        "module-walk",
        "import torch\ntorch.nn.modules.module.torch.os",
        "'torch.nn.modules.module.torch' is not available",
    ),
    (
        "scheduler-walk",
        "from torch.optim import lr_scheduler\nlr_scheduler.types.FunctionType",
        "'torch.optim.lr_scheduler.types' is not available",
    ),
    (
        "collect-env-run",
        "import torch\ntorch.utils.collect_env.run('touch {canary}')",
        "'torch.utils.collect_env' is not available",
    ),
    (
        "ops-load-library",
        "import torch\ntorch.ops.load_library('/tmp/evil.so')",
        "'torch.ops' is not available",
    ),
    (
        "classes-load-library",
        "import torch\ntorch.classes.load_library('/tmp/evil.so')",
        "'torch.classes' is not available",
    ),
    (
        "cpp-extension",
        "import torch\ntorch.utils.cpp_extension.load_inline('x', 'int f();')",
        "'torch.utils.cpp_extension' is not available",
    ),
    (
        "hub-local",
        "import torch\ntorch.hub.load('/', 'evil', source='local')",
        "'torch.hub' is not available",
    ),
    (
        "torch.load",
        "import torch\ntorch.load('{canary}', weights_only=False)",
        "'torch.load(weights_only=False)' is not available",
    ),
    (
        "torch.from_file",
        "import torch\ntorch.from_file('{canary}', shared=True, size=8)",
        "'torch.from_file' is not available",
    ),
    (
        "storage-from-file",
        "import torch\ntorch.UntypedStorage.from_file('{canary}', True, 8)",
        "'torch.UntypedStorage' is not available",
    ),
    (
        "torchscript-from-file",
        "import torch\ncu = torch.jit.CompilationUnit('def f(): return torch.ops.aten.from_file(\"x\")')",
        "'torch.jit.CompilationUnit' is not available",
    ),
    (
        "torch.compile",
        "import torch\ntorch.compile(lambda x: x + 1)(torch.ones(2))",
        "'torch.compile' is not available",
    ),
    (
        "module-compile",
        "import torch\ntorch.nn.Linear(2, 2).compile()",
        "'Linear.compile' is not available",
    ),
    (
        "numpy-tofile",
        "import torch\ntorch.ones(3).numpy().tofile('{canary}')",
        "'Tensor.numpy' is not available",
    ),
    (
        "untyped-storage",
        "import torch\ntorch.ones(3).untyped_storage()",
        "'Tensor.untyped_storage' is not available",
    ),
    (
        "share-memory",
        "import torch\ntorch.ones(3).share_memory_()",
        "'Tensor.share_memory_' is not available",
    ),
    (
        "multiprocessing",
        "import torch\ntorch.multiprocessing.Process(target=print).start()",
        "'torch.multiprocessing' is not available",
    ),
    (
        "dataloader-workers-through-a-property",
        "from torch.utils.data import DataLoader\nclass L(DataLoader):\n    @property\n    def num_workers(self):\n        return 4\n    @num_workers.setter\n    def num_workers(self, value):\n        pass\n    @property\n    def prefetch_factor(self):\n        return 2\n    @prefetch_factor.setter\n    def prefetch_factor(self, value):\n        pass\nfor batch in L(list(range(8))):\n    pass",
        "'DataLoader.num_workers' is not available",
    ),
    (
        "set-num-threads",
        "import torch\ntorch.set_num_threads(64)",
        "'torch.set_num_threads' is not available",
    ),
    (
        "torchscript-compilation-unit",
        "import torch\ncu = torch.CompilationUnit('def f():\\n    return torch.from_file(\"{canary}\", True, 8)\\n')\ncu.f()",
        "'torch.CompilationUnit' is not available",
    ),
    (
        "torchscript-parse-ir",
        "import torch\ntorch.parse_ir('graph(%a : Tensor):\\n  return (%a)')",
        "'torch.parse_ir' is not available",
    ),
    (
        "torchscript-fork-threads",
        "import torch\nimport time\nfor i in range(64):\n    torch.fork(time.sleep, 60)",
        "'torch.fork' is not available",
    ),
    (
        "throughput-benchmark-threads-and-profile-file",
        "import torch\nconfig = torch.BenchmarkConfig()\nconfig.num_calling_threads = 16\nconfig.profiler_output_path = '{canary}'\ntorch.ThroughputBenchmark(torch.nn.Linear(2, 2)).benchmark(config)",
        "'torch.BenchmarkConfig' is not available",
    ),
    (
        "cuda-graph-debug-dump",
        "import torch\ng = torch.cuda.CUDAGraph()\ng.debug_dump('{canary}')",
        "'torch.cuda.CUDAGraph' is not available",
    ),
    (
        "pluggable-allocator-loads-a-library",
        "import torch\ntorch.cuda.CUDAPluggableAllocator('libc.so.6', 'malloc', 'free')",
        "'torch.cuda.CUDAPluggableAllocator' is not available",
    ),
    (
        "device-module-is-read-through-the-policy",
        "import torch\ntorch.get_device_module('cuda').CUDAPluggableAllocator",
        "'torch.cuda.CUDAPluggableAllocator' is not available",
    ),
    (
        "no-grad-trampoline",
        "import torch\ndef f():\n    import os\n    return os.system('touch {canary}')\ntorch.no_grad()(f)()",
        "'os.system' is not available",
    ),
    (
        "hook-trampoline",
        "import torch\nx = torch.ones(2, requires_grad=True)\ndef hook(grad):\n    from torch import os\n    os.system('touch {canary}')\n    return grad\nx.register_hook(hook)\n(x * 2).sum().backward()",
        "'torch.os' is not available",
    ),
    (
        "forged-step-stamp",
        "import torch\nx = torch.ones(1, requires_grad=True)\n(x * 2).grad_fn.metadata['grill_step'] = 10 ** 9",
        "'MulBackward0.metadata' is not available",
    ),
    (
        "swallowed-refusal",
        "import torch\ntry:\n    torch.os\nexcept Exception:\n    pass\nresult = 'ran on'",
        "'torch.os' is not available",
    ),
    (
        "format-attribute",
        "'{0.__class__.__init__.__globals__}'.format(1)",
        "'function.__globals__' is not available",
    ),
    (
        "format-map",
        "str.format_map('{x.__globals__}', {'x': lambda: 1})",
        "'function.__globals__' is not available",
    ),
    (
        "format-on-str-subclass",
        "class S(str):\n    pass\nS.format('{0.__globals__}', lambda: 1)",
        "'function.__globals__' is not available",
    ),
    (
        "format-map-on-str-subclass",
        "class S(str):\n    pass\nS.format_map('{x.__globals__}', {'x': lambda: 1})",
        "'function.__globals__' is not available",
    ),
    (
        "format-through-super",
        "class S(str):\n    def f(self):\n        return super().format(lambda: 1)\nS('{0.__globals__}').f()",
        "'function.__globals__' is not available",
    ),
    (
        "format-nested-spec",
        "'{0:{1.__globals__}}'.format(1, lambda: 1)",
        "'function.__globals__' is not available",
    ),
    (
        "format-frame",
        "import traceback\n'{0[0]}'.format(list(traceback.walk_stack(None))[-1])",
        "frames, code and closures",
    ),
    (
        "generator-frame",
        "def g():\n    yield 1\ng().gi_frame.f_back.f_globals",
        "a frame's globals",
    ),
    ("exec", "exec('import os')", "'exec()' is not available"),
    ("eval", "eval('1')", "'eval()' is not available"),
    ("compile-builtin", "compile('1', 'x', 'eval')", "'compile()' is not available"),
    ("getattr-string", "import torch\ngetattr(torch, 'os')", "'torch.os' is not available"),
    (
        "secret-env",
        "import torch\nprint(torch.os.environ['{secret_name}'])",
        "'torch.os' is not available",
    ),
    (
        "monkeypatch-torch",
        "import torch\ntorch.nn.Module.forward = print",
        "changing a class the snippet did not define",
    ),
    (
        "dataclass-on-torch",
        "import torch\nfrom dataclasses import dataclass\ndataclass(torch.nn.Module)",
        "'dataclass(Module)' is not available",
    ),
    (
        "cudnn-not-a-bool",
        "import torch\ntorch.backends.cudnn.benchmark = 'yes'",
        "'torch.backends.cudnn.benchmark = ...' is not available",
    ),
    ("print-to-file", "print('x', file=None or [])", "'print(file=...)' is not available"),
    ("relative-import", "from . import something", "'relative import' is not available"),
    (
        "traceback-frame-walk",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    e.__traceback__.tb_frame.f_globals",
        "a frame's globals",
    ),
    (
        "submodule-by-from-import-fallback",
        "from torch.nn import modules\nfrom torch.optim import optimizer\noptimizer.torch.os",
        "'torch.optim.optimizer.torch' is not available",
    ),
    (
        "proxy-retarget-by-object-setattr",
        "import torch\nobject.__setattr__(torch, '__name__', 'os')",
        "'torch.__name__ = ...' is not available",
    ),
    (
        "proxy-retarget-through-module-setattr",
        "import torch\ntorch.nn.Module.__setattr__(torch, 'x', 1)",
        "is not available",
    ),
    (
        "type-setattr-monkeypatch",
        "import torch\ntype.__setattr__(torch.nn.Module, 'forward', print)",
        "changing a class the snippet did not define",
    ),
    (
        "enum-global-enum",
        "import enum\n@enum.global_enum\nclass E(enum.Enum):\n    A = 1",
        "'enum.global_enum' is not available",
    ),
    (
        "enum-claims-a-home",
        "import enum\nE = enum.Enum('E', 'A', module='types', qualname='SimpleNamespace')\nE.__init__.__globals__",
        "'function.__globals__' is not available",
    ),
    (
        "sys-modules",
        "import sys\nsys.modules['os'].system('touch {canary}')",
        "'sys.modules' is not available",
    ),
    (
        "setrecursionlimit",
        "import sys\nsys.setrecursionlimit(10 ** 6)",
        "'sys.setrecursionlimit' is not available",
    ),
    ("gc-objects", "import gc\ngc.get_objects()", "'gc.get_objects' is not available"),
    ("gc-referrers", "import gc\ngc.collect()\ngc.get_referrers(1)", "'gc.get_referrers' is not"),
    ("gc-freeze", "import gc\ngc.collect()\ngc.unfreeze()", "'gc.unfreeze' is not available"),
    (
        "global-hook-table",
        "import torch\nh = torch.nn.modules.module.register_module_forward_hook(lambda *a: None)\nh.hooks_dict_ref().clear()",
        "interpreter-global state",
    ),
    (
        "optimizer-hook-table",
        "import torch\nfrom torch.optim import optimizer\nh = optimizer.register_optimizer_step_pre_hook(lambda *a: None)\nh.hooks_dict_ref().clear()",
        "interpreter-global state",
    ),
    (
        "inspect-frames",
        "import traceback\n[f for f, _ in traceback.walk_stack(None)]",
        "frames, code and closures",
    ),
    ("inspect-stack", "import inspect\ninspect.stack()[0].frame.f_globals", "a frame's globals"),
    ("raw-fd-open", "open(3, 'w')", "'open(3)' is not available"),
    ("os-write-fd", "import os\nos.write(3, b'x')", "'os.write' is not available"),
    ("os-fork", "import os\nos.fork()", "'os.fork' is not available"),
    ("os-kill-parent", "import os\nos.kill(1, 9)", "'os.kill' is not available"),
    ("symlink-out", "import os\nos.symlink('/', 'root')", "'os.symlink' is not available"),
    (
        "logging-config-imports-anything",
        "import logging.config\nlogging.config.dictConfig({'version': 1})",
        "'logging.config.dictConfig' is not available",
    ),
    (
        "attrgetter-globals",
        "import operator\noperator.attrgetter('__globals__')(lambda: 1)",
        "'function.__globals__' is not available",
    ),
    (
        "methodcaller-reduce",
        "import operator, torch\noperator.methodcaller('__reduce_ex__', 2)(torch.nn.Linear(1, 1))",
        "'Linear.__reduce_ex__' is not available",
    ),
    (
        "object-getattribute-globals",
        "object.__getattribute__(lambda: 1, '__globals__')",
        "'function.__globals__' is not available",
    ),
    (
        "closure-cells",
        "def outer():\n    x = 1\n    return lambda: x\nouter().__closure__",
        "'function.__closure__' is not available",
    ),
    ("code-object", "(lambda: 1).__code__", "'function.__code__' is not available"),
    (
        "builtins-of-a-function",
        "(lambda: 1).__builtins__",
        "'function.__builtins__' is not available",
    ),
    (
        "traceback-module-frames",
        "import traceback\ntry:\n    1 / 0\nexcept Exception as e:\n    list(traceback.walk_tb(e.__traceback__))[0][0].f_globals",
        "a frame's globals",
    ),
    (
        "match-capture-globals",
        "f = lambda: 1\nmatch f:\n    case object(__globals__=g):\n        g['x']",
        "a class pattern reads it unguarded",
    ),
    (
        "star-args-smuggle",
        "import traceback\ndef take(*xs):\n    return xs\ntake(*list(traceback.walk_stack(None))[-1])",
        "frames, code and closures",
    ),
    (
        "decorator-result",
        "import traceback\ndef dec(f):\n    return list(traceback.walk_stack(None))[-1]\n@dec\ndef g():\n    pass\ng[0]",
        "frames, code and closures",
    ),
    (
        "with-enter-result",
        "import traceback, contextlib\n@contextlib.contextmanager\ndef cm():\n    yield list(traceback.walk_stack(None))[-1]\nwith cm() as found:\n    found[0]",
        "frames, code and closures",
    ),
    (
        "callback-parameter",
        "import traceback\nsorted([1, 2], key=lambda x: list(traceback.walk_stack(None))[-1][0])",
        "frames, code and closures",
    ),
    ("reserved-guard-name", "_getiter_ = iter", "is a name the sandbox uses for itself"),
    (
        "torch-distributed-connect",
        "import torch.distributed as dist\ndist.init_process_group('gloo', init_method='tcp://127.0.0.1:1', rank=0, world_size=1)",
        "'torch.distributed.init_process_group' is not available",
    ),
    (
        "timeit-strings",
        "import timeit\ntimeit.timeit('import os')",
        "'timeit.timeit' is not available",
    ),
    ("io-fileio-fd", "import io\nio.FileIO(3, 'w')", "'io.FileIO' is not available"),
    (
        "typing-get-type-hints",
        "import typing\nclass A:\n    x: 'int'\ntyping.get_type_hints(A)",
        "'typing.get_type_hints' is not available",
    ),
    (
        "metaclass-call-returns-a-torch-class",
        "import torch\nclass M(type):\n    def __new__(m, *a):\n        return torch.Tensor\n"
        "T = M('X', (), {})\nT.data_ptr = print",
        "changing a class the snippet did not define",
    ),
    (
        "class-statement-metaclass-returns-a-torch-class",
        "import torch\nclass M(type):\n    def __new__(m, *a, **k):\n        return torch.nn.Module\n"
        "class X(metaclass=M):\n    pass\nX.zero_grad = print",
        "changing a class the snippet did not define",
    ),
    (
        "new-class-through-a-metaclass-that-returns-a-torch-class",
        "import types, torch\nclass M(type):\n    def __new__(m, *a, **k):\n        return torch.nn.Module\n"
        "X = types.new_class('X', (), {'metaclass': M})\nX.zero_grad = print",
        "changing a class the snippet did not define",
    ),
    (
        "copyreg",
        "import copyreg\ncopyreg.dispatch_table",
        "'copyreg.dispatch_table' is not available",
    ),
]

OUTSIDE_FILES = [
    ("torch.save", "import torch\ntorch.save(torch.ones(2), '{canary}')"),
    ("open-write", "open('{canary}', 'w').write('x')"),
    ("pathlib-outside", "import pathlib\nopen(pathlib.Path('{canary}'), 'w')"),
    ("makedirs-outside", "import os\nos.makedirs('{canary}-dir')"),
]
"""Writes to a file outside the run's folder (the witness's canary). Without bubblewrap the
policy refuses them; with it, the run's folder is the box's own /tmp and the canary's folder
is not even there."""

HELD = [
    (
        "own-frames-for-hyperparameters",
        "import inspect\nclass H:\n    def save(self):\n        frame = inspect.currentframe().f_back\n"
        "        _, _, _, local_vars = inspect.getargvalues(frame)\n"
        "        self.hparams = {k: v for k, v in local_vars.items() if k != 'self'}\n"
        "class Model(H):\n    def __init__(self, lr=0.1, width=8):\n        self.save()\n"
        "result = Model().hparams",
        "ok",
    ),
    (
        "the-stack-is-the-snippets-own",
        "import inspect\ndef f():\n    frame, depth = inspect.currentframe(), 0\n"
        "    while frame is not None:\n        frame, depth = frame.f_back, depth + 1\n"
        "    return depth, len(inspect.stack())\nresult = f()",
        "ok",
    ),
    ("namespace-dict-through-globals-view", "g = globals()\ng['__builtins__']", "error"),
    ("dunder-import", "__import__('os').system('touch {canary}')", "error"),
    ("collect-env-import", "import torch.utils.collect_env", "ok"),
    (
        "dataloader-workers",
        "import torch\nfrom torch.utils.data import DataLoader\nfor batch in DataLoader(list(range(8)), num_workers=4):\n    pass",
        "ok",
    ),
    (
        "dataloader-workers-by-position",
        "from torch.utils.data import DataLoader\nfor batch in DataLoader(list(range(8)), 2, False, None, None, 3):\n    pass",
        "ok",
    ),
    (
        "dataloader-workers-later",
        "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2])\nloader.num_workers = 2",
        "ok",
    ),
    ("subclasses-walk", "().__class__.__bases__[0].__subclasses__()", "ok"),
    (
        "traceback-frame",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    tb = e.__traceback__",
        "ok",
    ),
    ("type-three-args", "X = type('X', (), {})", "ok"),
    ("globals", "globals()['__builtins__']", "error"),
    ("vars", "vars()", "ok"),
    ("dunder-getattr-method", "class A:\n    def __getattr__(self, name):\n        return 1", "ok"),
    ("metaclass", "class M(type):\n    pass\nclass A(metaclass=M):\n    pass", "ok"),
    (
        "classes-made-through-the-snippets-metaclass-are-its-own",
        "class M(type):\n    def describe(cls):\n        return cls.__name__\n"
        "class A(metaclass=M):\n    pass\nA.x = 1\nB = M('B', (), {})\nB.x = 1\n"
        "assert B.describe() == 'B'",
        "ok",
    ),
    (
        "classes-made-by-factories-are-the-snippets-own",
        "import types, dataclasses, collections, enum\nX = types.new_class('X', ())\nX.y = 1\n"
        "D = dataclasses.make_dataclass('D', ['a'])\nD.y = 1\nP = collections.namedtuple('P', 'a')\n"
        "P.y = 1\nC = enum.Enum('C', 'RED GREEN')\nC.y = 1",
        "ok",
    ),
    ("dataclass-asdict", "from dataclasses import asdict", "ok"),
    ("cudnn-other-switch", "import torch\ntorch.backends.cudnn.enabled = False", "ok"),
    ("backends-other", "import torch\ntorch.backends.mkldnn", "ok"),
    ("distributions-submodule", "import torch\ntorch.distributions.kl.os", "error"),
    ("slots-dunder", "class A:\n    __slots__ = ('__dict__',)", "ok"),
]
"""Code that once read as an attack and is ordinary now (or reaches nothing): it runs,
or fails as it would under plain Python (`status`), and changes nothing."""


@pytest.mark.parametrize(
    "either_sandbox,source,fragment", in_modes(REFUSED), indirect=["either_sandbox"]
)
def test_hostile_snippet_is_refused_and_changes_nothing(either_sandbox, witness, source, fragment):
    """With bubblewrap and without it (every entry with it, a sample without it: the policy
    decides, the same code in both modes, `isolation_modes`): the policy is the wall a machine
    without bubblewrap relies on."""
    baseline = process_tree(worker_pid(either_sandbox))
    outcome = either_sandbox.run(SNIPPET, {"source": witness.fill(source)})
    assert outcome.status == "refused", (outcome.error, outcome.output)
    assert fragment in outcome.error.message
    assert outcome.error.line is not None
    witness.assert_untouched(outcome, either_sandbox, baseline)


@pytest.mark.parametrize(
    "either_sandbox,source,status", in_modes(HELD), indirect=["either_sandbox"]
)
def test_code_that_reaches_nothing_runs_and_changes_nothing(
    either_sandbox, witness, source, status
):
    """Ordinary code that an underscore rule once refused: it runs (or fails as it would under
    plain Python), and touches no canary, listener, secret or process."""
    baseline = process_tree(worker_pid(either_sandbox))
    outcome = either_sandbox.run(SNIPPET, {"source": witness.fill(source)})
    assert outcome.status == status, (outcome.error, outcome.output)
    witness.assert_untouched(outcome, either_sandbox, baseline)


@pytest.mark.parametrize("source", [s for _, s in OUTSIDE_FILES], ids=[n for n, _ in OUTSIDE_FILES])
def test_a_file_outside_the_runs_folder_is_never_written(
    either_sandbox, process_sandbox, witness, source
):
    baseline = process_tree(worker_pid(either_sandbox))
    outcome = either_sandbox.run(SNIPPET, {"source": witness.fill(source)})
    if either_sandbox is process_sandbox:
        assert outcome.status == "refused", (outcome.error, outcome.output)
        assert "files outside the run's folder" in outcome.error.message
    else:  # the box's /tmp is the run's folder; the canary's folder is not in the box
        assert outcome.status in ("refused", "error", "ok"), (outcome.error, outcome.output)
    witness.assert_untouched(outcome, either_sandbox, baseline)


def test_refusal_names_the_construct_and_the_candidate_line(sandbox):
    outcome = sandbox.run(SNIPPET, {"source": "import torch\n\n\n\n\n\nx = torch.os\n"})
    assert (outcome.error.kind, outcome.error.line) == ("refused", 7)
    assert outcome.error.message == (
        "'torch.os' is not available in the sandbox"
        " (a module reached through another module's globals)"
    )


def test_infinite_loop_times_out_and_leaves_nothing(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = sandbox.run(SNIPPET, {"source": "while True:\n    pass"}, timeout_s=1.5)
    assert outcome.status == "timeout"
    assert outcome.wall_s < 5
    witness.assert_untouched(outcome, sandbox, baseline)


@pytest.mark.parametrize(
    "source",
    [
        "x = [0] * (10 ** 10)",
        "import torch\nx = torch.empty(10 ** 11)",
        "hoard = []\nwhile True:\n    hoard.append([0] * 10 ** 7)",
    ],
    ids=["list", "tensor", "gradual"],
)
def test_memory_bomb_hits_the_memory_limit(sandbox, witness, source):
    baseline = process_tree(worker_pid(sandbox))
    outcome = sandbox.run(SNIPPET, {"source": source})
    assert (outcome.status, outcome.error.kind) == ("limit", "memory")
    witness.assert_untouched(outcome, sandbox, baseline)


def test_print_of_100_megabytes_is_cut_cheaply(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = sandbox.run(SNIPPET, {"source": "print('x' * 100_000_000)\nresult = 'done'"})
    assert outcome.status == "ok" and outcome.result == {"result": "done"}
    assert len(outcome.output) < 2 * sandbox.limits.output_bytes
    assert "[output truncated after" in outcome.output
    witness.assert_untouched(outcome, sandbox, baseline)


def test_print_flood_loop_ends_in_a_timeout_with_capped_output(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = sandbox.run(SNIPPET, {"source": "while True:\n    print('y' * 1000)"}, timeout_s=1.5)
    assert outcome.status == "timeout"
    assert len(outcome.output) < 2 * sandbox.limits.output_bytes
    witness.assert_untouched(outcome, sandbox, baseline)


def test_recursion_bomb_is_an_error_at_the_candidates_line(sandbox, witness):
    baseline = process_tree(worker_pid(sandbox))
    outcome = sandbox.run(SNIPPET, {"source": "def f(n):\n    return f(n + 1)\n\nf(0)"})
    assert (outcome.status, outcome.error.kind, outcome.error.line) == (
        "error",
        "RecursionError",
        2,
    )
    witness.assert_untouched(outcome, sandbox, baseline)


def test_c_stack_overflow_is_a_crash_at_the_candidates_line(either_sandbox, witness):
    """Hashing deeply nested tuples recurses in C with no recursion check: the run dies of
    SIGSEGV, and faulthandler's dump still names the candidate's line (and nothing else)."""
    baseline = process_tree(worker_pid(either_sandbox))
    source = "x = ()\nfor i in range(10 ** 6):\n    x = (x,)\n\nresult = hash(x)"
    outcome = either_sandbox.run(SNIPPET, {"source": source, "filename": "/home/me/loop.py"})
    assert (outcome.status, outcome.error.kind, outcome.error.line) == ("error", "crash", 5)
    assert "SIGSEGV" in outcome.error.message
    assert "Fatal Python error" not in outcome.output
    witness.assert_untouched(outcome, either_sandbox, baseline)
    after = either_sandbox.run(SNIPPET, {"source": "result = 1"})
    assert after.result == {"result": 1}, "the crash left the worker able to run"
