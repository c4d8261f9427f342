"""Retellings of one fact in other words (issue 22): reporting frames read through, would not / refused as one
refusal, modal verbs kept apart, verb synonyms and fronted phrases; every rule on its own table."""

from __future__ import annotations

import pytest

from memory import frames, guard, lexicon


@pytest.mark.parametrize("text, rewritten", [
    ("The ghost would not speak.", "The ghost refused to speak ."),
    ("The mare wouldn't cross the ford.", "The mare refused to cross the ford ."),
    ("Odile did not want to sign.", "Odile refused to sign ."),
    ("Odile didn't want to sign.", "Odile refused to sign ."),
    ("Perrin was unwilling to lend his boat.", "Perrin refused to lend his boat ."),
    ("Perrin was not willing to lend his boat.", "Perrin refused to lend his boat ."),
    ("The clerk would not have signed.", "The clerk would not have signed ."),  # a conditional, not a refusal
    ("It would not be wise.", "It would not be wise ."),
    ("The clerk would sign.", "The clerk would sign ."),
])
def test_negated_volition_reads_as_refused(text, rewritten):
    assert " ".join(frames.volition(frames.tokens(text))) == rewritten


@pytest.mark.parametrize("text, modals", [
    ("The clerk could not sign the deed.", {"can"}),
    ("The clerk was unable to sign the deed.", {"can"}),
    ("The clerk cannot sign the deed.", {"can"}),
    ("The clerk would not sign the deed.", {"refuse"}),
    ("The clerk declined to sign the deed.", {"refuse"}),
    ("The clerk wanted to sign the deed.", {"want"}),
    ("The clerk agreed to sign the deed.", {"agree"}),
    ("The clerk tried to sign the deed.", {"try"}),
    ("The clerk must sign the deed.", {"must"}),
    ("The clerk signed the deed.", set()),
    ("The clerk did not sign the deed.", set()),
    ("The clerk wanted the deed.", set()),  # a verb counts as modal only before "to"
])
def test_modal_concepts(text, modals):
    assert frames.frame(text).modals == modals


@pytest.mark.parametrize("a, b", [
    # fronted time and place
    ("At midnight on the battlements, Marcellus saw the ghost.", "Marcellus saw the ghost on the battlements at midnight."),
    ("In the orchard, the king slept.", "The king slept in the orchard."),
    # verb synonyms (lexicon groups and two-word forms)
    ("Barnardo spotted the figure.", "Barnardo saw the figure."),
    ("The thief fled.", "The thief ran away."),
    ("The thief fled through the window.", "The thief ran off through the window."),
    ("The duke murdered the clerk.", "The duke killed the clerk."),
    # negated volition
    ("The Ghost would not speak to Horatio.", "The Ghost refused to speak to Horatio."),
    ("The boatman wouldn't take the coins.", "The boatman refused to take the coins."),
    ("The clerk did not want to sign the deed.", "The clerk refused to sign the deed."),
    ("The clerk was unwilling to sign the deed.", "The clerk declined to sign the deed."),
])
def test_retellings_pass_the_guard_and_frames(a, b):
    for x, y in ((a, b), (b, a)):
        assert guard.check(x, y).ok, (x, y, guard.check(x, y))
        assert frames.similarity(x, y) >= 0.8, (x, y)


@pytest.mark.parametrize("a, b, reason", [
    ("The Ghost spoke to Horatio.", "The Ghost would not speak to Horatio.", "negation"),
    ("The Ghost would speak to Horatio.", "The Ghost would not speak to Horatio.", "negation"),
    ("Pell wanted to pay the toll.", "Pell did not want to pay the toll.", "negation"),
    ("Nerys refused to marry the lord.", "Nerys agreed to marry the lord.", "opposite"),
    ("The clerk could not sign the deed.", "The clerk would not sign the deed.", "modality"),
    ("The clerk did not sign the deed.", "The clerk refused to sign the deed.", "modality"),
    ("The clerk would not have signed the deed.", "The clerk refused to sign the deed.", "modality"),
    ("The clerk wanted to sign the deed.", "The clerk signed the deed.", "modality"),
    ("The clerk tried to sign the deed.", "The clerk signed the deed.", "modality"),
    ("The clerk agreed to sign the deed.", "The clerk wanted to sign the deed.", "modality"),
    ("At midnight on the battlements, Marcellus saw the ghost.", "Marcellus saw the ghost on the battlements at dawn.", "time"),
    ("In the orchard, the king slept.", "The king slept in the garden.", "place"),
])
def test_guard_keeps_retold_differences_apart(a, b, reason):
    for x, y in ((a, b), (b, a)):
        assert guard.check(x, y).reason == reason, (x, y, guard.check(x, y))


def test_a_contracted_negation_ends_a_noun_phrase():
    assert guard.features("The boatman wouldn't take the coins.").subject == {"boatman"}


def test_agreed_folds_like_agree():
    assert lexicon.key("agreed") == lexicon.key("agree") and lexicon.key("agreed") in lexicon.POLAR


def test_according_is_not_a_name():
    assert not guard.features("According to the log, the ship sank.").entities
