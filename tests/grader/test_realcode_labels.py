"""The real-code corpus is complete and documented: every file of `realcode/` and
`realcode/unusual/` has a label in `realcode/labels.json` and every label a file; a leak names
the line of its holder and why; every script modeled on a public repository says so in its
header, marks what was adapted with `# grill-corpus:` and is listed in `realcode/SOURCES.md`.
A ranked script's label (`"ranks": N`) comes from N measured ranks. (Grading them is
`test_realcode.py`.)
"""

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "realcode"
LABELER = Path(__file__).parent / "realcode_labeler.py"
LABELS = json.loads((HERE / "labels.json").read_text(encoding="utf-8"))
SCRIPTS = sorted(HERE.glob("*.py"))
UNUSUAL = sorted((HERE / "unusual").glob("*.py"))


def name(path: Path) -> str:
    return path.relative_to(HERE).as_posix()


def test_every_file_has_a_label_and_every_label_a_file():
    assert sorted(LABELS) == sorted(name(path) for path in SCRIPTS + UNUSUAL)
    assert len(SCRIPTS) >= 60


@pytest.mark.parametrize("entry", sorted(LABELS))
def test_a_label_is_clean_or_a_leak_with_its_line_and_why(entry):
    label = LABELS[entry]
    assert label["label"] in ("clean", "leak")
    if label["label"] == "leak":
        lines = (HERE / entry).read_text(encoding="utf-8").splitlines()
        # the line stores the tensor, under the holder's name or, where another container
        # takes it over later (a log flushed into a history), under `stored_as`
        assert label.get("stored_as", label["holder"]) in lines[label["line"] - 1], (entry, label)
        assert label["why"]
    if entry.startswith("unusual/"):
        assert label["label"] == "clean"


@pytest.mark.parametrize("path", SCRIPTS, ids=[path.name for path in SCRIPTS])
def test_a_script_names_its_source_and_marks_its_adaptations(path):
    text = path.read_text(encoding="utf-8")
    assert "Modeled on " in text[:1500]
    sources = (HERE / "SOURCES.md").read_text(encoding="utf-8")
    assert f"`{path.name}`" in sources


def test_the_scripts_come_from_at_least_ten_repositories():
    sources = (HERE / "SOURCES.md").read_text(encoding="utf-8")
    repositories = {
        line.split("|")[2].strip()
        for line in sources.splitlines()
        if line.startswith("| `") and line.count("|") > 3
    }
    assert len(repositories) >= 10, repositories


RANKED = sorted(entry for entry, label in LABELS.items() if "ranks" in label)


def test_the_corpus_holds_ranked_scripts_and_their_leak_twins():
    assert len(RANKED) >= 8
    assert sum(entry.startswith("variant_leak_") for entry in RANKED) >= 4


@pytest.mark.parametrize("entry", RANKED)
def test_a_ranked_label_was_measured_on_every_rank(entry):
    """A script written for `torchrun --nproc-per-node N` is labelled from N measured ranks
    (`realcode_labeler.py` runs them as torchrun would): a leak when any rank's graph climbs."""
    label = LABELS[entry]
    assert isinstance(label["ranks"], int) and 2 <= label["ranks"] <= 16, label
    assert "init_process_group" in (HERE / entry).read_text(encoding="utf-8")
    ranks = label["measured"]["ranks"]
    assert len(ranks) == label["ranks"]
    assert all(not rank.get("error") for rank in ranks), ranks
    climbs = any(rank["label"] == "leak" for rank in ranks)
    assert label["measured"]["label"] == ("leak" if climbs else "clean")
    assert label["label"] == label["measured"]["label"], "a ranked label differs from its measure"


TWO_RANKS = """\
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
model = DDP(torch.nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
kept = []
for step in range(16):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if dist.get_rank() == 1:
        kept.append(loss)
dist.destroy_process_group()
"""


def test_the_labeler_measures_each_rank_of_a_ranked_script(tmp_path):
    """Only rank 1 keeps its losses: the run is a leak, seen on rank 1 and not on rank 0."""
    spec = importlib.util.spec_from_file_location("realcode_labeler", LABELER)
    labeler = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(labeler)
    script = tmp_path / "two_ranks.py"
    script.write_text(TWO_RANKS, encoding="utf-8")
    measured = labeler.measure_ranked(script, 2)
    assert measured["error"] is None, measured
    assert [rank["label"] for rank in measured["ranks"]] == ["clean", "leak"]
    assert measured["label"] == "leak"
