"""Retellings of one fact in other words (issue 22): reporting frames read through, would not / refused as one
refusal, modal verbs kept apart, verb synonyms and fronted phrases; every rule on its own table."""

from __future__ import annotations

import pytest

from memory import ConsensusStore, disputes, frames, guard, lexicon
from tests.support.fixtures_memory import HashEmbedder


@pytest.mark.parametrize("text, core", [
    ("According to the harbour log, the ship sank off the reef.", "The ship sank off the reef."),
    ("The ship sank off the reef, according to the harbour log.", "The ship sank off the reef."),
    ("Tobin says that the mill burned.", "The mill burned."),
    ("Sister Alba said that the relic was stolen.", "The relic was stolen."),
    ("The reeve's letter says that the mill was flooded.", "The mill was flooded."),
    ("The notice says the market will close on Friday.", "The market will close on Friday."),  # no "that"
    ("Tobin told me that the widow left.", "The widow left."),
    ("Joss told us the bells were stolen.", "The bells were stolen."),
    ("Tobin said to me that the gate was open.", "The gate was open."),
    ("I heard that the granary burned.", "The granary burned."),
    ("We heard that wolves killed two sheep.", "Wolves killed two sheep."),
    ("I heard from the miller that the dam broke.", "The dam broke."),
    ("The steward announced that dinner was served.", "Dinner was served."),  # a synonym of say
    ("Horatio and Marcellus said that the ghost walked.", "The ghost walked."),
    ("The ship sank, Tobin said.", "The ship sank."),
    ("The ship sank, Tobin told me.", "The ship sank."),
    ("According to the letter, Tobin said that the ship sank.", "The ship sank."),  # nested
    ("According to the shepherd, wolves took the lamb.", "Wolves took the lamb."),
    # a telling between others passes on what it tells (who heard it is the holding's, not the fact's)
    ("Tobin told Maren that the ship sank.", "The ship sank."),
    ("The ship sank, Tobin told Maren.", "The ship sank."),
    ("The ship sank, or so the porter told the almoner.", "The ship sank."),
    ("The surveyor warned Kalani: the bridge will close.", "The bridge will close."),
    ("Mayor Denholm heard from Rufus Kell that the bell had cracked.", "The bell had cracked."),
])
def test_reporting_frame_is_read_through(text, core):
    assert frames.report_core(text) == core


@pytest.mark.parametrize("text", [
    "Tobin denied that the ship sank.",  # denies: the opposite is asserted
    "Tobin doubted that the ship sank.",  # hedges
    "Tobin thought that the ship sank.",
    "Tobin did not say that the ship sank.",
    "Tobin told Maren the story.",  # no clause follows
    "Maren heard the ship sink.",  # her own deed, from no one
    "Tobin told me the story.",  # no clause follows
    "Tobin reported the stolen horse.",  # a participle after a determiner is no verb
    "I heard the bell.",
    "Tobin read that the ship sank.",  # reading and hearing frame only the first person's own
    "Tobin said that he was tired.",  # "he" may be Tobin: not free of its reporter
    "I am tired, Tobin said.",
    "Liu Bei wept when he heard that Guan Yu had died.",  # not at the start or the end
    "The ghost said nothing to Hamlet.",
    "The ship sank off the reef.",
])
def test_other_frames_are_kept(text):
    assert frames.report_core(text) == text


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
    ("Tobin informed Maren.", "Tobin told Maren."),
    ("The duke murdered the clerk.", "The duke killed the clerk."),
    # negated volition
    ("The Ghost would not speak to Horatio.", "The Ghost refused to speak to Horatio."),
    ("The boatman wouldn't take the coins.", "The boatman refused to take the coins."),
    ("The clerk did not want to sign the deed.", "The clerk refused to sign the deed."),
    ("The clerk was unwilling to sign the deed.", "The clerk declined to sign the deed."),
    # reporting frames
    ("According to the letter, the ship sank off the reef.", "The ship sank off the reef."),
    ("Tobin says that the mill burned.", "The mill burned."),
    ("I heard that the mill burned.", "The mill burned."),
])
def test_retellings_pass_the_guard_and_frames(a, b):
    for x, y in ((a, b), (b, a)):
        assert guard.check(x, y).ok, (x, y, guard.check(x, y))
        assert frames.similarity(x, y) >= 0.8, (x, y)


@pytest.mark.parametrize("a, b, reason", [
    ("Tobin denied that the ship sank off the reef.", "The ship sank off the reef.", "negation"),
    ("Mirelle denied that the ferry sank.", "Mirelle said that the ferry sank.", "negation"),
    ("According to Sabine, Hask stabbed the clerk.", "Sabine stabbed the clerk.", "entity"),  # the reporter is no actor
    ("I am tired, Tobin said.", "I am tired, Maren said.", "entity"),
    ("According to the letter, the ship sank.", "The ship did not sink.", "negation"),
    ("The Ghost spoke to Horatio.", "The Ghost would not speak to Horatio.", "negation"),
    ("The Ghost would speak to Horatio.", "The Ghost would not speak to Horatio.", "negation"),
    ("Pell wanted to pay the toll.", "Pell did not want to pay the toll.", "negation"),
    ("Nerys refused to marry the lord.", "Nerys agreed to marry the lord.", "opposite"),
    ("The clerk could not sign the deed.", "The clerk would not sign the deed.", "modality"),
    ("Kit has to wear the beard.", "Kit is allowed to wear the beard.", "modality"),  # an obligation, a permission
    ("Yusuf found ruts at the quarry end of the bridge.", "Yusuf found ruts at the town end of the bridge.", "place"),
    ("Dario left the fort at noon and returned at midnight.", "Dario left the fort at midnight and returned at noon.", "time"),
    ("Lena traded a barrel of pork for two bolts of wool.", "Lena traded two bolts of wool for a barrel of pork.", "role"),
    ("Piet has served longer than anyone else.", "Piet has served longer than anyone except Isolde.", "number"),
    # "once it was over" is after it: told in order, the operation comes first on one side only
    ("Lydia spoke to Mr Colley before the operation.", "Lydia spoke to Mr Colley once the operation was over.", "role"),
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


def test_a_dispute_sees_through_a_reporting_frame():
    assert disputes.contradicts("According to the letter, the ship sank at the reef.", "The ship did not sink at the reef.")


def test_a_read_retelling_lands_on_the_witnessed_record():
    store = ConsensusStore.open(None, embedder=HashEmbedder())
    (seen,) = store.remember("maren", ["The ship sank off the reef."], round=1)
    (read,) = store.remember("tobin", ["According to the harbour log, the ship sank off the reef."], round=2, via="read",
                             source="harbour-log")
    (denied,) = store.remember("cora", ["Hale denied that the ship sank off the reef."], round=3, via="told", source="hale")
    assert read == seen and denied != seen
    record = store.get(seen)
    assert record.owners["tobin"].via == "read" and record.owners["tobin"].source == "harbour-log"
    assert record.text == "The ship sank off the reef."  # the frame is provenance, kept in the holding
