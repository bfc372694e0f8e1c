"""A code task's contract in plain words (`checkers.contract_words`): every field of every
contract model has its words, and every shipped task's contract says each promise it makes."""

from __future__ import annotations

from functools import cache

import pytest
from pack_loading import shipped_library

from checkers.contract_words import (
    ALWAYS_CHECKED,
    COMMUNICATION_WORDS,
    COMPARED_WORDS,
    CONTRACT_WORDS,
    PER_UPDATE_WORDS,
    compared_line,
    contract_lines,
    number,
)
from checkers.task import Communication, Compared, Contract, PerUpdate


@cache
def shipped_tasks() -> dict[str, Contract]:
    library = shipped_library()
    assert library.problems == []
    return {
        card.id: card.card.code_task.contract
        for card in library.cards
        if card.summary.code_task and card.card.code_task is not None
    }


@pytest.mark.parametrize(
    ("model", "table"),
    [
        (Contract, CONTRACT_WORDS),
        (Compared, COMPARED_WORDS),
        (PerUpdate, PER_UPDATE_WORDS),
        (Communication, COMMUNICATION_WORDS),
    ],
    ids=["Contract", "Compared", "PerUpdate", "Communication"],
)
def test_every_field_of_every_contract_model_has_its_words(model, table):
    """A field added to the contract with no words for it fails here, not on a user's screen."""
    assert sorted(table) == sorted(model.model_fields)


def test_there_are_shipped_tasks_to_say():
    assert len(shipped_tasks()) >= 40


@pytest.mark.parametrize("card_id", sorted(shipped_tasks()))
def test_every_shipped_contract_says_each_promise_it_makes(card_id):
    contract = shipped_tasks()[card_id]
    lines = contract_lines(contract)
    assert lines[0] == ALWAYS_CHECKED
    assert all(line.strip() and "\n" not in line and not line.endswith(".") for line in lines)
    for field in Contract.model_fields:
        value = getattr(contract, field)
        if value not in (None, False):  # set, so checked: said
            assert CONTRACT_WORDS[field](contract), f"{card_id}: {field} is left unspoken"
    for compared in contract.same_as_solution:
        line = compared_line(compared)
        assert line in lines and f"`{compared.name}`" in line
        assert f"relative tolerance {number(compared.rtol)}" in line
        assert ("a Python number" in line) == compared.tensors
        assert ("dtype" in line) == compared.dtype
        assert ("bytes" in line) == (compared.bytes is not None)
    if contract.per_update is not None:
        for field in PerUpdate.model_fields:
            if getattr(contract.per_update, field) is not None:
                assert PER_UPDATE_WORDS[field](contract.per_update), (card_id, field)
    if contract.communication is not None:
        for field in Communication.model_fields:
            if getattr(contract.communication, field) not in (None, False):
                assert COMMUNICATION_WORDS[field](contract.communication), (card_id, field)


def test_a_contract_in_words():
    contract = Contract(
        same_as_solution=[
            Compared(name="loss_sum", tensors=True),
            Compared(name="model", rtol=1e-5, atol=0),
            Compared(name="cache", dtype=True, bytes="at_most"),
        ],
        peak_memory=0.25,
        per_update=PerUpdate(host_syncs="at_most", backward_passes="same"),
        communication=Communication(per_update="at_most", bytes_per_update="same", averaged=True),
    )
    assert contract_lines(contract) == [
        ALWAYS_CHECKED,
        "trains as the reference solution does: at least as many backward passes, and at least as "
        "many optimizer updates that change the model",
        "leaves `loss_sum` as the reference solution does (kept a tensor where the solution "
        "keeps one: a Python number from `.item()` is refused; relative tolerance 1e-4; "
        "absolute tolerance 1e-6)",
        "leaves `model` as the reference solution does (relative tolerance 1e-5; absolute "
        "tolerance 0)",
        "leaves `cache` as the reference solution does (in the solution's dtype: the same values "
        "in another dtype are refused; holding at most as many bytes as the solution's; relative "
        "tolerance 1e-4; absolute tolerance 1e-6)",
        "peaks under 25% of the starter's memory (the host heap on CPU, allocated bytes on CUDA)",
        "makes at most as many host synchronisations per optimizer update as the reference "
        "solution (`.item()`, `.tolist()`, `.cpu()`, `float()`, printing a tensor or an `if` on "
        "one, and results sized by the data: `x[mask]`, `nonzero`, `unique`, `bincount`)",
        "runs as many backward passes per optimizer update as the reference solution",
        "every rank steps on the same gradients at each update, and the ranks end with the same "
        "weights",
        "each rank makes at most as many collectives per optimizer update as the reference "
        "solution",
        "each rank sends as many bytes per optimizer update as the reference solution (10% of "
        "slack)",
        "the gradients are averaged over the ranks, not summed (the first update's match the "
        "solution's)",
    ]


def test_what_is_not_checked_is_not_said():
    contract = Contract(trains=False, same_as_solution=[Compared(name="total")])
    assert contract_lines(contract) == [
        ALWAYS_CHECKED,
        "leaves `total` as the reference solution does (relative tolerance 1e-4; absolute "
        "tolerance 1e-6)",
    ]
