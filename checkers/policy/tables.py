"""The policy's tables, pure data at the bottom of the policy: which modules a snippet may
import, which families of torch's API stay closed and why, which builtins it gets.

Nothing here imports torch or runs anything; `identity` and `guards` read these tables.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from types import EllipsisType

ALLOWED_MODULES: dict[str, str] = {
    "torch": "the code under test is PyTorch",
    "torch.nn": "layers and nn.Module",
    "torch.nn.functional": "activations and losses",
    "torch.nn.init": "weight initialisation",
    "torch.nn.utils": "gradient clipping (names below are listed one by one)",
    "torch.nn.utils.rnn": "packing padded sequences",
    "torch.optim": "optimizers",
    "torch.optim.lr_scheduler": "learning-rate schedules",
    "torch.autograd": "grad, backward, Function",
    "torch.autograd.functional": "jacobian, hessian",
    "torch.autograd.graph": "saved-tensor hooks",
    "torch.cuda": "device queries and memory counters",
    "torch.amp": "mixed precision",
    "torch.backends": "only as the way to torch.backends.cudnn",
    "torch.backends.cudnn": "the benchmark and deterministic switches (names below)",
    "torch.distributions": "sampling and log-probabilities (Categorical, Normal...) in RL loops",
    "torch.linalg": "linear algebra",
    "torch.fft": "Fourier transforms",
    "torch.special": "special functions",
    "torch.random": "seeding",
    "torch.utils": "only as the way to torch.utils.data and checkpoint",
    "torch.utils.data": "datasets and single-process loaders",
    "torch.utils.checkpoint": "activation checkpointing",
    "torch.optim.swa_utils": "weight averaging (AveragedModel, SWALR, update_bn)",
    "torch.nn.parameter": "Parameter and Buffer",
    "torch.nn.utils.parametrize": "parametrizations of weights",
    "torch.nn.utils.parametrizations": "weight_norm, spectral_norm, orthogonal",
    "torch.cuda.amp": "the older name of mixed precision's autocast and GradScaler",
    "torch.testing": "assert_close",
    "math": "pure functions",
    "random": "seeded randomness",
    "collections": "deque, Counter, defaultdict, namedtuple",
    "collections.abc": "abstract container types",
    "itertools": "iteration helpers",
    "functools": "partial, reduce, lru_cache",
    "statistics": "mean and friends",
    "copy": "deepcopy of models",
    "dataclasses": "config classes (names below are listed one by one)",
    "time": "timing a loop",
    "typing": "annotations (names below are listed one by one)",
    "weakref": "caches that do not keep what they cache alive (WeakValueDictionary...)",
    "bisect": "sorted-list search",
    "heapq": "priority queues",
    "operator": "itemgetter and arithmetic as functions (names below)",
    "enum": "enumerations",
    "abc": "abstract base classes (names below)",
    "numbers": "numeric abstract types",
    "datetime": "timestamps",
    "json": "dumps and loads of plain values (names below)",
    "contextlib": "contextmanager, nullcontext, suppress, ExitStack (names below)",
    "warnings": "warn, filters and catch_warnings (names below)",
    "types": "SimpleNamespace for configs (the rest builds functions and code objects)",
    "pprint": "pretty-printing plain values",
}
"""Modules a snippet may import or reach, each only under this exact name."""

CLOSED_MODULES: dict[str, str] = {
    "os": "runs commands and reaches every file",
    "sys": "reaches the interpreter itself",
    "subprocess": "starts processes",
    "multiprocessing": "starts processes",
    "threading": "starts threads the run's limits do not follow",
    "signal": "interrupts grill",
    "socket": "opens network connections",
    "ssl": "opens network connections",
    "urllib": "opens network connections",
    "http": "opens network connections",
    "io": "opens files",
    "pathlib": "reaches every file",
    "shutil": "copies and deletes files",
    "tempfile": "creates files",
    "glob": "lists files",
    "pickle": "unpickling runs code",
    "marshal": "loads code objects",
    "shelve": "opens files",
    "logging": "its handlers write files and streams, and its records show grill's frames",
    "ctypes": "calls any native function",
    "importlib": "imports anything",
    "inspect": "reaches frames and source",
    "gc": "reaches every object in the process",
    "builtins": "the real open, exec and eval",
    "code": "compiles and runs code",
    "codeop": "compiles code",
    "runpy": "runs code",
    "resource": "changes the run's own limits",
    "atexit": "runs code after the run",
    "weakref.finalize": "runs code after the run",
    "numpy": "arrays write files (tofile, save)",
    "string": "templates read attributes the policy does not see",
}
"""Modules people reach for that stay closed, each with why: the refusal says it."""

CLOSED_TORCH_HOMES: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            "torch._dynamo*",
            "torch._inductor*",
            "torch.compiler*",
            "torch.jit*",
            "torch._jit_internal*",
            "torch.fx*",
            "torch.export*",
            "torch._export*",
            "torch._functorch*",
            "torch._higher_order_ops*",
            "torch._C._jit*",
            "torch._C.Script*",
            "torch._C.CompilationUnit*",
            "torch._C.Graph*",
            "torch._C.import_ir_module*",
            "torch._C.parse_ir*",
            "torch._C.AliasDb*",
            "torch._C.*Benchmark*",
            "torch._C.StaticModule*",
            "torch._C.LiteScriptModule*",
            "torch._C.ConcreteModuleType*",
            "torch._C.fork*",
            "torch._C.wait*",
        ),
        "compilation and TorchScript run code outside the policy and write generated files",
    ),
    (
        (
            "torch.serialization*",
            "torch._utils._rebuild*",
            "torch.storage*",
            "torch._C.*Storage*",
            "torch._C._load*",
            "torch._C._save*",
            "torch.from_file*",
            "torch._C.from_file*",
        ),
        "reads or writes files, or unpickles (which runs code)",
    ),
    (
        (
            "torch.hub*",
            "torch.utils.cpp_extension*",
            "torch.utils.collect_env*",
            "torch.library*",
            "torch._ops*",
            "torch._library*",
            "torch._classes*",
        ),
        "downloads, compiles or loads native code",
    ),
    (
        (
            "torch.multiprocessing*",
            "torch.distributed*",
            "torch.utils.data.dataloader*",
            "torch.utils.data._utils*",
            "torch._C._set_worker*",
        ),
        "starts processes (the sandbox offers a single-process DataLoader)",
    ),
    (
        (
            "torch.overrides*",
            "torch.utils._python_dispatch*",
            "torch._C.DisableTorchFunction*",
            "torch._C._DisableTorchDispatch*",
            "torch._C._DisableFuncTorch*",
            "torch._C._EnableTorchFunction*",
            "torch._C._set_torch_function_mode*",
            "torch._C._push_on_torch_function_stack*",
            "torch._C._pop_torch_function_stack*",
        ),
        "switches off the grader's view of torch calls",
    ),
    (
        (
            "torch._logging*",
            "torch.utils._traceback*",
            "torch.profiler*",
            "torch.autograd.profiler*",
            "torch._C._profiler*",
        ),
        "writes files and reaches the interpreter's internals",
    ),
    (
        (
            "torch.cuda.memory._*",
            "torch.cuda.memory.caching_allocator_*",
            "torch.cuda.memory.change_current_allocator*",
            "torch.cuda.memory.CUDAPluggableAllocator*",
            "torch.cuda.memory.set_per_process_memory_fraction*",
            "torch.cuda.graphs*",
            "torch.cuda.tunable*",
            "torch.cuda.gds*",
            "torch._C._cuda_*",
        ),
        "raw device memory, snapshots and tuning files, and the grader's memory cap",
    ),
)
"""Homes in torch's own tree that stay closed, grouped by why; the rest of torch is open."""

STDLIB_HOMES: dict[str, frozenset[str] | None | EllipsisType] = {
    "math": None,
    "random": None,
    "_random": None,
    "collections": None,
    "collections.abc": None,
    "_collections_abc": None,
    "_collections": None,
    "itertools": None,
    "functools": frozenset(
        {
            "partial",
            "reduce",
            "lru_cache",
            "cache",
            "cmp_to_key",
            "_lru_cache_wrapper",
            "KeyWrapper",
        }
    ),
    "_functools": frozenset({"partial", "reduce", "cmp_to_key", "KeyWrapper"}),
    "statistics": None,
    "copy": frozenset({"copy", "deepcopy"}),
    "dataclasses": frozenset({"field", "Field", "MISSING", "_MISSING_TYPE", "dataclass"}),
    "time": frozenset(
        {
            "time",
            "perf_counter",
            "monotonic",
            "process_time",
            "sleep",
            "time_ns",
            "perf_counter_ns",
            "monotonic_ns",
        }
    ),
    "typing": ...,
    "abc": frozenset({"ABC", "ABCMeta", "abstractmethod"}),
    "weakref": frozenset(
        {
            "ref",
            "proxy",
            "WeakValueDictionary",
            "WeakKeyDictionary",
            "WeakMethod",
            "KeyedRef",
            "WeakSet",
            "ReferenceType",
            "ProxyType",
            "CallableProxyType",
        }
    ),
    "_weakref": frozenset({"ref", "ReferenceType", "proxy", "ProxyType", "CallableProxyType"}),
    "_weakrefset": frozenset({"WeakSet"}),
    "bisect": None,
    "_bisect": None,
    "heapq": None,
    "_heapq": None,
    "operator": frozenset({"itemgetter", "add", "sub", "mul", "truediv", "neg", "getitem"}),
    "enum": None,
    "numbers": None,
    "datetime": None,
    "json": frozenset({"dumps", "loads", "JSONEncoder", "JSONDecoder"}),
    "contextlib": frozenset(
        {
            "contextmanager",
            "_GeneratorContextManager",
            "nullcontext",
            "suppress",
            "ExitStack",
            "AbstractContextManager",
        }
    ),
    "warnings": frozenset({"filterwarnings", "simplefilter", "catch_warnings", "WarningMessage"}),
    "_warnings": frozenset({"warn"}),
    "types": frozenset({"SimpleNamespace"}),
    "pprint": frozenset({"pprint", "pformat"}),
}
"""Standard-library homes that are open, with the names each offers (None: all public ones;
`...`: everything, private classes too, for typing's inert helper objects)."""

CLOSED_STDLIB_NAMES = frozenset(
    {"typing.get_type_hints", "functools.update_wrapper", "functools.wraps", "weakref.finalize"}
)
"""Names in an open home that stay closed: they evaluate strings with real builtins, copy
attributes named by the caller (dunders included), or run code after the run has ended."""

ONLY_NAMES: dict[str, frozenset[str]] = {
    "torch.utils": frozenset({"data", "checkpoint"}),
    "torch.utils.checkpoint": frozenset({"checkpoint", "checkpoint_sequential"}),
    "torch.testing": frozenset({"assert_close"}),
    "weakref": frozenset(
        {"ref", "proxy", "WeakValueDictionary", "WeakKeyDictionary", "WeakSet", "WeakMethod"}
    ),
    "operator": frozenset({"itemgetter", "add", "sub", "mul", "truediv", "neg", "getitem"}),
    "abc": frozenset({"ABC", "ABCMeta", "abstractmethod"}),
    "json": frozenset({"dumps", "loads"}),
    "contextlib": frozenset({"contextmanager", "nullcontext", "suppress", "ExitStack"}),
    "warnings": frozenset({"warn", "filterwarnings", "simplefilter", "catch_warnings"}),
    "types": frozenset({"SimpleNamespace"}),
    "pprint": frozenset({"pprint", "pformat"}),
    "torch.backends": frozenset({"cudnn"}),
    "torch.backends.cudnn": frozenset({"benchmark", "deterministic", "is_available", "version"}),
    "torch.utils.data": frozenset(
        {
            "DataLoader",
            "Dataset",
            "IterableDataset",
            "TensorDataset",
            "StackDataset",
            "ConcatDataset",
            "ChainDataset",
            "Subset",
            "random_split",
            "default_collate",
            "Sampler",
            "SequentialSampler",
            "RandomSampler",
            "SubsetRandomSampler",
            "WeightedRandomSampler",
            "BatchSampler",
            "get_worker_info",
        }
    ),
    "torch.nn.utils": frozenset(
        {
            "clip_grad_norm_",
            "clip_grad_value_",
            "clip_grads_with_norm_",
            "get_total_norm",
            "parameters_to_vector",
            "vector_to_parameters",
            "weight_norm",
            "spectral_norm",
            "remove_weight_norm",
            "remove_spectral_norm",
            "rnn",
        }
    ),
    # update_wrapper/wraps read and write attributes named by the caller, dunders included.
    "functools": frozenset({"partial", "reduce", "lru_cache", "cache", "cmp_to_key"}),
    # asdict, astuple and replace read every field, private ones too, of any dataclass.
    "dataclasses": frozenset({"dataclass", "field"}),
    # get_type_hints evaluates annotation strings with real builtins when given empty globals.
    "typing": frozenset(
        {
            "Any",
            "Callable",
            "Dict",
            "Iterable",
            "Iterator",
            "List",
            "Mapping",
            "NamedTuple",
            "Optional",
            "Sequence",
            "Set",
            "Tuple",
            "Union",
            "cast",
        }
    ),
}
"""Modules too broad to open whole: only these names of them are offered."""

SETTABLE: dict[str, str] = {
    "torch.backends.cudnn.benchmark": "picks convolution algorithms by timing them",
    "torch.backends.cudnn.deterministic": "asks cuDNN for reproducible algorithms",
}
"""Module attributes a snippet may assign, each a documented on/off switch that only affects
its own run; they take True or False and nothing else. Every other module write is refused."""

DENIED: tuple[tuple[tuple[str, ...], str], ...] = (
    (("torch.load", "torch.serialization*"), "unpickling runs arbitrary code"),
    (("torch.save",), "writes files"),
    (("torch.from_file", "torch.*File*", "torch.get_file_path"), "reads or writes files"),
    (
        ("torch.*Storage*", "torch.storage", "torch.is_storage"),
        "storages map files (from_file) and raw memory",
    ),
    (
        (
            "torch.compile",
            "torch.compiler",
            "torch.cond",
            "torch.while_loop",
            "torch.export*",
            "torch.jit*",
            "torch.fx*",
        ),
        "compilation writes generated code and starts compiler processes",
    ),
    (
        (
            "torch.CompilationUnit",
            "torch.Script*",
            "torch.LiteScriptModule",
            "torch.StaticModule",
            "torch.parse_ir",
            "torch.import_ir_module*",
            "torch.Graph",
            "torch.ConcreteModuleType*",
            "torch.AliasDb",
            "torch.*Benchmark*",
        ),
        "TorchScript, re-exported by torch under its own names, compiles code that calls any "
        "operator (aten::from_file included) outside the policy",
    ),
    (("torch.fork", "torch.wait"), "TorchScript's fork runs functions on torch's thread pool"),
    (("torch.ops", "torch.classes", "torch.library"), "load_library loads native code"),
    (
        (
            "torch.cuda.CUDAPluggableAllocator",
            "torch.cuda.change_current_allocator",
            "torch.cuda.caching_allocator_*",
        ),
        "a pluggable allocator loads a native library (ctypes.CDLL), and the caching allocator "
        "hands out and frees raw addresses",
    ),
    (("torch.hub",), "downloads and imports code"),
    (
        ("torch.set_num_threads", "torch.set_num_interop_threads", "torch.init_num_threads"),
        "the sandbox runs torch on one thread",
    ),
    (
        ("torch.multiprocessing", "torch.distributed", "torch.prepare_multiprocessing_environment"),
        "starts processes",
    ),
    (
        (
            "torch.cuda.memory",
            "torch.cuda.tunable",
            "torch.cuda.gds",
            "torch.cuda.CUDAGraph",
            "torch.cuda.graph*",
            "torch.cuda.make_graphed_callables",
        ),
        "these write snapshots, tuning files and graph dumps (CUDAGraph.debug_dump)",
    ),
)
"""Names on otherwise allowed torch modules that stay closed, grouped by why."""

DENIED_ATTRIBUTES: dict[str, str] = {
    "numpy": "a numpy array can write itself to a file (tofile, dump)",
    "tofile": "writes files",
    "dump": "pickles to files",
    "storage": "storages map files and raw memory",
    "untyped_storage": "storages map files and raw memory",
    "from_file": "reads any file, and creates files with shared=True",
    "data_ptr": "raw addresses",
    "const_data_ptr": "raw addresses",
    "share_memory_": "creates shared-memory files",
    "share_memory": "creates shared-memory files",
    "compile": "compilation writes generated code and starts compiler processes",
    "load_library": "loads native code",
}
"""Attribute names refused on every object, because some torch object offers them."""

DENIED_NODE_ATTRIBUTES: dict[str, str] = {
    "metadata": "the grader stamps each autograd node with its step there; rewriting it "
    "would forge the verdict",
}
"""Attribute names refused on autograd graph nodes (`loss.grad_fn`) only."""


DUNDER_METHODS = frozenset(
    {
        "__init__",
        "__call__",
        "__repr__",
        "__str__",
        "__len__",
        "__iter__",
        "__next__",
        "__getitem__",
        "__setitem__",
        "__contains__",
        "__bool__",
        "__hash__",
        "__enter__",
        "__exit__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__add__",
        "__sub__",
        "__mul__",
        "__truediv__",
        "__neg__",
        "__post_init__",
    }
)
"""Special methods a snippet's class may define; hooks into lookup, pickling, finalisation or
class creation (`__getattr__`, `__reduce__`, `__del__`...) stay closed."""

READABLE_DUNDER_NAMES = frozenset({"__name__"})
"""Module-level dunder names a snippet may read (`if __name__ == "__main__":`)."""

RESERVED_PRIVATE = re.compile(r"_.*_|_print|_tmp\d+|__.*")
"""Underscore names that stay closed: RestrictedPython's and grill's own (`_getattr_`,
`_print`, `_tmp0`) and every dunder."""

CANDIDATE_BUILTINS = (
    "abs",
    "all",
    "any",
    "bool",
    "callable",
    "chr",
    "classmethod",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "hash",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "object",
    "ord",
    "pow",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "zip",
    "NotImplemented",
    "Ellipsis",
)
"""Builtins beyond RestrictedPython's safe set (exceptions come from there): what training
code uses. No open, exec, eval, compile, globals, vars, getattr, type, input, breakpoint."""

REFUSED_BUILTINS = (
    "open",
    "exec",
    "eval",
    "compile",
    "globals",
    "locals",
    "vars",
    "getattr",
    "setattr",
    "delattr",
    "type",
    "input",
    "breakpoint",
    "memoryview",
    "help",
    "dir",
)
"""Present as stubs that refuse when called, so that a snippet may still name a variable
`input` and a call to `open` reads as a refusal rather than a NameError."""

UNSAFE_SAFE_BUILTINS = ("setattr", "delattr", "_getattr_")
"""RestrictedPython's safe set carries these; grill's own guards replace them."""


def denial_reason(path: str) -> str | None:
    """Why a dotted torch path is closed, or None when no family covers it."""
    for patterns, reason in DENIED:
        if any(fnmatchcase(path, pattern) for pattern in patterns):
            return reason
    return None


def module_reason(name: str) -> str | None:
    """None when `import name` is allowed; else why not ("" when the tables give no reason).
    One answer for the compile-time check and the run-time import alike."""
    if name in ALLOWED_MODULES and not denial_reason(name):
        return None
    return (
        denial_reason(name)
        or CLOSED_MODULES.get(name)
        or CLOSED_MODULES.get(name.split(".")[0])
        or ""
    )
