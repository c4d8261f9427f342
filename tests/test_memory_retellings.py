"""Retellings of one fact in other words (issue 22): reporting frames read through, would not / refused as one
refusal, modal verbs kept apart, verb synonyms and fronted phrases; every rule on its own table."""

from __future__ import annotations

from memory import guard, lexicon


def test_a_contracted_negation_ends_a_noun_phrase():
    assert guard.features("The boatman wouldn't take the coins.").subject == {"boatman"}


def test_agreed_folds_like_agree():
    assert lexicon.key("agreed") == lexicon.key("agree") and lexicon.key("agreed") in lexicon.POLAR


def test_according_is_not_a_name():
    assert not guard.features("According to the log, the ship sank.").entities
