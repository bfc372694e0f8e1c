"""The policy's tables, pure data at the bottom of the policy: which modules are opened whole,
which stay closed and why, which families of torch's API are capabilities the sandbox does
not offer, and which builtins a snippet gets.

The rule the tables serve: ordinary Python and the whole computational surface of torch run;
what stays closed is a capability (processes, network, native code, compilation, raw memory,
files outside the run's folder) or grill's own machinery. Objects are placed by where they
really live (`identity.verified_home`), never by the name they were reached under. Nothing
here imports torch or runs anything.
"""

from __future__ import annotations

import functools
import re
from fnmatch import fnmatchcase

OPEN_STDLIB = frozenset(
    {
        "__future__",
        "abc",
        "argparse",
        "array",
        "ast",
        "base64",
        "binascii",
        "bisect",
        "bz2",
        "calendar",
        "cmath",
        "codecs",
        "collections",
        "collections.abc",
        "colorsys",
        "configparser",
        "contextlib",
        "contextvars",
        "copy",
        "csv",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "enum",
        "errno",
        "fnmatch",
        "fractions",
        "functools",
        "getopt",
        "glob",
        "graphlib",
        "gzip",
        "hashlib",
        "heapq",
        "hmac",
        "html",
        "inspect",
        "io",
        "ipaddress",
        "itertools",
        "json",
        "json.decoder",
        "json.encoder",
        "keyword",
        "logging",
        "lzma",
        "math",
        "numbers",
        "operator",
        "optparse",
        "pathlib",
        "platform",
        "pprint",
        "queue",
        "random",
        "re",
        "reprlib",
        "secrets",
        "shlex",
        "shutil",
        "stat",
        "statistics",
        "string",
        "struct",
        "tempfile",
        "textwrap",
        "time",
        "tokenize",
        "token",
        "tomllib",
        "traceback",
        "types",
        "typing",
        "unicodedata",
        "uuid",
        "warnings",
        "weakref",
        "zlib",
        "zoneinfo",
    }
)
"""Standard-library modules opened whole: computation, parsing and formatting, and file
helpers whose files the checked openers (`descriptors.py`) and the operating-system layers
confine to the run's folder."""

STDLIB_HOMES = OPEN_STDLIB | frozenset(
    {
        "_abc",
        "_bisect",
        "_blake2",
        "_bz2",
        "_codecs",
        "_collections",
        "_collections_abc",
        "_compression",
        "_contextvars",
        "_csv",
        "_datetime",
        "_decimal",
        "_functools",
        "_hashlib",
        "_heapq",
        "_io",
        "_json",
        "_locale",
        "_lzma",
        "_md5",
        "_operator",
        "_pydecimal",
        "_queue",
        "_random",
        "_sha1",
        "_sha256",
        "_sha512",
        "_sha3",
        "_sre",
        "_stat",
        "_statistics",
        "_string",
        "_struct",
        "_strptime",
        "_warnings",
        "_weakref",
        "_weakrefset",
        "copyreg",
        "genericpath",
        "posixpath",
        "re._compiler",
        "re._parser",
        "re._constants",
        "re._casefix",
        "encodings",
        "logging.handlers",
        "sre_constants",
        "zipfile",
    }
)
"""Where the open modules' objects really live (`operator.add` is `_operator.add`, a
`deque` is `_collections.deque`): an object whose verified home is one of these is open."""

CLOSED_MODULES: dict[str, str] = {
    "os": "runs commands and reaches every file (the sandbox offers a view of it)",
    "sys": "reaches the interpreter itself (the sandbox offers a view of it)",
    "builtins": "the real open, exec and eval",
    "subprocess": "starts processes",
    "multiprocessing": "starts processes",
    "concurrent": "starts processes and threads",
    "asyncio": "starts processes, threads and network connections",
    "threading": "starts threads the run's limits do not follow",
    "_thread": "starts threads the run's limits do not follow",
    "signal": "interrupts grill",
    "socket": "opens network connections",
    "ssl": "opens network connections",
    "select": "waits on raw file descriptors",
    "selectors": "waits on raw file descriptors",
    "urllib": "opens network connections",
    "http": "opens network connections",
    "ftplib": "opens network connections",
    "smtplib": "opens network connections",
    "socketserver": "opens network connections",
    "xmlrpc": "opens network connections",
    "webbrowser": "starts a browser",
    "pickle": "unpickling runs code",
    "_pickle": "unpickling runs code",
    "shelve": "unpickling runs code",
    "copyreg": "changes how every object is pickled and copied",
    "marshal": "loads code objects",
    "ctypes": "calls any native function",
    "mmap": "maps raw memory and files",
    "fcntl": "works on raw file descriptors",
    "importlib": "imports anything",
    "pkgutil": "imports anything",
    "zipimport": "imports anything",
    "runpy": "runs code",
    "code": "compiles and runs code",
    "codeop": "compiles code",
    "compileall": "compiles code",
    "py_compile": "compiles code",
    "dis": "reaches code objects",
    "timeit": "compiles and runs code from strings",
    "doctest": "runs code from strings",
    "unittest": "imports and runs tests by name",
    "pdb": "a debugger reaches every frame",
    "bdb": "a debugger reaches every frame",
    "trace": "traces grill's frames too",
    "cProfile": "traces grill's frames too",
    "profile": "traces grill's frames too",
    "tracemalloc": "changes what grill measures",
    "faulthandler": "grill's crash reports",
    "resource": "changes the run's own limits",
    "atexit": "runs code after the run",
    "site": "changes how the interpreter finds modules",
    "sysconfig": "reaches the interpreter's build",
    "linecache": "holds the source grill shows",
    "logging.config": "imports and calls whatever its configuration names",
    "numpy": "arrays write and map files (tofile, save, memmap)",
    "pty": "starts processes on a terminal",
    "tty": "changes the terminal",
    "termios": "changes the terminal",
    "getpass": "reads the terminal",
    "readline": "reads the terminal",
    "sqlite3": "loads native extensions",
    "tarfile": "archives are not offered",
    "xml": "XML parsers reach files and the network through entities",
}
"""Modules that stay closed, each with why. Importing one gives a stand-in that refuses, at
the line that uses it, with this reason; a module not installed raises ModuleNotFoundError as
it would under plain Python."""

DISTRIBUTED = (
    "torch.distributed.*",
    "torch._C._distributed*",
    "torch.nn.parallel.distributed*",
    "torch.nn.parallel.DistributedDataParallel",
)
"""torch.distributed and DistributedDataParallel: closed to a single run, open to a rank of a
ranked run (but for `TORCH_RANKED_CLOSED`)."""
DISTRIBUTED_REASON = (
    "distributed training runs as ranks: grill check --ranks N FILE, or a code task with"
    " `ranks`, starts N of them as torchrun does"
)

TORCH_CLOSED: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            "torch._dynamo*",
            "torch._inductor*",
            "torch.compiler.*",
            "torch.compile",
            "torch.nn.modules.module.Module.compile",
            "torch.jit.*",
            "torch.fx.*",
            "torch.export.*",
            "torch._export*",
            "torch._higher_order_ops*",
            "torch._functorch.aot_autograd*",
            "torch._functorch.compilers*",
            "torch._functorch.partitioners*",
            "torch._lazy*",
            "torch.cond",
            "torch.while_loop",
            "torch._C._jit*",
            "torch._C.Script*",
            "torch._C.CompilationUnit*",
            "torch._C.Graph*",
            "torch._C.import_ir_module*",
            "torch._C.parse_ir*",
            "torch._C.AliasDb*",
            "torch._C.*Benchmark*",
            "torch.*Benchmark*",
            "torch.utils.throughput_benchmark*",
            "torch.utils.benchmark*",
            "torch._C.StaticModule*",
            "torch._C.LiteScriptModule*",
            "torch._C.ConcreteModuleType*",
            "torch._C.fork*",
            "torch._C.wait*",
            "torch.CompilationUnit*",
            "torch.Script*",
            "torch.Graph",
            "torch.parse_ir",
            "torch.import_ir_module*",
            "torch.fork",
            "torch.wait",
        ),
        "compilation and TorchScript run code outside the policy and write generated files",
    ),
    (
        (
            "torch.serialization*",
            "torch._utils._rebuild*",
            "torch.storage*",
            "torch.*Storage*",
            "torch._C.*Storage*",
            "torch._C._load*",
            "torch._C._save*",
            "torch.from_file",
            "torch._C.from_file",
            "torch.*File*",
            "torch.get_file_path",
        ),
        "reads or writes files outside torch.save and torch.load, or unpickles (which runs code)",
    ),
    (
        (
            "torch.hub*",
            "torch.utils.cpp_extension*",
            "torch.utils.collect_env*",
            "torch.library*",
            "torch._library*",
            "torch._ops*",
            "torch.ops",
            "torch._classes*",
            "torch.classes",
            "torch._C._dispatch*",
        ),
        "downloads, compiles or loads native code",
    ),
    (DISTRIBUTED, DISTRIBUTED_REASON),
    (
        (
            "torch.multiprocessing*",
            "torch.utils.data._utils.worker*",
            "torch.utils.data._utils.signal_handling*",
            "torch.utils.data._utils.pin_memory*",
            "torch.utils.data.dataloader._MultiProcessingDataLoaderIter*",
            "torch._C._set_worker*",
            "torch._C._error_if_any_worker_fails*",
        ),
        "starts processes (DataLoader workers run in process)",
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
            "torch._C._get_function_stack_at*",
            "torch._C._len_torch_function_stack*",
            "torch._C._is_torch_function_mode_enabled*",
            "torch._C._*dispatch*mode*",
            "torch._C._*Dispatch*",
            "torch._C._ImperativeEngine*",
            "torch._C._EngineBase*",
            "torch._C._set_torch_dispatch*",
            "torch._subclasses*",
            "torch._C._functorch.set_*",
            "torch._C._autograd._saved_tensors_hooks_disable*",
        ),
        "switches off the grader's view of torch calls",
    ),
    (
        (
            "torch._logging*",
            "torch.utils._traceback*",
        ),
        "torch's logging writes files and reaches the interpreter's internals",
    ),
    (
        (
            "torch.cuda.memory._*",
            "torch.cuda.memory.caching_allocator_*",
            "torch.cuda.memory.change_current_allocator*",
            "torch.cuda.memory.CUDAPluggableAllocator*",
            "torch.cuda.memory.set_per_process_memory_fraction*",
            "torch.cuda.CUDAPluggableAllocator",
            "torch.cuda.change_current_allocator",
            "torch.cuda.caching_allocator_*",
            "torch.cuda.set_per_process_memory_fraction",
            "torch.cuda.graphs*",
            "torch.cuda.CUDAGraph",
            "torch.cuda.graph",
            "torch.cuda.make_graphed_callables",
            "torch.cuda.tunable*",
            "torch.cuda.gds*",
            "torch._C._cuda_*",
        ),
        "raw device memory, snapshots and tuning files, and the grader's memory cap",
    ),
    (
        (
            "torch.set_num_threads",
            "torch.set_num_interop_threads",
            "torch.init_num_threads",
            "torch._C._set_num_threads",
            "torch._C._set_num_interop_threads",
        ),
        "the sandbox runs torch on one thread",
    ),
    (
        ("torch.autograd.graph.increment_version", "torch.autograd.graph._*"),
        "grill stamps the autograd graph there",
    ),
    (
        ("torch.utils.hooks.RemovableHandle.hooks_dict_ref",),
        "it reaches torch's global hook tables, where grill's own hooks are",
    ),
)
"""Families of torch's API that are capabilities the sandbox does not offer, by the path
where an object really lives (or the path a snippet names). Everything else in torch is open.
torch.distributed and DistributedDataParallel (`DISTRIBUTED`) open for a rank of a ranked run,
but for `TORCH_RANKED_CLOSED`."""

TORCH_RANKED_CLOSED: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (
            "torch.multiprocessing*",
            "torch.distributed.launch*",
            "torch.distributed.launcher*",
            "torch.distributed.run*",
            "torch.distributed.elastic*",
            "torch.distributed.argparse_util*",
        ),
        "starts processes: grill starts the ranks itself, as torchrun does (each reads its"
        " RANK and WORLD_SIZE from the environment)",
    ),
    (
        (
            "torch.distributed.rpc*",
            "torch._C._distributed_rpc*",
            "torch.distributed.autograd*",
            "torch._C._distributed_autograd*",
            "torch.distributed.optim.optimizer*",
            "torch.distributed.optim.DistributedOptimizer",
            "torch.distributed.nn.api.remote_module*",
            "torch.distributed.nn.RemoteModule",
        ),
        "RPC runs pickled functions on the other ranks, outside the policy",
    ),
    (
        (
            "torch.distributed.checkpoint*",
            "torch.distributed._serialization*",
            "torch.distributed.flight_recorder*",
            "torch._C._distributed_c10d._dump_fr_trace*",
        ),
        "reads or writes files by pickling (loading them runs code): save a state_dict with"
        " torch.save",
    ),
    (
        (
            "torch.distributed.debug*",
            "torch._C._distributed_c10d._WorkerServer*",
            "torch._C._distributed_c10d._register_handler*",
            "torch._C._distributed_c10d._get_handler*",
        ),
        "starts a debugging server",
    ),
    (
        (
            "torch.distributed._symmetric_memory*",
            "torch._C._distributed_c10d._SymmetricMemory*",
            "torch._C._distributed_c10d._detect_dma_connectivity*",
        ),
        "shares raw memory between processes",
    ),
    (
        (
            "torch.distributed.Backend.register_backend",
            "torch.distributed.distributed_c10d.Backend.register_backend",
            "torch.distributed.rendezvous.register_rendezvous_handler",
            "torch.distributed.register_rendezvous_handler",
        ),
        "a backend or rendezvous of the snippet's own would reach beyond the run's ranks",
    ),
    (
        ("torch.distributed.rendezvous._*",),
        "the rendezvous' own machinery makes stores at any address: meet through"
        " init_process_group or rendezvous, whose address is checked",
    ),
)
"""What stays closed to a rank of a ranked run inside torch.distributed, and why."""

SETTINGS_MODULES: tuple[str, ...] = (
    "torch._dynamo.config",
    "torch._inductor.config",
    "torch._functorch.config",
    "torch.compiler.config",
)
"""Settings modules of the compiler family: real scripts import them at the top and set them
(`import torch._inductor.config as config`, `torch._dynamo.config.cache_size_limit = 64`) and
compile only under a flag. They import; what the snippet sets is kept for the snippet alone
(nothing compiles, so it changes nothing), and the capability is refused where it is used
(`torch.compile`, at its line)."""


def settings_path(path: str) -> bool:
    """Whether `path` is a settings module, a section of one (`torch._inductor.config.triton`)
    or a package on the way to one (`torch._inductor`, reached on the way to its config)."""
    return any(
        path == name or path.startswith(name + ".") or name.startswith(path + ".")
        for name in SETTINGS_MODULES
    )


TORCH_OPEN: tuple[str, ...] = (
    "torch.jit.is_scripting",
    "torch.jit.is_tracing",
    "torch.jit.ignore",
    "torch.jit.unused",
    "torch.jit.export",
    "torch.jit.Final",
    "torch.jit.Attribute",
    "torch.jit.annotate",
    "torch.jit._script.*ScriptMeta*",
    "torch.compiler.is_compiling",
    "torch.compiler.is_dynamo_compiling",
    "torch.compiler.disable",
    "torch._dynamo.external_utils.is_compiling",
    "torch._dynamo.eval_frame.disable*",
    "torch.fx._symbolic_trace.is_fx_tracing",
    "torch.fx.wrap",
    "torch.distributed.is_available",
    "torch.distributed.is_initialized",
    "torch.distributed.distributed_c10d.is_available",
    "torch.distributed.distributed_c10d.is_initialized",
    "torch.overrides.has_torch_function*",
    "torch.overrides.is_tensor_like",
    "torch._C._has_torch_function*",
)
"""Queries and markers inside closed families that ordinary model code uses (`if not
torch.jit.is_scripting():`, `@torch.jit.ignore`, `torch.distributed.is_initialized()`): they
compile nothing, start nothing and switch nothing off."""

ABC_REGISTRY = "it changes what isinstance says of classes the snippet did not define"

CLASS_STATE_WRITERS: dict[str, str] = {"abc.ABCMeta.register": ABC_REGISTRY}
"""Methods that write interpreter-global state kept on a class (an ABC's registry, which every
`isinstance` reads, grill's too): the snippet's own classes' business, closed on any other,
bound (`Mapping.register(X)`) or not (`ABCMeta.register(Mapping, X)`)."""

CLOSED_NAMES: dict[str, str] = {
    "enum.global_enum": "it writes an enumeration's members into a module's globals",
    "enum._simple_enum": "it writes into a module's globals",
    "typing.get_type_hints": "it evaluates annotation strings with the real builtins",
    "typing.ForwardRef._evaluate": "it evaluates annotation strings with the real builtins",
    "inspect.get_annotations": "it evaluates annotation strings with the real builtins",
    "weakref.finalize": "it runs code after the run has ended",
    "io.FileIO": "it opens raw file descriptors (use open)",
    "io.open_code": "it opens files for the import system",
    "_io.FileIO": "it opens raw file descriptors (use open)",
    "_io.open_code": "it opens files for the import system",
    "logging.handlers.SocketHandler": "it opens network connections",
    "logging.handlers.DatagramHandler": "it opens network connections",
    "logging.handlers.SysLogHandler": "it opens network connections",
    "logging.handlers.SMTPHandler": "it opens network connections",
    "logging.handlers.HTTPHandler": "it opens network connections",
    "logging.handlers.QueueListener": "it starts a thread",
    "shutil.chown": "it changes file owners",
    "shutil.unpack_archive": "archives are not offered",
    "shutil.make_archive": "archives are not offered",
    "shutil.register_unpack_format": "archives are not offered",
    "shutil.register_archive_format": "archives are not offered",
    "platform.popen": "it starts processes",
    "platform.architecture": "it starts processes",
    "platform.libc_ver": "it reads the interpreter's binary",
    "zipfile.PyZipFile": "it compiles modules",
    "codecs.register": "it changes every program's text codecs",
    "_abc._abc_register": ABC_REGISTRY,
    "_abc._reset_registry": ABC_REGISTRY,
    "_abc._reset_caches": ABC_REGISTRY,
    "abc.ABCMeta._abc_registry_clear": ABC_REGISTRY,
    "abc.ABCMeta._abc_caches_clear": ABC_REGISTRY,
    "codecs.unregister": "it changes every program's text codecs",
    "warnings.showwarning": "grill shows warnings at the candidate's line",
    "pathlib.Path.chmod": "it changes file modes",
    "pathlib.Path.lchmod": "it changes file modes",
    "pathlib.Path.owner": "it reads the host's users",
    "pathlib.Path.group": "it reads the host's groups",
    "pathlib.Path.home": "the run has no home folder",
    "pathlib.Path.expanduser": "the run has no home folder",
    "tempfile.gettempdir": "use the run's own folder",
}
"""Names inside open modules that stay closed, each with why."""

DENIED_ATTRIBUTES: dict[str, str] = {
    "numpy": "a numpy array can write itself to a file (tofile, dump)",
    "tofile": "writes files",
    "dump": "pickles to files",
    "storage": "storages map files and raw memory",
    "untyped_storage": "storages map files and raw memory",
    "_typed_storage": "storages map files and raw memory",
    "from_file": "reads any file, and creates files with shared=True",
    "data_ptr": "raw addresses",
    "const_data_ptr": "raw addresses",
    "mutable_data_ptr": "raw addresses",
    "share_memory_": "creates shared-memory files",
    "share_memory": "creates shared-memory files",
    "_share_filename_cpu_": "creates shared-memory files",
    "_share_fd_cpu_": "creates shared-memory files",
    "load_library": "loads native code",
    "__reduce__": "what pickling runs is not the snippet's to read",
    "__reduce_ex__": "what pickling runs is not the snippet's to read",
}
"""Attribute names refused on every object that is not the snippet's own, because some
object offers an effect under that name."""

GRAPH_NODE_ATTRIBUTES: dict[str, str] = {
    "metadata": "the grader stamps each autograd node with its step there; rewriting it "
    "would forge the verdict",
    "register_prehook": "grill's own hooks are on the graph",
}
"""Attribute names refused on autograd graph nodes (`loss.grad_fn`) only."""

INTERPRETER_DUNDERS: dict[str, str] = {
    "f_globals": "a frame's globals are its module's, or the snippet's namespace",
    "f_builtins": "a frame's builtins hold grill's guards",
    "f_code": "code objects run outside the policy",
    "f_trace": "tracing reaches grill's frames",
    "__globals__": "a function's globals are its module's, or grill's",
    "__builtins__": "the real builtins",
    "__closure__": "a closure's cells reach what the function keeps",
    "__code__": "code objects run outside the policy",
    "__loader__": "the import system",
    "__spec__": "the import system",
    "__path__": "the import system",
    "__getattribute__": "attribute reads go through the sandbox",
    "__setattr__": "attribute writes go through the sandbox",
    "__delattr__": "attribute writes go through the sandbox",
    "__set__": "attribute writes go through the sandbox",
    "__delete__": "attribute writes go through the sandbox",
    "__init_subclass__": "class creation goes through the sandbox",
    "__new__": "object creation goes through the sandbox",
    "__class_getitem__": "class creation goes through the sandbox",
    "__prepare__": "class creation goes through the sandbox",
}
"""Special attributes refused on objects that are not the snippet's own: they lead to
interpreter internals or to the attribute and class protocols the sandbox keeps. On the
snippet's own classes and instances, the lookup and creation hooks are its own business."""

GUARD_NAMES = (
    "_getattr_",
    "_getitem_",
    "_getiter_",
    "_iter_unpack_sequence_",
    "_unpack_sequence_",
    "_write_",
    "_inplacevar_",
    "_augattr_",
    "_augitem_",
    "_call_",
    "_admit_",
    "_with_",
    "_decorate_",
    "_mapping_",
    "_print_",
    "_apply_",
)
"""The names the rewritten code calls grill's guards by (RestrictedPython's and grill's)."""

RESERVED_NAME = re.compile(
    "|".join(map(re.escape, GUARD_NAMES))
    + r"|_print|_tmp\d+|__grill\w*|__builtins__|__metaclass__|printed"
)
"""Names the rewritten code uses for grill's guards and its own bookkeeping: a snippet may
neither bind nor read them. Only these: a name of the same shape is the snippet's (Enum's
`_missing_`, `_ignore_`, `_order_`, `_generate_next_value_`)."""

CANDIDATE_BUILTINS = (
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytearray",
    "bytes",
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
    "hex",
    "id",
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
    "oct",
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
    "type",
    "zip",
    "NotImplemented",
    "Ellipsis",
    "__build_class__",
)
"""Builtins given to snippets as they are (exceptions and warnings come too); `getattr`,
`setattr`, `vars`, `type`, `open` and the rest come as grill's guarded stand-ins."""

REFUSED_BUILTINS: dict[str, str] = {
    "exec": "it runs code outside the policy",
    "eval": "it runs code outside the policy",
    "compile": "it compiles code outside the policy",
    "breakpoint": "a debugger reaches every frame",
    "input": "a run reads no terminal",
    "help": "a run reads no terminal",
    "memoryview": "raw memory",
    "globals": "the snippet's globals hold grill's guards",
    "locals": "a frame's locals are not offered",
    "delattr": "use `del obj.name`",
}
"""Builtins present as stand-ins that refuse when called (so a snippet may still name a
variable `input`, and a call to `exec` reads as a refusal with its reason)."""

BUILTIN_TYPES = frozenset(
    {
        "object",
        "int",
        "float",
        "complex",
        "bool",
        "str",
        "bytes",
        "bytearray",
        "list",
        "tuple",
        "dict",
        "set",
        "frozenset",
        "range",
        "slice",
        "enumerate",
        "zip",
        "map",
        "filter",
        "reversed",
        "super",
        "property",
        "staticmethod",
        "classmethod",
        "type",
        "NoneType",
        "ellipsis",
        "NotImplementedType",
        "generator",
        "coroutine",
        "async_generator",
        "function",
        "builtin_function_or_method",
        "method",
        "method-wrapper",
        "method_descriptor",
        "wrapper_descriptor",
        "classmethod_descriptor",
        "getset_descriptor",
        "member_descriptor",
        "mappingproxy",
        "SimpleNamespace",
        "traceback",
    }
)
"""Builtin types whose instances a snippet may hold (their attributes are judged one by one)."""


@functools.lru_cache(maxsize=8192)
def torch_reason(path: str, ranked: bool = False) -> str | None:
    """Why a torch path (where an object lives, or the name a snippet reached it under) is a
    closed capability, or None when it is open; `ranked`: for a rank of a ranked run. Kept
    per path (the tables are constant): a snippet reaches the same few paths every step
    (`torch.randn`), and matching each against every pattern took a fifteenth of a run."""
    if any(fnmatchcase(path, pattern) for pattern in TORCH_OPEN):
        return None
    if ranked:
        for patterns, reason in TORCH_RANKED_CLOSED:
            if any(fnmatchcase(path, pattern) for pattern in patterns):
                return reason
        if any(fnmatchcase(path, pattern) for pattern in DISTRIBUTED):
            return None
    for patterns, reason in TORCH_CLOSED:
        if any(fnmatchcase(path, pattern) for pattern in patterns):
            return reason
    return None


def is_torch(module: str) -> bool:
    return module == "torch" or module.startswith("torch.")


def module_reason(name: str, ranked: bool = False) -> str | None:
    """Why the module `name` is closed, or None when a snippet may use it (torch's open
    namespaces, the open standard library; `os`, `sys` and `gc` come as views)."""
    if is_torch(name):
        return torch_reason(name, ranked)
    top = name.split(".", 1)[0]
    for candidate in (name, top):
        if candidate in CLOSED_MODULES:
            return CLOSED_MODULES[candidate]
    if name in STDLIB_HOMES or top in OPEN_STDLIB and name.startswith(top + "."):
        return None
    return "a module the sandbox does not offer"
