"""The escape suite: hostile snippets, each with the exact verdict it must get, and each
checked for effects (canary files, the loopback listener, the parent's secret, processes
left behind): the classic ways out of a Python sandbox, and those torch adds."""

from __future__ import annotations

import pytest
from sandbox_witness import SNIPPET, process_tree, worker_pid

REFUSED = [
    # imports, direct and indirect
    ("import-os", "import os\nos.system('touch {canary}')", "'os' is not available"),
    ("import-subprocess", "import subprocess", "'subprocess' is not available"),
    ("import-socket", "import socket", "'socket' is not available"),
    ("import-importlib", "import importlib", "'importlib' is not available"),
    ("import-builtins", "import builtins", "'builtins' is not available"),
    ("import-threading", "import threading", "'threading' is not available"),
    (
        "torch.threading",
        "import torch\ntorch.threading.Thread(target=print).start()",
        "'torch.threading' is not available",
    ),
    ("dunder-import", "__import__('os')", '"__import__" is an invalid variable name'),
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
        "'torch.nn.modules' is not available",
    ),
    (
        "scheduler-walk",
        "from torch.optim import lr_scheduler\nlr_scheduler.types.FunctionType",
        "'torch.optim.lr_scheduler.types' is not available",
    ),
    (
        "collect-env-import",
        "import torch.utils.collect_env",
        "'torch.utils.collect_env' is not available",
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
        "'torch.load' is not available",
    ),
    (
        "torch.save",
        "import torch\ntorch.save(torch.ones(2), '{canary}')",
        "'torch.save' is not available",
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
        "'torch.jit' is not available",
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
        "dataloader-workers",
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "for batch in DataLoader(list(range(8)), num_workers=4):\n    pass",
        "'DataLoader(num_workers=4)' is not available",
    ),
    (
        "dataloader-workers-by-position",
        "from torch.utils.data import DataLoader\n"
        "for batch in DataLoader(list(range(8)), 2, False, None, None, 3):\n    pass",
        "'DataLoader(num_workers=3)' is not available",
    ),
    (
        "dataloader-workers-later",
        "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2])\nloader.num_workers = 2",
        "'DataLoader(num_workers=2)' is not available",
    ),
    (
        "dataloader-workers-through-a-property",
        "from torch.utils.data import DataLoader\nclass L(DataLoader):\n"
        "    @property\n    def num_workers(self):\n        return 4\n"
        "    @num_workers.setter\n    def num_workers(self, value):\n        pass\n"
        "    @property\n    def prefetch_factor(self):\n        return 2\n"
        "    @prefetch_factor.setter\n    def prefetch_factor(self, value):\n        pass\n"
        "for batch in L(list(range(8))):\n    pass",
        "'DataLoader(num_workers=4)' is not available",
    ),
    (
        "set-num-threads",
        "import torch\ntorch.set_num_threads(64)",
        "'torch.set_num_threads' is not available",
    ),
    # torch re-exports closed families under its own top-level names
    (
        "torchscript-compilation-unit",
        "import torch\ncu = torch.CompilationUnit("
        "'def f():\\n    return torch.from_file(\"{canary}\", True, 8)\\n')\ncu.f()",
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
        "import torch\nconfig = torch.BenchmarkConfig()\nconfig.num_calling_threads = 16\n"
        "config.profiler_output_path = '{canary}'\n"
        "torch.ThroughputBenchmark(torch.nn.Linear(2, 2)).benchmark(config)",
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
    # torch calling back into candidate code must not lift the policy
    (
        "no-grad-trampoline",
        "import torch\ndef f():\n    import os\n    return os\ntorch.no_grad()(f)()",
        "'os' is not available",
    ),
    (
        "hook-trampoline",
        "import torch\nx = torch.ones(2, requires_grad=True)\n"
        "def hook(grad):\n    from torch import os\n    os.system('touch {canary}')\n    return grad\n"
        "x.register_hook(hook)\n(x * 2).sum().backward()",
        "'torch.os' is not available",
    ),
    # the grader's own records must not be forged from the snippet
    (
        "forged-step-stamp",
        "import torch\nx = torch.ones(1, requires_grad=True)\n"
        "(x * 2).grad_fn.metadata['grill_step'] = 10 ** 9",
        "'MulBackward0.metadata' is not available",
    ),
    (
        "swallowed-refusal",
        "import torch\ntry:\n    torch.os\nexcept Exception:\n    pass\nresult = 'ran on'",
        "'torch.os' is not available",
    ),
    # the classic Python escapes
    (
        "subclasses-walk",
        "().__class__.__bases__[0].__subclasses__()",
        '"__class__" is an invalid attribute name',
    ),
    # str.format's templates read fields under the same attribute rules as code
    (
        "format-attribute",
        "'{0.__class__.__init__.__globals__}'.format(1)",
        "'int.__class__' is not available",
    ),
    ("format-map", "str.format_map('{x.__class__}', {'x': 1})", "'int.__class__' is not available"),
    (
        "format-on-str-subclass",
        "class S(str):\n    pass\nS.format('{0.__class__.__mro__}', 1)",
        "'int.__class__' is not available",
    ),
    (
        "format-map-on-str-subclass",
        "class S(str):\n    pass\nS.format_map('{x.__class__}', {'x': 1})",
        "'int.__class__' is not available",
    ),
    (
        "format-through-super",
        "class S(str):\n    def f(self):\n        return super().format(1)\n"
        "S('{0.__class__.__base__.__subclasses__}').f()",
        "'int.__class__' is not available",
    ),
    ("format-nested-spec", "'{0:{1.__class__}}'.format(1, 2)", "'int.__class__' is not available"),
    (
        "format-frame",
        "def g():\n    yield 1\n'{0.gi_frame.f_back}'.format(g())",
        "'generator.gi_frame' is not available",
    ),
    (
        "generator-frame",
        "def g():\n    yield 1\ng().gi_frame.f_back.f_globals",
        '"gi_frame" is a restricted name',
    ),
    (
        "traceback-frame",
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    tb = e.__traceback__",
        '"__traceback__" is an invalid attribute name',
    ),
    ("type-three-args", "X = type('X', (), {})", "'type()' is not available"),
    ("open-write", "open('{canary}', 'w').write('x')", "'open()' is not available"),
    ("exec", "exec('import os')", "'exec()' is not available"),
    ("eval", "eval('1')", "'eval()' is not available"),
    ("compile-builtin", "compile('1', 'x', 'eval')", "'compile()' is not available"),
    ("getattr-string", "import torch\ngetattr(torch, 'os')", "'getattr()' is not available"),
    ("globals", "globals()['__builtins__']", "'globals()' is not available"),
    ("vars", "vars()", "'vars()' is not available"),
    (
        "secret-env",
        "import torch\nprint(torch.os.environ['{secret_name}'])",
        "'torch.os' is not available",
    ),
    (
        "dunder-getattr-method",
        "class A:\n    def __getattr__(self, name):\n        return 1",
        '"__getattr__" is an invalid variable name',
    ),
    (
        "metaclass",
        "class M(type):\n    pass\nclass A(metaclass=M):\n    pass",
        'The keyword argument "metaclass" is not allowed',
    ),
    (
        "monkeypatch-torch",
        "import torch\ntorch.nn.Module.forward = print",
        "'Module attributes' is not available",
    ),
    (
        "dataclass-on-torch",
        "import torch\nfrom dataclasses import dataclass\ndataclass(torch.nn.Module)",
        "'dataclass(Module)' is not available",
    ),
    ("dataclass-asdict", "from dataclasses import asdict", "'dataclasses.asdict' is not available"),
    (
        "cudnn-other-switch",
        "import torch\ntorch.backends.cudnn.enabled = False",
        "'torch.backends.cudnn.enabled = ...' is not available",
    ),
    (
        "cudnn-not-a-bool",
        "import torch\ntorch.backends.cudnn.benchmark = 'yes'",
        "'torch.backends.cudnn.benchmark = ...' is not available",
    ),
    ("backends-other", "import torch\ntorch.backends.mkldnn", "'torch.backends.mkldnn' is not"),
    (
        "distributions-submodule",
        "import torch\ntorch.distributions.kl.os",
        "'torch.distributions.kl' is not available",
    ),
    (
        "slots-dunder",
        "class A:\n    __slots__ = ('__dict__',)",
        '"__slots__" is an invalid variable name',
    ),
    ("print-to-file", "print('x', file=None or [])", "'print(file=...)' is not available"),
    ("relative-import", "from . import something", "relative imports are not available"),
]


@pytest.mark.parametrize(
    "source,fragment", [(s, f) for _, s, f in REFUSED], ids=[name for name, _, _ in REFUSED]
)
def test_hostile_snippet_is_refused_and_changes_nothing(either_sandbox, witness, source, fragment):
    """With bubblewrap and without it: the policy is the wall a machine without it relies on."""
    baseline = process_tree(worker_pid(either_sandbox))
    outcome = either_sandbox.run(SNIPPET, {"source": witness.fill(source)})
    assert outcome.status == "refused", (outcome.error, outcome.output)
    assert fragment in outcome.error.message
    assert outcome.error.line is not None
    witness.assert_untouched(outcome, either_sandbox, baseline)


def test_refusal_names_the_construct_and_the_candidate_line(sandbox):
    outcome = sandbox.run(SNIPPET, {"source": "import torch\n\n\n\n\n\nx = torch.os\n"})
    assert (outcome.error.kind, outcome.error.line) == ("refused", 7)
    assert outcome.error.message == "'torch.os' is not available in the sandbox"


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
