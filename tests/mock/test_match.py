"""The matcher pre-marks key points and red flags from paraphrased typed answers."""

from app.mock.match import find_phrase, pre_mark, required_words, stem, tokens


def test_inflected_forms_share_a_stem():
    assert len({stem(w) for w in ("store", "stores", "stored", "storing")}) == 1
    assert stem("graphs") == stem("graph")
    assert stem("memories") == stem("memory")
    assert stem("accumulation") == stem("accumulates") == stem("accumulate")
    assert stem("stopped") == stem("stop")


def test_code_is_split_into_words():
    assert tokens("total += loss.item()") == ["total", "loss", "item()"]
    assert tokens("Don't") == ["do", "not"]
    assert tokens("call loss.item(), then stop.") == [
        "call",
        "loss",
        "item()",
        "|",
        "then",
        "stop",
        "||",
    ]


def test_a_call_in_a_phrase_needs_a_call_in_the_answer():
    assert not find_phrase("cpu()", tokens("the CPU waits for the GPU"))
    assert find_phrase("cpu()", tokens("x.cpu() copies to the host"))
    assert find_phrase("detach", tokens("store loss.detach() instead"))


def test_stop_words_are_not_content():
    assert required_words("the graph is kept") == ("graph", "kept")
    assert not find_phrase("the of is", tokens("the graph of it is big"))


def test_word_order_and_case_do_not_matter():
    answer = tokens("It is the Graph of the COMPUTATION that stays around")
    assert find_phrase("computation graph", answer)


def test_words_far_apart_do_not_make_a_phrase():
    answer = tokens(
        "the computation finished early and then, much later in another part "
        "of the program entirely, we drew a graph"
    )
    assert not find_phrase("computation graph", answer)


def test_a_correct_paraphrase_hits_its_key_points(cards):
    card = cards["loss-accumulation"].card
    answer = (
        "Because total is a tensor that still has a grad_fn, each step's graphs of computation "
        "stay reachable and memory grows with every iteration. I'd accumulate loss.item() "
        "instead so only a Python float is kept."
    )
    marks = pre_mark(card, answer)
    assert marks.key_points_hit == {0, 1, 2}
    assert marks.red_flags_said == set()


def test_a_partial_answer_hits_only_what_it_says(cards):
    card = cards["no-grad-eval"].card
    marks = pre_mark(card, "eval() changes how Dropout behaves.")
    assert marks.key_points_hit == {2}
    assert marks.key_points[2].matched_by == "dropout"


def test_an_answer_stating_a_red_flag_is_caught(cards):
    card = cards["loss-accumulation"].card
    marks = pre_mark(card, "Just call torch.cuda.empty_cache() after each step and it goes away.")
    assert marks.red_flags_said == {0}


def test_a_red_flag_the_candidate_rejects_is_not_counted(cards):
    card = cards["loss-accumulation"].card
    marks = pre_mark(card, "You should never reach for retain_graph here; detach instead.")
    assert 1 not in marks.red_flags_said
    assert 1 in marks.key_points_hit


def test_a_negation_in_another_clause_does_not_cancel_a_red_flag(cards):
    card = cards["loss-accumulation"].card
    marks = pre_mark(card, "Call empty_cache after each step, and you won't see the growth again.")
    assert marks.red_flags_said == {0}


def test_a_red_flag_in_different_words_is_caught(cards):
    card = cards["no-grad-eval"].card
    marks = pre_mark(card, "Calling eval turns autograd off, so you don't need anything else.")
    assert marks.red_flags_said == {0}


def test_an_unrelated_answer_matches_nothing(cards):
    for loaded in cards.values():
        marks = pre_mark(
            loaded.card,
            "I would ask the product team about the deadline and write "
            "a design document before choosing a database.",
        )
        assert marks.key_points_hit == set(), loaded.card.id
        assert marks.red_flags_said == set(), loaded.card.id


def test_an_empty_answer_matches_nothing(cards):
    marks = pre_mark(cards["retain-graph-error"].card, "")
    assert not marks.key_points_hit and not marks.red_flags_said


def test_a_phrase_that_needs_its_stop_words_keeps_them():
    """ "if tensor" does not match every answer that says "tensor"."""
    assert not find_phrase("if tensor", tokens("Keep the running total as a tensor on the device."))
    assert find_phrase("if tensor", tokens("Writing if tensor: forces a sync."))
    assert find_phrase("if tensor", tokens("if the tensor is checked in Python, the CPU waits"))


def test_the_words_of_a_short_phrase_must_be_close():
    assert not find_phrase(
        "hidden sync", tokens("the hidden state is reset each epoch, and we sync the metrics")
    )
    assert find_phrase("hidden sync", tokens("that print is a hidden device sync"))


def test_each_and_every_are_one_word_when_a_phrase_keeps_its_stop_words():
    assert find_phrase("every iteration", tokens("each iteration links its graph onto the last"))
    assert not find_phrase("every iteration", tokens("the iteration count is logged"))


def test_an_answer_about_neither_hidden_sync_ticks_no_hidden_sync(shipped_item_card):
    """An answer about keeping the total on the device says "tensor" but names no other hidden
    sync: the key point listing them (`if tensor` among its signals) stays unticked."""
    marks = pre_mark(
        shipped_item_card,
        "I keep the running loss as a tensor on the device and call detach "
        "so the graph is freed; item() each step makes the CPU wait for the GPU.",
    )
    assert 4 not in marks.key_points_hit
    assert 1 in marks.key_points_hit
