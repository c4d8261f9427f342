"""Retellings that name a person by their post, a first name short, an exchange from the other side, or a deed by
another verb: each rule on its own table, and the near misses beside them that must stay apart."""

from __future__ import annotations

import pytest

from memory import MemorySettings, canonical, equivalence, frames, guard, verbs, wordnet


@pytest.mark.parametrize("noun, person", [("purser", True), ("prioress", True), ("sister", True), ("bosun", True),
                                          ("manifest", False), ("crate", False), ("watch", False)])
def test_a_kind_of_person_is_read_from_wordnet(noun, person):
    assert wordnet.names_a_person(noun) is person


@pytest.mark.parametrize("a, b, ok", [
    ("The purser falsified the cargo manifest.", "Idris Mabon falsified the cargo manifest.", True),
    ("Idris hid his sister in crate 17.", "Idris hid Cerys in crate 17.", True),
    # two kinds of person, or two names, are two people
    ("Only the cook and the purser hold keys.", "Only the cook and the bosun hold keys.", False),
    ("Idris took the mutton.", "Fen took the mutton.", False),
])
def test_a_person_named_on_one_side_may_be_spoken_of_by_their_post_on_the_other(a, b, ok):
    assert guard.check(a, b).ok is ok


@pytest.mark.parametrize("a, b, aligned", [
    ("The cook blamed Fennimore Tallis.", "Barnabas accused Fen.", ("The cook blamed Fen.", "Barnabas accused Fen.")),
    ("Wil Reyes came.", "Willow came.", ("Wil Reyes came.", "Willow came.")),  # a word of the language is no name's long form
    ("Al Pike came.", "Alfred came.", ("Al Pike came.", "Alfred came.")),  # two letters could be anyone's
])
def test_a_first_name_given_short_is_the_same_name(a, b, aligned):
    assert frames.align_names(a, b) == aligned


@pytest.mark.parametrize("text, form", [
    ("The Sable Street foreman paid Joachim 40 guilders for the recipe.",
     "Joachim sold the recipe to the Sable Street foreman for 40 guilders."),
    ("Kit borrowed Ines's pass card.", "Ines lent the pass card to Kit."),
    ("Cassian got the second key from the prioress, Aurelie Dusant.", "Aurelie Dusant gave the second key to Cassian."),
    ("The cook, Barnabas, took the mutton.", "Barnabas took the mutton."),
    ("I met the cook, Barnabas, and Idris.", "I met the cook, Barnabas, and Idris."),  # a list: three people
])
def test_one_wording_for_a_sale_a_loan_and_a_person_named_beside_their_post(text, form):
    assert canonical.canonical(text) == form


def test_a_deed_by_a_narrower_verb_or_a_hypernym_is_one_deed_but_opposites_are_not():
    assert verbs.same_deed("remove", "take") and verbs.same_deed("accuse", "blame")
    assert not verbs.same_deed("lock", "unlock") and not verbs.same_deed("sell", "buy")
    assert not verbs.same_deed("hire", "dismiss")


@pytest.mark.parametrize("a, b, same", [
    ("Idris concealed Cerys in crate 17.", "Idris hid his sister in crate 17.", True),
    ("The cook blamed Fen for the theft of the mutton.", "Barnabas accused Fen of stealing the mutton.", True),
    # a detail swapped where no participant sits (a modifier, a bare noun, a further verb)
    ("Dorotea hid the coins in a potato sack.", "Dorotea hid the coins in a flour sack.", False),
    ("Sun Quan sent grain to Cao Cao.", "Sun Quan sent silk to Cao Cao.", False),
    ("The captain ordered the men to stop rowing.", "The captain ordered the men to row.", False),
])
def test_every_word_of_substance_needs_its_counterpart(a, b, same):
    assert guard.counterparts(a, b) is same
    rule = equivalence.structural_rule(a, b, 0.6, MemorySettings())
    assert (rule == "counterparts") is same


@pytest.mark.real_embedder
def test_a_real_store_lands_a_retelling_by_post_on_the_named_record_and_keeps_a_swapped_detail_apart():
    from memory import ConsensusStore
    from memory.embedder import shared_embedder

    store = ConsensusStore.open(None, embedder=shared_embedder(), settings=MemorySettings())
    (named,) = store.remember("fen", "Idris concealed Cerys in crate 17.")
    (by_post,) = store.remember("gregor", "Idris hid his sister in crate 17.")
    assert by_post == named  # one record, two owners
    (potato,) = store.remember("fen", "Dorotea hid the coins in a potato sack.")
    (flour,) = store.remember("gregor", "Dorotea hid the coins in a flour sack.")
    assert flour != potato
