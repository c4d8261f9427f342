"""The session is the one game: its read-only views for a UI, and the one lock a round holds."""

from __future__ import annotations

import threading

from storyworld.game.session import Session
from storyworld.kernel.actions import Say
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import TINY


def held_elsewhere(lock) -> bool:
    """True when another thread holds `lock` (tried from a fresh thread, without waiting)."""
    free: list[bool] = []

    def attempt() -> None:
        got = lock.acquire(blocking=False)
        free.append(got)
        if got:
            lock.release()

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join()
    return not free[0]


def new_session(mind) -> Session:
    return Session.new(load_world(TINY), None, Settings(seed=3, awake="all", player="maren"), mind,
                       embedder=HashEmbedder())


def test_views_answer_what_a_ui_asks_without_the_simulation():
    session = new_session(ScriptedMind())
    state = session.sim.state
    scene = session.surroundings()
    assert session.player == "maren" and session.round == state.round == state.start_round
    assert scene.player == "maren" and "maren" not in scene.present
    assert set(scene.present) == set(state.present(state.positions["maren"])) - {"maren"}
    assert scene.exits == tuple(session.world.places[state.positions["maren"]].exits)
    assert session.store is session.sim.store and session.events is state.events

    session.play_round(Say(actor="maren", text="Who left the lamp dark?"))
    assert session.round == state.start_round + 1
    mine = session.witnessed()
    assert mine and all("maren" in e.witnesses or e.actor == "maren" for e in mine)
    assert any(e.actor == "maren" and e.kind == "say" for e in mine)
    hits = session.recall("lamp dark")
    assert hits and all("maren" in h.record.owners for h in hits)


def test_a_round_holds_the_sessions_one_lock_and_views_take_it_again_inside():
    seen: list[bool] = []
    session: Session | None = None

    def script(round_, agent, context):
        seen.append(held_elsewhere(session.lock))
        return None

    session = new_session(ScriptedMind(script))
    assert not held_elsewhere(session.lock)
    session.play_round(None)
    assert seen and all(seen)  # every decision ran while the round held the lock
    assert not held_elsewhere(session.lock)
    with session.reading() as sim:  # re-entrant: a view built under the hold may ask the session again
        assert sim is session.sim and session.surroundings().player == "maren"


def test_rewind_undoes_the_last_round_from_its_autosave_memory_included(tmp_path):
    import pytest

    from storyworld.errors import UserError

    session = Session.new(load_world(TINY), None, Settings(seed=3, awake="all", player="maren"), ScriptedMind(),
                          embedder=HashEmbedder(), slot=tmp_path / "slot")
    with pytest.raises(UserError, match="nothing to undo"):
        session.rewind()
    session.autosave()
    session.play_round(Say(actor="maren", text="Who left the lamp dark?"))
    session.autosave()
    files_before = {k: v for k, v in session.files()[0].items()}
    session.play_round(Say(actor="maren", text="And who lit it again?"))
    session.autosave()
    assert session.can_rewind()
    assert session.rewind() == session.round == 1
    files_after = session.files()[0]
    assert files_after.keys() == files_before.keys()
    assert {k for k in files_before if files_after[k] != files_before[k]} == set()  # byte for byte, the store too
    assert [a for a in session.sim.state.actions if a.actor == "maren"] == [
        Say(actor="maren", text="Who left the lamp dark?")]
    assert session.last_action() == Say(actor="maren", text="Who left the lamp dark?")
