"""The shorthand people type in an answer, written out, for pre-marking (`app.mock.match`).

One list for every card: a candidate writes `grads`, `init`, `lr`, `log(C)` or `bwd` where a
card's key points say `gradients`, `initialisation`, `learning rate`, `ln(number of classes)`
and `backward`. Both the answer and the card's phrases are written out the same way before
they are compared, so an entry never has to be repeated in a card's signals, and a card that
itself says `lr` still matches an answer that says `learning rate`.

Entries are tried in order, so a longer form comes before a shorter one it starts with. Each
entry is a regular expression for the typed form (lower case, matched as a whole word)
and the words it stands for. Entries are short technical forms that mean one thing in a
training-loop answer: a word that is also plain English (`log`, `opt`, `mem` in a sentence
about memos) is left out, or only its unambiguous form is listed (`log(`).
"""

from __future__ import annotations

import re

CLASSES = r"(?:c|k|n|n_?classes|num_?classes|number_of_classes|num classes|classes)"

SHORTHAND: dict[str, str] = {
    # gradients and the backward pass
    r"grad[_ ]?norms?": "gradient norm",
    r"grad[_ ]?accum(?:ulation)?": "gradient accumulation",
    r"grads?": "gradients",
    r"accum": "accumulation",
    r"bwd": "backward",
    r"fwd": "forward",
    r"backprop": "backward",
    # the training set-up
    r"init": "initialisation",
    r"lr": "learning rate",
    r"lrs": "learning rates",
    r"wd": "weight decay",
    r"bs": "batch size",
    r"params?": "parameters",
    r"optim": "optimizer",
    r"sched": "scheduler",
    r"ckpts?": "checkpoint",
    r"acts": "activations",
    r"activs?": "activations",
    r"seq[_ ]?len": "sequence length",
    r"bn|batchnorm": "batch norm",
    r"-\s*log\s*\(\s*1\s*/\s*" + CLASSES + r"\s*\)": "ln(number of classes)",
    r"(?:ln|log)\s*\(\s*" + CLASSES + r"\s*\)": "ln(number of classes)",
    r"xent|cross[- ]?ent": "cross entropy",
    r"amp": "automatic mixed precision",
    r"bf16": "bfloat16",
    r"fp16|half precision": "float16",
    r"fp32": "float32",
    r"oom": "out of memory",
    r"mem": "memory",
    r"eval": "evaluation",
    r"iters?": "iterations",
    # small words typed as symbols or digits
    r"w/o": "without",
    r"w/": "with",
    r"b/c|bc": "because",
    r"1": "one",
    r"0": "zero",
    r"nonzero|non zero": "non-zero",
    r"tiny": "small",
}
"""Typed form (a regular expression, whole words) to the words it stands for."""

_WORD = r"[a-z0-9_]"
_PATTERN = re.compile(
    "|".join(
        f"(?<!{_WORD})(?<![./])(?P<e{index}>{typed})(?!{_WORD})(?![./]\\w)(?!\\()"
        for index, typed in enumerate(SHORTHAND)
    )
)
_EXPANSIONS = list(SHORTHAND.values())


def written_out(text: str) -> str:
    """`text` (lower case) with each typed shorthand replaced by the words it stands for.
    A form inside a longer token, or called, is left alone: `0` in `0.5`, `lr` in
    `lr_scheduler`, `init` in `__init__`, `iter(loader)`."""
    return _PATTERN.sub(lambda match: _EXPANSIONS[int(match.lastgroup[1:])], text)  # type: ignore[index]
