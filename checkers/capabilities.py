"""What a candidate may reach: importable modules, torch through capability proxies, and
every denied family of torch's API with the reason it is denied, in one place.

The candidate never holds a real module. `import torch` gives a `ModuleProxy` that resolves
names on the real module only after checking them here, and hands out further modules only
under their own canonical name, so `torch.os` or `torch.nn.functional.torch` lead nowhere.
Imported inside the sandbox child; torch itself is imported lazily, on first resolution.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import weakref
from collections.abc import Callable
from fnmatch import fnmatchcase
from types import EllipsisType, ModuleType
from typing import TYPE_CHECKING, Any, Self, cast

from checkers.facades import stand_in
from checkers.refusal import candidate_classes, not_available, unavailable

if TYPE_CHECKING:
    from torch.utils.data import DataLoader as TorchDataLoader

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


def is_graph_node(obj: object) -> bool:
    graph = sys.modules.get("torch.autograd.graph")
    return graph is not None and isinstance(obj, graph.Node)


def denial_reason(path: str) -> str | None:
    """Why a dotted torch path is closed, or None when no family covers it."""
    for patterns, reason in DENIED:
        if any(fnmatchcase(path, pattern) for pattern in patterns):
            return reason
    return None


def home(value: object) -> str | None:
    """Where a class or function was defined (`torch.jit.CompilationUnit`), so that a closed
    family stays closed under any name that re-exports it."""
    module = getattr(value, "__module__", None) if callable(value) else None
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    return f"{module}.{name}" if isinstance(module, str) and isinstance(name, str) else None


class ModuleProxy:
    """Stands in for an allowed module; every attribute goes through `resolve`. Its module is
    fixed when it is made: `__init__` does nothing, so calling it again re-targets nothing."""

    __slots__ = ("_grill_module",)
    _grill_module: str

    def __new__(cls, name: str) -> Self:
        proxy = object.__new__(cls)
        object.__setattr__(proxy, "_grill_module", name)
        return proxy

    def __init__(self, name: str) -> None:
        pass

    def __getattr__(self, attr: str) -> object:
        return resolve(self._grill_module, attr)

    def __setattr__(self, attr: str, value: object) -> None:
        path = f"{self._grill_module}.{attr}"
        if path not in SETTABLE or type(value) is not bool:
            raise not_available(f"{path} = ...")
        setattr(importlib.import_module(self._grill_module), attr, value)

    def __delattr__(self, attr: str) -> None:
        raise not_available(f"del {self._grill_module}.{attr}")

    def __repr__(self) -> str:
        return f"<module '{self._grill_module}' (sandboxed)>"

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)


def proxied_name(proxy: ModuleProxy) -> str:
    name: str = object.__getattribute__(proxy, "_grill_module")
    return name


@functools.cache
def _torch_instance_private() -> frozenset[str]:
    """Private names torch keeps on instances of the classes snippets subclass."""
    import torch

    module = torch.nn.Module()
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1)
    names = set(vars(module)) | set(vars(optimizer)) | set(vars(scheduler))
    return frozenset(name for name in names if name.startswith("_"))


def instance_private(cls: type) -> frozenset[str]:
    """The private names torch may keep on an instance of `cls` (none for non-torch classes)."""
    module = getattr(cls, "__module__", "") or ""
    return _torch_instance_private() if module.startswith("torch") else frozenset()


def _module_reason(name: str) -> str | None:
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


def module_refusal(name: str) -> str | None:
    """Why `import name` is refused, in the refusal's wording, or None."""
    why = _module_reason(name)
    return None if why is None else unavailable(name, why)


def import_proxy(name: str) -> ModuleProxy:
    """The proxy an `import name` statement gets; refuses modules not on the allowlist."""
    why = _module_reason(name)
    if why is not None:
        raise not_available(name, why)
    importlib.import_module(name)
    return ModuleProxy(name)


def resolve(module: str, attr: str) -> object:
    """`module.attr` for candidate code: checked, then wrapped when it is itself a module."""
    path = f"{module}.{attr}"
    if attr.startswith("_") or denial_reason(path) or attr not in ONLY_NAMES.get(module, (attr,)):
        raise not_available(path)
    if path in SAFE_REPLACEMENTS:
        return SAFE_REPLACEMENTS[path]()
    real = importlib.import_module(module)
    try:
        value = getattr(real, attr)
    except AttributeError:
        raise AttributeError(f"module '{module}' has no attribute '{attr}'") from None
    origin = home(value)
    if origin is not None and denial_reason(origin):
        raise not_available(path)
    if isinstance(value, ModuleType):
        return wrap_value(path, value)
    from checkers.identity import admit  # the identity check covers `from m import x` too

    return admit(value)


def wrap_value(path: str, value: object) -> object:
    """Modules travel only as proxies, and only under their canonical allowed name."""
    if isinstance(value, ModuleType):
        if value.__name__ == path and path in ALLOWED_MODULES:
            return ModuleProxy(path)
        raise not_available(path)
    return value


@functools.cache
def single_process_data_loader() -> type[TorchDataLoader[object]]:
    """torch's DataLoader with worker processes closed: workers outlive a kill and hold pipes."""
    from torch.utils.data import DataLoader as TorchDataLoader
    from torch.utils.data.dataloader import _SingleProcessDataLoaderIter

    signature = inspect.signature(TorchDataLoader.__init__)

    class DataLoader(TorchDataLoader[object]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # Bound as torch binds them, so a setting passed by position is checked too.
            bound = signature.bind(self, *args, **kwargs)
            for name in ("num_workers", "multiprocessing_context"):
                check_loader_setting(name, bound.arguments.get(name))
            bound.arguments["num_workers"] = 0
            super().__init__(*bound.args[1:], **bound.kwargs)

        def __setattr__(self, name: str, value: object) -> None:
            check_loader_setting(name, value)
            super().__setattr__(name, value)

        def _get_iterator(self) -> _SingleProcessDataLoaderIter:
            # A subclass may still answer num_workers through a property: whatever it says,
            # iteration never takes the worker-process path.
            check_loader_setting("num_workers", self.num_workers)
            return _SingleProcessDataLoaderIter(self)

    DataLoader.__module__ = "torch.utils.data"
    DataLoader.__qualname__ = "DataLoader"
    return DataLoader


def candidate_dataclass(
    cls: type | None = None, /, **options: bool
) -> Callable[[type], type] | type:
    """`@dataclass` for the snippet's own classes only: on a class it did not define it would
    rewrite that class's `__init__`, `__eq__`... (nn.Module's, say), which would fool the grader."""
    import dataclasses

    def decorate(cls: type) -> type:
        # called from snippet code, whose namespace holds the set (never the empty tuple)
        classes = cast("weakref.WeakSet[type]", candidate_classes())
        if cls not in classes:
            raise not_available(f"dataclass({getattr(cls, '__qualname__', type(cls).__name__)})")
        made: type = dataclasses.dataclass(cls, **options)
        classes.add(made)  # slots=True builds a new class: it is still the snippet's own
        return made

    decorate.__module__, decorate.__qualname__ = "dataclasses", "dataclass"
    return stand_in(decorate) if cls is None else decorate(cls)


stand_in(candidate_dataclass)
candidate_dataclass.__module__ = "dataclasses"  # its repr names the real one, not grill
candidate_dataclass.__name__ = candidate_dataclass.__qualname__ = "dataclass"


def check_loader_setting(name: str, value: object) -> None:
    if (name == "num_workers" and value) or (
        name == "multiprocessing_context" and value is not None
    ):
        raise not_available(f"DataLoader({name}={value!r})")


SAFE_REPLACEMENTS: dict[str, Callable[[], object]] = {
    "torch.utils.data.DataLoader": single_process_data_loader,
    "dataclasses.dataclass": lambda: candidate_dataclass,
}
"""Names answered by a restricted stand-in instead of the real object."""
