"""Issue 33: the transcript in the order things happened: the player's line, then the replies to it, then the
rest; "resolved" is said after the lines. One RoundView (report.roundview) orders the screen, the log and the
screenplay alike."""

from __future__ import annotations

import pytest

from storyworld.kernel.actions import Say, Wait
from storyworld.minds import Decision
from storyworld.report import eventlog, screenplay
from storyworld.report.roundview import round_view
from tui.app import make_app
from tui.runtime import Runtime
from tui.widgets.transcript import Transcript
from tests.support.doubles import HashEmbedder
from tests.support.pilot import keys_for, piloted, settle


class TwoSpeakers:
    """Tobin answers Maren; Ada speaks to the room; everyone else waits."""

    def decide(self, world, context) -> Decision:
        match context.agent:
            case "tobin":
                return Decision(action=Say(actor="tobin", text="Morning, keeper. The sea is calm.", to="maren"))
            case "ada":
                return Decision(action=Say(actor="ada", text="Fish for sale, fresh from the boats!"))
        return Decision(action=Wait(actor=context.agent))


def two_speaker_runtime(tmp_path, seed: int) -> Runtime:
    mind, embedder = TwoSpeakers(), HashEmbedder()
    return Runtime(load_mind=lambda: mind, load_embedder=lambda: embedder, model_name="scripted",
                   seed=seed, awake="all", saves_root=tmp_path / f"saves-{seed}")


@pytest.mark.anyio
async def test_the_players_line_comes_first_then_the_reply_then_the_rest(tmp_path, tiny_world):
    resolved_first = set()
    for seed in range(4):  # the kernel's seeded order differs between seeds; the screen's order never does
        app = make_app(runtime=two_speaker_runtime(tmp_path, seed), world=tiny_world, player="maren")
        async with piloted(app, (100, 40)) as pilot:
            screen = app.screen
            screen.query_one("#side").display = False
            await pilot.press(*keys_for("@tobin Good morning, Tobin."), "enter")
            await settle(pilot)
            with screen.game.session.reading() as sim:
                events = [e for e in sim.state.events if e.round == 0 and e.kind == "say"]
                resolved_first.add(events[0].actor)
                ada_here = "maren" in next(e for e in events if e.actor == "ada").witnesses
            lines = [str(w.content) for w in screen.query_one(Transcript).query(".entry")]
            start = lines.index("— round 0 —")
            said = [line.split("\n")[0] for line in lines[start + 1:] if "\n" in line]
            expected = ["MAREN (to Tobin) · you", "TOBIN (to Maren)"] + (["ADA"] if ada_here else [])
            assert said == expected, (seed, lines[start:])
            progress = str(screen.query_one("#progress").content)
            assert progress.startswith("Round 0 resolved"), progress
            # the log and the screenplay read the same RoundView order
            with screen.game.session.reading() as sim:
                logged = [e["actor"] for e in eventlog.entries(sim.state.events, player="maren") if e["kind"] == "say"]
                staged = [b.actor for b in screenplay.staged_events(sim.world, sim.state.events, player="maren")
                          if b.kind == "say"]
            assert logged[:2] == staged[:2] == ["maren", "tobin"]
    assert resolved_first - {"maren"}, "every seed resolved Maren first: the test would not see a wrong order"


def test_round_view_keeps_walking_after_the_talk(tiny_world):
    """Only the talk that opens a round is reordered: whoever walks off still does so after it."""
    from storyworld.kernel.state import SimEvent

    def event(i: int, actor: str, kind: str, **extra) -> SimEvent:
        return SimEvent(id=f"r1-{i}", round=1, place="harbour", actor=actor, kind=kind, text=f"{actor} {kind}",
                        witnesses=("maren", "tobin", "ada"), **extra)

    resolved = [event(0, "ada", "say"), event(1, "tobin", "say", to="maren"), event(2, "maren", "say", to="tobin"),
                event(3, "tobin", "move"), event(4, "maren", "observe")]
    view = round_view(resolved, round_=1, player="maren")
    assert [e.id for e in view.events] == ["r1-2", "r1-1", "r1-0", "r1-3", "r1-4"]
    assert [e.id for e in round_view(resolved, round_=1).events] == [e.id for e in resolved]  # the narrator's
