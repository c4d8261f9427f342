"""The action bar's language: slash commands become actions; completion finds names, places, objects."""

from __future__ import annotations

import pytest

from storyworld.kernel.actions import ActOn, Move, Observe, ReadThread, Say, Wait
from storyworld.game.simulation import initial_state
from tui import slash


@pytest.fixture
def scene(tiny_world):
    """Maren on the harbour with Silas and Tobin (the tiny world's default start)."""
    state = initial_state(tiny_world, None)
    state.object_places["net"] = None
    return slash.Surroundings.of(tiny_world, state, "maren")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Who's there?", Say(actor="maren", text="Who's there?")),
        ("/say Who left the lamp dark?", Say(actor="maren", text="Who left the lamp dark?")),
        ("/say @tobin Show me the letter.", Say(actor="maren", text="Show me the letter.", to="tobin")),
        ("/say Silas, where were you?", Say(actor="maren", text="Silas, where were you?", to="silas")),
        ("/say silas: where were you?", Say(actor="maren", text="where were you?", to="silas")),
        ("/say to tobin give it here", Say(actor="maren", text="give it here", to="tobin")),
        ("/say to be or not to be", Say(actor="maren", text="to be or not to be")),
        ("/move tavern", Move(actor="maren", to="tavern")),
        ("/move The Gull tavern", Move(actor="maren", to="tavern")),
        ("/mo light", Move(actor="maren", to="lighthouse")),
        ("/observe", Observe(actor="maren")),
        ("/read", ReadThread(actor="maren")),
        ("/wait", Wait(actor="maren")),
        ("/act tobin embrace warmly", ActOn(actor="maren", target="tobin", verb="embrace", text="warmly")),
        ("/act silas lie to tobin the lamp was fine",
         ActOn(actor="maren", target="silas", verb="lie", text="the lamp was fine", to="tobin")),
    ],
)
def test_lines_become_actions(scene, line, expected):
    parsed = slash.parse(line, scene)
    assert isinstance(parsed, slash.Play), parsed
    assert parsed.action == expected


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("", "type a line"),
        ("/move chapel", "no way to 'chapel'"),
        ("/move", "tavern, lighthouse"),
        ("/say @ada hello", "not here"),
        ("/act letter read", "not at hand"),
        ("/act tobin", "target and a verb"),
        ("/dance", "unknown command"),
        ("/recall", "needs a query"),
    ],
)
def test_problems_say_what_would_work(scene, line, needle):
    parsed = slash.parse(line, scene)
    assert isinstance(parsed, slash.Problem)
    assert needle in parsed.message


def test_recall_and_help_are_local(scene):
    assert slash.parse("/recall the wreck", scene) == slash.Recall("the wreck")
    assert slash.parse("/help", scene) == slash.Help()


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("/", "/say"),
        ("/mo", "/move"),
        ("/move ta", "/move tavern"),
        ("/move Li", "/move Lighthouse"),
        ("/say @to", "/say @tobin"),
        ("/say si", "/say silas"),
        ("/act to", "/act tobin"),
        ("/act tobin emb", "/act tobin embrace"),
        ("/recall the let", "/recall the letter"),
    ],
)
def test_completion(scene, typed, suggested):
    assert slash.complete(typed, scene) == suggested


@pytest.mark.parametrize("typed", ["hello", "/move ", "/move chapel", "/say @ad", "/move tavern"])
def test_no_completion(scene, typed):
    assert slash.complete(typed, scene) is None
