"""Issue 33: interactive fiction's words typed bare (Inform 7 / Frotz): look/l, examine/x, inventory/i,
again/g, wait/z, compass directions as exits, and each one shown in /help."""

from __future__ import annotations

import pytest

from storyworld.game.playerinput import (
    ALIASES, Again, Inventory, Play, Problem, Surroundings, parse,
)
from storyworld.kernel.actions import ActOn, Move, Observe, Say, Wait
from storyworld.world import load_world
from tests.support.paths import TINY


@pytest.fixture(scope="module")
def scene() -> Surroundings:
    from storyworld.game.simulation import initial_state

    world = load_world(TINY)
    state = initial_state(world, None)  # Maren at the harbour with Tobin; exits: tavern, lighthouse
    state.object_holders["letter"] = "maren"
    state.object_places["letter"] = None
    return Surroundings.of(world, state, "maren")


@pytest.mark.parametrize("line", ["look", "l", "LOOK"])
def test_look(scene, line):
    assert parse(line, scene) == Play(Observe(actor="maren"))


@pytest.mark.parametrize("line", ["examine tobin", "x tobin", "x the letter", "look at Tobin"])
def test_examine(scene, line):
    target = "letter" if "letter" in line else "tobin"
    assert parse(line, scene) == Play(ActOn(actor="maren", target=target, verb="examine"))


def test_examine_something_not_here_says_what_is(scene):
    found = parse("x lamp", scene)
    assert isinstance(found, Problem) and "not here to examine" in found.message and "tobin" in found.message


@pytest.mark.parametrize("line", ["inventory", "i", "inv"])
def test_inventory(scene, line):
    assert parse(line, scene) == Inventory()
    assert scene.held == ("letter",)


@pytest.mark.parametrize("line", ["again", "g"])
def test_again(scene, line):
    assert parse(line, scene) == Again()


@pytest.mark.parametrize("line", ["wait", "z"])
def test_wait(scene, line):
    assert parse(line, scene) == Play(Wait(actor="maren"))


def test_directions_are_the_exits_in_order(scene):
    assert scene.exits == ("tavern", "lighthouse")
    assert parse("n", scene) == parse("north", scene) == Play(Move(actor="maren", to="tavern"))
    assert parse("e", scene) == parse("go east", scene) == Play(Move(actor="maren", to="lighthouse"))
    assert parse("go tavern", scene) == Play(Move(actor="maren", to="tavern"))
    assert scene.direction_of("lighthouse") == "east"
    south = parse("s", scene)
    assert isinstance(south, Problem) and "n (tavern), e (lighthouse)" in south.message


def test_everything_else_is_still_speech(scene):
    assert parse("Go away!", scene) == Play(Say(actor="maren", text="Go away!"))
    assert parse("look out for the boat", scene) == Play(Say(actor="maren", text="look out for the boat"))


def test_each_alias_is_in_help():
    from tui.screens.dialogs import help_text

    shown = help_text().plain
    for usage, _ in ALIASES:
        assert usage in shown
    for word in ("look", "x X", "inventory", "again", "wait", "n e s w"):
        assert word in shown
