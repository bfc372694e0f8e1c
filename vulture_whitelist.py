"""Names vulture (`make check`) cannot see used: each is read by name by something outside
grill's own code. Anything else it reports is dead and goes."""

# ruff: noqa
# fmt: off

# Fields of the TypedDicts that cross the sandbox as JSON (checkers/measurements.py,
# checkers/verdict.py): written and read as keys, never as attributes.
root_used, node_only, in_container, used_after, step_first, step_last, unsupported
after_updates, unwatched_nodes, sandbox_notes, retained_total, environment
# A contract's rates (checkers/task.py PerUpdate), read by the names in checkers/judge/rates.py.
backward_passes
# Fields of the resource limits' TypedDicts (checkers/sandbox/limits.py), read as keys.
memory_bytes, open_files, file_bytes

# Parameters a protocol fixes: argparse.Action.__call__'s option_string, __exit__'s exc_info,
# RestrictedPython's allow_magic_methods, dynamo's wrapping, PyYAML's resolver arguments.
option_string, exc_info, allow_magic_methods, wrapping, current_index, current_node

# Attributes set for a library to read: sqlite3's text_factory, Textual's variant, auto_width,
# _syntax_tree and _get_left_gutter_width, argparse's formatter_class, warnings' showwarning,
# sys.unraisablehook, prctl capability sets, torch.distributed's object (de)serialisers, the
# policy's print hook, the single-process DataLoader's _get_iterator, dynamo's graph_break,
# importlib's create_module, PyYAML's resolver hooks, Textual's cursor_blink (tests),
# can_focus (the mock's review, once confirmed), tempfile's tempdir (a run's default folder)
# and Textual's prepare_query (app/ui/widgets/editor.py: compiled once).
_ = object()
_.text_factory, _.variant, _.auto_width, _._syntax_tree, _.__class__, _._get_left_gutter_width
_.formatter_class, _.showwarning, _.unraisablehook, _.effective, _.permitted
_._object_to_tensor, _._tensor_to_object, _._call_print, _._get_iterator
_.graph_break, _.create_module, _.descend_resolver, _.ascend_resolver, _.cursor_blink, _.tempdir
_.prepare_query
_.can_focus

# Test code: fixtures asked for by parameter name for their effect (no_worker, two_attempts,
# edited_history, isolated_home), hook signatures (grad_in, grad_out, inputs), and values set
# on objects for the scan under test to find (last_out, losses).
no_worker, two_attempts, edited_history, isolated_home, grad_in, grad_out, inputs
_.last_out, _.losses
PolicedStrFormatStyle._format  # logging.StrFormatStyle.format calls it
_.track_running_stats  # a BatchNorm switch a fact test turns off, for the module to read
