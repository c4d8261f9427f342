"""Screenplay: staged events (deduplicated) -> scenes (place, stretch of rounds, 20-round cap) -> markdown."""

from __future__ import annotations

import pytest

from storyworld.game import session
from storyworld.kernel.actions import ActOn, Move, Observe, ReadThread, Say, Wait
from storyworld.cli import main
from storyworld.report.screenplay import StagedEvent, render, render_simulation, scenes_of, staged_events
from storyworld.kernel.state import Settings, SimEvent
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import TINY

PLAN = {
    (0, "tobin"): Say(actor="tobin", text="I carry a letter from the old keeper.", to="maren"),
    (0, "ada"): ReadThread(actor="ada"),
    (0, "silas"): Wait(actor="silas"),
    (1, "tobin"): ActOn(actor="tobin", target="letter", verb="give", to="maren"),
    (1, "maren"): Say(actor="maren", text="Then give it here, and quickly."),
    (1, "silas"): Move(actor="silas", to="tavern"),
    (2, "maren"): ActOn(actor="maren", target="letter", verb="read"),
    (2, "tobin"): Say(actor="tobin", text="I carry a letter from the old keeper!", to="maren"),  # repeated line
    (2, "silas"): Say(actor="silas", text="Pour me something strong, Ada.", to="ada"),
    (3, "maren"): Move(actor="maren", to="tavern"),
    (3, "ada"): Say(actor="ada", text="You look like a man who saw a ghost."),
    (4, "maren"): Say(actor="maren", text="Who ordered the lamp dark on the night of the wreck?"),
    (4, "silas"): ActOn(actor="silas", target="maren", verb="strike", text="he knocks the cup from her hand"),
    (4, "ada"): Observe(actor="ada"),
}


def plan(round_: int, agent: str, context):
    return PLAN.get((round_, agent), Wait(actor=agent))


@pytest.fixture(scope="module")
def tiny():
    return load_world(TINY)


@pytest.fixture
def tiny_run(tiny):
    sim = session.new_simulation(tiny, None, Settings(seed=11), ScriptedMind(plan), embedder=HashEmbedder())
    for _ in range(5):
        sim.step()
    return sim


def test_screenplay_of_a_scripted_run(tiny_run, snapshot):
    play = render_simulation(tiny_run)
    assert play.markdown == snapshot
    assert play.summary() == {"rounds": "0-4", "events": play.events, "beats": 10, "scenes": 2, "speakers": 4,
                              "places": 2, "chars": len(play.markdown)}


def test_staging_drops_noise_and_repeated_lines(tiny_run):
    kinds = {e.kind for e in tiny_run.state.events}
    assert {"observe", "read"} <= kinds  # the run had noise to drop
    staged = staged_events(tiny_run.world, tiny_run.state.events)
    assert all(b.kind in ("say", "act", "move") for b in staged)
    lines = [b.text for b in staged if b.kind == "say" and b.actor == "tobin"]
    assert lines == ["I carry a letter from the old keeper."], "the repeated line is staged once"


def test_moves_say_where_the_actor_came_from(tiny_run, tiny):
    from storyworld.game.simulation import initial_state

    start = initial_state(tiny, "arrival").positions
    staged = staged_events(tiny, tiny_run.state.events, start)
    moves = [b.text for b in staged if b.kind == "move"]
    assert moves == ["Silas enters from the harbour.", "Maren enters from the harbour."]


def _staged(round_: int, place: str, n: int) -> StagedEvent:
    return StagedEvent(round=round_, place=place, actor="a", kind="say", text=f"line {n}", event_id=f"e{n}")


def test_scenes_split_by_place_gap_and_the_twenty_round_cap():
    staged = [_staged(r, "hall", r) for r in range(0, 45)]  # the busy hall, every round
    staged.append(_staged(10, "norway", 100))  # one action elsewhere
    staged.sort(key=lambda b: b.round)
    scenes = scenes_of(staged)
    halls = [s for s in scenes if s[0].place == "hall"]
    assert [(s[0].round, s[-1].round) for s in halls] == [(0, 19), (20, 39), (40, 44)]
    assert [len(s) for s in scenes if s[0].place == "norway"] == [1]
    assert all(s[-1].round - s[0].round < 20 for s in scenes)
    gap = scenes_of([_staged(0, "hall", 1), _staged(2, "hall", 2), _staged(9, "hall", 3)])
    assert [len(s) for s in gap] == [2, 1], "a quiet stretch ends a scene"
    assert len(scenes_of(staged, max_rounds=5)) > len(scenes)


def test_empty_run_renders_a_title(tiny):
    play = render(tiny, [])
    assert play.markdown.startswith("# The Keeper's Letter")
    assert play.staged == 0 and play.scenes == ()


def test_lines_keep_their_speaker_and_addressee(tiny):
    event = SimEvent(id="r0001-00", round=1, place="tavern", actor="ada", kind="say",
                     text='Ada tells Maren in The Gull tavern: "Sit."', witnesses=("ada", "maren"), target="maren",
                     claim="Sit.")
    play = render(tiny, [event])
    assert "**ADA** *(to Maren)*: Sit." in play.markdown
    assert "*Present: Ada, Maren.*" in play.markdown


def test_cli_writes_the_screenplay(tiny_run, tmp_path, capsys):
    session.save_simulation(tiny_run, tmp_path / "save")
    out = tmp_path / "play.md"
    assert main(["screenplay", str(tmp_path / "save"), "-o", str(out), "--world", str(TINY)]) == 0
    assert out.read_text(encoding="utf-8") == render_simulation(tiny_run).markdown
    assert "beats 10" in capsys.readouterr().err
    assert main(["screenplay", str(tmp_path / "save"), "--world", str(TINY), "--json"]) == 0
    assert '"scenes": 2' in capsys.readouterr().out


def test_cli_refuses_a_missing_save_in_one_line(tmp_path, capsys):
    assert main(["screenplay", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such save folder" in err
