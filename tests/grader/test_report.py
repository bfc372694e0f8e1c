"""The terminal report, rendered from hand-built verdicts."""

import dataclasses

from checkers.report import BLOCKS, draw_curve, render
from checkers.verdict import Retained, Verdict


def leak(retained_count: int) -> Verdict:
    retained = tuple(
        Retained(f"losses[{i}]", "MeanBackward0", 6, 0, 14) for i in range(retained_count)
    )
    return Verdict(
        verdict="leak",
        device="cpu",
        steps=60,
        pattern="monotonic",
        growth_bytes_per_step=3500.0,
        samples=tuple(3500.0 * i for i in range(60)),
        retained=retained[:20],
        message="`losses` holds tensors.",
        hint="Use .item().",
        extra={"retained_total": retained_count},
    )


def test_a_leak_report_has_verdict_curve_table_and_hint_in_that_order():
    text = render(leak(3))
    order = [
        text.index(part)
        for part in (
            "LEAK",
            "monotonic, 3.4 KB per step",
            "Memory above the first step",
            "`losses` holds",
            "losses[2]",
            "Hint: Use .item().",
        )
    ]
    assert order == sorted(order)


def test_a_long_retained_list_is_cut_with_a_count_of_the_rest():
    text = render(leak(59))
    assert "losses[9]" in text and "losses[10]" not in text
    assert "… and 49 more" in text


def test_the_curve_rises_left_to_right_for_a_growing_series():
    rows = draw_curve([1024.0 * i for i in range(40)], height=4).splitlines()[1:5]
    bottom, top = rows[-1].split("│")[1], rows[0].split("│")[1]
    assert bottom[0] in BLOCKS[:2] and bottom[-1] == "█"
    assert top[0] == " " and top[-1] == "█"


def test_a_long_series_is_squeezed_to_the_curve_width():
    columns = draw_curve([0.0] * 500 + [1e6], width=50).splitlines()[1].split("│")[1]
    assert len(columns) == 50
    assert columns[-1] == "█"


def test_a_not_graded_verdict_shows_the_reason_line_and_traceback_but_no_curve():
    verdict = Verdict.not_graded(
        "error", "cpu", "index 5 is out of bounds", line=4, kind="IndexError"
    )
    verdict = dataclasses.replace(verdict, extra={"traceback": "  File x, line 4\nIndexError"})
    text = render(verdict)
    assert text.startswith("NOT GRADED (the snippet raised an error)")
    assert "IndexError: index 5 is out of bounds (line 4)" in text
    assert "File x, line 4" in text
    assert "Memory" not in text


def test_printed_output_is_shown_last_and_capped():
    verdict = Verdict(
        verdict="clean",
        device="cpu",
        steps=60,
        message="ok",
        output="".join(f"line {i}\n" for i in range(40)),
    )
    text = render(verdict)
    assert text.rstrip().endswith("line 39")
    assert "last 15 of 40 lines" in text and "line 24" not in text


def test_the_report_fits_an_80_column_terminal():
    """Long messages and hints are wrapped, a long path is cut in the middle, the curve fits."""
    path = "trainer.state.history_by_metric['validation_loss'][12]"
    verdict = Verdict(
        verdict="leak",
        device="cpu",
        steps=2000,
        pattern="monotonic",
        growth_bytes_per_step=3500.0,
        samples=tuple(3500.0 * i for i in range(2000)),
        retained=(Retained(path, "MseLossBackward0", 10, 123456, 1234),),
        message="`trainer.metrics['loss']` holds 59 tensors that still carry their"
        " autograd graphs (MseLossBackward0) (line 24): every step's graph"
        " stays alive.",
        hint="Store `loss.item()` (a Python float) or `tensor.detach()` in the"
        " container, not the tensor that still points at its graph.",
    )
    text = render(verdict)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "`trainer.metrics['loss']`" in text and "(line 24)" in text
    assert "trainer.state.h…" in text and "'][12]" in text


def test_flat_noise_of_a_few_bytes_is_drawn_flat_not_as_a_full_height_climb():
    rows = draw_curve([float(i % 7) * 16 for i in range(40)], height=4).splitlines()[1:5]
    assert all(set(row.split("│")[1]) <= {" "} for row in rows[:-1])


def test_a_snippet_that_built_no_graph_is_not_said_to_have_raised():
    verdict = Verdict.not_graded(
        "error", "cpu", "No autograd graph was built: it trains nothing.", kind="NoGraph"
    )
    text = render(verdict)
    assert text.startswith("NOT GRADED (no autograd graph was built)")
    assert "raised" not in text and "NoGraph" not in text


def test_a_wrong_fix_lists_the_contract_with_what_it_missed():
    from checkers.verdict import Expectation

    verdict = Verdict(
        verdict="wrong",
        device="cpu",
        steps=0,
        message="The fix no longer trains.",
        expectations=(
            Expectation(
                "trains",
                False,
                "The fix makes no backward passes; the solution makes 60: it no longer trains.",
            ),
            Expectation("same:model", True, "`model` matches."),
        ),
    )
    text = render(verdict)
    # an unchanged starter is no fix, so the headline does not call it one
    assert text.startswith("WRONG: the code does not do what the task asks")
    assert "NO  The fix makes no backward passes" in text and "ok  `model` matches." in text


def test_no_cuda_device_is_said_plainly_and_whole_at_80_columns():
    message = (
        "No CUDA device is available on this machine (no NVIDIA GPU was found), so nothing"
        " ran. Grade on the CPU instead (--device cpu or auto)."
    )
    text = render(Verdict.not_graded("error", "cuda", message, kind="device"))
    assert text.startswith("NOT GRADED (no CUDA device: nothing ran)")
    assert "SandboxError" not in text and "so nothing ran" in " ".join(text.split())
    assert max(len(line) for line in text.splitlines()) <= 80


def test_lines_torch_writes_because_of_the_sandbox_are_not_the_snippets_output():
    """cpuinfo cannot read /proc/cpuinfo inside the sandbox, and says so on standard error
    in most runs; the profiler that counts a peak says it starts and stops."""
    from checkers.verdict import shown_output

    printed = (
        "epoch 0 loss 0.5\n"
        "Error in cpuinfo: failed to parse processor information from /proc/cpuinfo\n"
        "[W1201 22:11:55.962099627 NNPACK.cpp:54] Could not initialize NNPACK! Reason: Out of"
        " memory.\n"
        "[W1201 23:05:46.835932810 CPUAllocator.cpp:245] Memory block of unknown size was"
        " allocated before the profiling started, profiler results will not include the"
        " deallocation event\n"
        "USDT:2026-12-01 23:05:23 3805:3805 SyncActivityProfilerHandler.cpp:52] profiler_start\n"
        "epoch 1 loss 0.4\n"
    )
    assert shown_output(printed) == "epoch 0 loss 0.5\nepoch 1 loss 0.4\n"
    verdict = Verdict.not_graded("error", "cpu", "boom", output=printed)
    assert "cpuinfo" not in verdict.output and "epoch 1" in verdict.output


def test_a_fix_that_trains_nothing_is_reported_as_judged_by_its_contract_not_by_training():
    """An inference task's fix makes no training step: its report does not speak of memory
    piling up "as training goes on" nor of a curve too short to name."""
    untrained = Verdict(verdict="clean", device="cpu", steps=0)
    text = render(untrained)
    assert text.startswith("CLEAN: the task's contract is kept, and no autograd graph is left")
    assert "device cpu · no training steps: judged by the task's contract alone" in text
    assert "training goes on" not in text and "too few steps" not in text
    trained = render(dataclasses.replace(untrained, steps=3))
    assert trained.startswith("CLEAN: no autograd graph piles up as training goes on")
    assert "3 training steps · too few steps to name the memory curve's shape" in trained
