"""The mind pipeline's pure parts: the typed menu, the policy, the line checker, the fallback, direction."""

from __future__ import annotations

import msgspec
import pytest

from storyworld.kernel.actions import ActOn, Move, Observe, Say, Wait
from storyworld.llm import schema_problems
from storyworld.minds import direction, lines, words
from storyworld.minds.choice import menu, policy
from storyworld.minds.context import DecisionContext
from storyworld.kernel.perception import perceive
from storyworld.game.simulation import initial_state
from storyworld.kernel.state import ShortTerm, ThreadLine
from storyworld.world import load_world
from tests.support.paths import TINY


def _context(agent="tobin", state=None, **extra):
    world = load_world(TINY)
    state = state or initial_state(world, "arrival")
    return world, state, DecisionContext(agent=agent, perception=perceive(world, state, agent),
                                         shortterm=ShortTerm(), recalled=(), seed=1, **extra)


def test_the_menu_types_verbs_by_target_and_the_schema_admits_only_its_options():
    world, _, ctx = _context()
    options = menu(world, ctx)
    assert set(options.say_to) == {"maren", "silas"}  # spoken to someone present, never "all"
    assert all(verb != "read" or target == "letter" for verb, target, _ in options.acts)  # nobody reads a person
    assert not any(verb in ("strike", "accuse") for verb, _, _ in options.acts)  # no beat calls for violence
    schema = options.schema()
    labels = options.labels
    assert schema["properties"]["pick"]["enum"] == list(range(1, len(labels) + 1)) and len(set(labels)) == len(labels)
    assert labels[0].startswith("speak to ") and "stay quiet and listen" in labels
    assert not any(label.startswith("go ") for label in labels)  # nobody wanders off without a reason
    assert "read Maren" not in labels and "strike Silas" not in labels
    assert not schema_problems({"pick": 1}, schema)
    assert schema_problems({"pick": len(labels) + 1}, schema) and schema_problems({"pick": "1"}, schema)
    silas = options.order().index(labels.index("speak to Silas")) + 1
    assert options.to_action("tobin", {"pick": silas}) == Say(actor="tobin", text="", to="silas")
    assert options.to_action("tobin", {"pick": 0}) is None and options.to_action("tobin", {"pick": True}) is None
    picked = [options.to_action("tobin", {"pick": n}) for n in range(1, len(labels) + 1)]
    assert sorted(map(repr, picked)) == sorted(map(repr, options.options("tobin")))  # each option one number
    # the numbers follow the decision's seed (a small model favours "1"), the same seed the same order
    assert options.lines(world) == [f"{n}. {labels[i]}" for n, i in enumerate(options.order(), start=1)]
    assert menu(world, ctx) == options
    orders = {menu(world, msgspec.structs.replace(ctx, seed=seed)).order() for seed in range(8)}
    assert len(orders) > 1


def test_two_options_of_one_name_stay_two_labels():
    from storyworld.minds.choice import labels

    world, _, _ = _context()
    assert labels(world, ("maren",), (("read", "letter", None), ("read", "letter", None)), False) == (
        "speak to Maren", f"read {world.objects['letter'].name}", f"read {world.objects['letter'].name} (2)",
        "look around", "stay quiet and listen")


def test_a_beat_that_calls_for_a_deed_offers_it_and_greet_is_offered_for_arrivals():
    world, state, _ = _context()
    intention = direction.Intention(beat_id="x", round=0, place="harbour", kind="act", role="actor",
                                    text="Tobin strikes Silas for the lie.", meet=("silas",))
    _, _, ctx = _context(state=state, intention=intention, arrivals=("maren",))
    acts = menu(world, ctx).acts
    assert ("strike", "silas", None) in acts and ("strike", "maren", None) not in acts
    assert ("greet", "maren", None) in acts
    assert policy(world, ctx).action == ActOn(actor="tobin", verb="strike", target="silas")


def test_policy_answers_who_spoke_leads_a_companion_and_keeps_still_alone():
    world, state, _ = _context()
    line = ThreadLine(round=0, speaker="maren", text="Where is the letter?", event_id="e", to="tobin")
    _, _, ctx = _context(state=state, addressed_by=line)
    plan = policy(world, ctx)
    assert plan.action == Say(actor="tobin", text="", to="maren") and plan.purpose == "answer"
    go = direction.Intention(beat_id="y", round=0, place="tavern", kind="move", role="actor", text="They go.",
                             meet=("maren",), companions=("maren",))
    _, _, ctx = _context(state=state, intention=go)
    assert policy(world, ctx).action == ActOn(actor="tobin", verb="lead", target="maren", place="tavern")
    alone = direction.Intention(beat_id="z", round=0, place="chapel", kind="say", role="actor", text="x")
    _, _, ctx = _context(state=state, intention=alone)
    assert policy(world, ctx).action == Move(actor="tobin", to="tavern")  # first step of the way
    _, _, ctx = _context(agent="ada", state=state)
    assert isinstance(policy(world, ctx).action, (Wait, Observe))


@pytest.mark.parametrize(("line", "problem"), [
    ("to", "fragment"),
    ("Maren, Silas, Tobin.", "list of names"),
    ('{"action": "say", "to": "maren"}', "markup"),
    ("Maren, the thing, the thing, the thing is here.", "stutter"),
    ("Maren, a true friend, and the only true friend, and a true friend.", "stutter"),
    ("As he stood on the quay, a look of concern crossed his face.", "narration, not speech"),
    ("Maren, Tobin here; the boat is late.", "speaker names themself"),
    ("Maren, Maren's boat is late again today.", "talks about the addressee"),
    ("Maren, Finn says the river ice is thin as paper.", "echo of the prompt"),
])
def test_the_checker_rejects_garbage(line, problem):
    found = lines.problems(line, names=["Maren", "Silas", "Tobin"], speaker="Tobin", addressee="Maren",
                           prompt=words.EXAMPLE_TEXT)
    assert problem in found, found


def test_the_checker_accepts_speech_and_catches_repeats_and_parrots():
    good = "Maren, the lamp was dark the night the ship went down."
    assert lines.problems(good, names=["Maren", "Silas"], speaker="Tobin", addressee="Maren") == []
    assert "repeat" in lines.problems(good, earlier=[good])
    assert "parrot" in lines.problems("Where is the letter now?", heard=["Where is the letter now, Tobin?"])
    assert lines.first_sentences("Maren, come. The night is cold and the ice is thin and the", 60) == "Maren, come."
    assert lines.end_at_sentence("the lamp was dark that night, and I saw the ship go", 80) == "the lamp was dark that night."


def test_direction_gives_the_next_beat_and_marks_it_met():
    world = load_world(TINY)
    state = initial_state(world, "arrival")
    intention = direction.intention_for(world, state, state.canon, "maren")
    assert intention is not None and intention.round >= 0
    assert direction.shortest_path(world, "lighthouse", "chapel") == ["harbour", "tavern", "chapel"]
    upcoming = direction.upcoming(world, state, state.canon, "silas")
    assert [e.id for e in upcoming][:1] and all(e.round >= 0 for e in upcoming)
    first = intention.beat_id
    state.positions["maren"] = world.events_by_id[first].place
    state.positions["tobin"] = world.events_by_id[first].place
    state.round += 1
    from storyworld.kernel.state import SimEvent

    def said(text: str) -> list[SimEvent]:
        return [SimEvent(id=f"r0-{k}", round=0, place=state.positions["tobin"], actor=a, kind="say", text=text,
                         claim=text, witnesses=("maren", "tobin")) for k, a in enumerate(("tobin", "maren"))]

    # a line written for the beat that says something else does not make it happen (nothing was said of it)
    assert first not in direction.update(world, state, state.canon, said("Good morning to you."),
                                         worked={"tobin": first, "maren": first})
    met = direction.update(world, state, state.canon, said("I carry a letter from the old keeper."))
    assert first in met  # its speaker saying it, there, meets it
    assert direction.shared_by(state.canon, first, "maren")  # she was there to hear it
    assert direction.intention_for(world, state, state.canon, "maren").beat_id != first


@pytest.mark.parametrize(("own", "follows"), [
    (Wait(actor="maren"), True),
    (Say(actor="maren", text="Lead on.", to="tobin"), True),
    (Say(actor="maren", text="A word, Silas.", to="silas"), False),  # busy with someone else
    (Move(actor="maren", to="lighthouse"), False),  # going her own way
    (ActOn(actor="maren", verb="lead", target="tobin", place="tavern"), True),  # both meant to go: no refusal
])
def test_lead_takes_along_the_idle_and_the_willing(own, follows):
    import random

    from storyworld.kernel.resolve import resolve_round

    world = load_world(TINY)
    state = initial_state(world, "arrival")
    lead = ActOn(actor="tobin", verb="lead", target="maren", place="tavern")
    outcome = resolve_round(world, state, {"tobin": lead, "maren": own}, random.Random(0))
    assert state.positions["tobin"] == "tavern" and outcome.refused == ()
    assert (state.positions["maren"] == "tavern") is (follows or isinstance(own, ActOn))


def test_the_choice_prompt_shows_the_situation_and_one_line_per_option():
    from storyworld.minds.mind import choice_messages

    world, state, _ = _context()
    line = ThreadLine(round=0, speaker="maren", text="Where is the letter?", event_id="e", to="tobin")
    _, _, ctx = _context(state=state, addressed_by=line)
    options = menu(world, ctx)
    messages = choice_messages(world, ctx, options)
    text = messages[-1]["content"]
    assert 'Maren said to Tobin: "Where is the letter?"' in text
    assert f"{options.order().index(options.labels.index('speak to Maren')) + 1}. speak to Maren" in text
    assert [l for l in text.splitlines() if l[:1].isdigit()] == options.lines(world)
    assert "stay quiet and listen" in text and "strike" not in text  # only what the menu offers
    # the system text names nobody: every character's choice prompt starts the same (the prefix cache keeps it)
    _, _, other = _context(agent="maren", state=state)
    assert choice_messages(world, other, menu(world, other))[0] == messages[0]


