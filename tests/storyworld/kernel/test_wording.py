"""Issue 33: how the kernel words deeds: verb frames ("bowed to Tobin"), names in sentence case inside a
sentence, and stage directions done, never spoken."""

from __future__ import annotations

import random

import pytest

from storyworld.game.simulation import initial_state
from storyworld.kernel.actions import ActOn, Move, Say
from storyworld.kernel.resolve import resolve_round
from storyworld.kernel.wording import deed, inline, split_directions
from storyworld.world import load_world
from tests.support.paths import TINY


@pytest.fixture(scope="module")
def world():
    return load_world(TINY)


def play(world, *actions):
    state = initial_state(world, None)  # Maren, Tobin and Silas at the harbour
    outcome = resolve_round(world, state, {a.actor: a for a in actions}, random.Random(0))
    return [(e.actor, e.kind, e.text, e.claim) for e in outcome.events]


@pytest.mark.parametrize(("verb", "past", "present"), [
    ("bow", "Maren bowed to Tobin", "Maren bows to Tobin"),
    ("smile", "Maren smiled at Tobin", "Maren smiles at Tobin"),
    ("plead", "Maren pleaded with Tobin", "Maren pleads with Tobin"),
    ("greet", "Maren greeted Tobin", "Maren greets Tobin"),
    ("ask", "Maren asked Tobin", "Maren asks Tobin"),
    ("kneel", "Maren knelt to Tobin", "Maren kneels to Tobin"),
])
def test_verb_frames(verb, past, present):
    assert deed("Maren", verb, "Tobin", person=True) == past
    assert deed("Maren", verb, "Tobin", person=True, tense="present") == present


def test_a_bow_in_play_is_worded_with_its_frame_and_the_place_in_sentence_case(world):
    events = play(world, ActOn(actor="maren", target="tobin", verb="bow"))
    assert events == [("maren", "act", "Maren bowed to Tobin in the harbour.", None)]


def test_names_keep_sentence_case_only_at_the_start(world):
    assert inline("The Gull tavern") == "the Gull tavern" and inline("Elsinore") == "Elsinore"
    events = play(world, Move(actor="maren", to="tavern"), Say(actor="tobin", text="Fair winds.", to="maren"))
    texts = [text for _, _, text, _ in events]
    assert 'Tobin tells Maren in the harbour: "Fair winds."' in texts
    assert "Maren went from the harbour to the Gull tavern." in texts
    assert not any(" The " in text for text in texts), texts


def test_stage_directions_are_done_not_spoken(world):
    assert split_directions("(bows low) My lord, welcome.") == ("My lord, welcome.", ("bows low",))
    assert split_directions("*raises his cup*") == ("", ("raises his cup",))
    # a stray word set apart is no doing: neither said nor narrated ("Pip Doyle and." was narrated once)
    assert split_directions("Dorothy, yes *and* I will come.") == ("Dorothy, yes I will come.", ())
    events = play(world, Say(actor="tobin", text="(bows low) Good morning, keeper.", to="maren"),
                  Say(actor="silas", text="[Silas drinks]"))
    said = [(actor, claim) for actor, kind, _, claim in events if kind == "say"]
    done = [(actor, text) for actor, kind, text, _ in events if kind == "act"]
    assert said == [("tobin", "Good morning, keeper.")]
    assert sorted(done) == [("silas", "Silas drinks."), ("tobin", "Tobin bows low.")]
