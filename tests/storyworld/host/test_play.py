"""Play together: scripted players on one hosted world over real websockets on loopback.

The world (tests/data/worlds/coterie.toml) gives each of its eight people a secret only they hold
(SECRET-<id>-...) and a goal only they have (GOAL-<id>-...); every byte a seat is sent is grepped
for the others' secrets and for the text of every record its character does not hold.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from storyworld.host.client import Player
from storyworld.host.protocol import Accepted, Error, Notice, Progress, Recalled, Resolved, Rewound
from storyworld.host.seats import HostedSession, seats_of_save
from tests.support.doubles import ScriptedMind
from tests.support.hosting import EVERYONE, hosted, until

OPEN: list[Player] = []


def seat(url: str, code: str, **kw) -> Player:
    """A player, closed by `close_all` when its scene ends (a socket left open makes the host wait at exit)."""
    OPEN.append(Player(url, code, **kw))
    return OPEN[-1]


async def close_all() -> None:
    await asyncio.gather(*(p.close() for p in OPEN))
    OPEN.clear()


async def play(players: dict[str, Player], lines: dict[str, str]) -> dict[str, Resolved]:
    """Each named player sends its line; every player's Resolved."""
    for agent, line in lines.items():
        await players[agent].send_line(line)
    return {agent: await until(player, Resolved) for agent, player in players.items()}


def assert_private(session: HostedSession, players: dict[str, Player]) -> None:
    """No seat was sent a secret, a goal or the text of any record its character does not hold."""
    records = session.store.records()
    for agent, player in players.items():
        sent = bytes(player.received).decode("utf-8")
        assert f"SECRET-{agent}-" in sent, "a seat is shown its own secret (else this test could not fail)"
        for other in EVERYONE:
            if other != agent:
                assert f"SECRET-{other}-" not in sent and f"GOAL-{other}-" not in sent, (agent, other)
        for record in records:
            if agent not in record.owners:
                assert record.text not in sent, (agent, record.text)


def test_two_seats_each_see_only_their_own(tmp_path):
    hosting = hosted(tmp_path, ("ansel", "bea"), mind=ScriptedMind())
    with hosting:
        async def scene() -> dict[str, Player]:
            players = {a: seat(hosting.url, s.code, keep_bytes=True) for a, s in
                       zip(("ansel", "bea"), hosting.server.session.seats)}
            for player in players.values():
                await player.join()
            first = await play(players, {"ansel": "Is the soup hot?", "bea": "/move yard"})
            assert [e.text for e in first["ansel"].entries if e.kind == "line"] == ["Is the soup hot?"]
            assert first["bea"].view.place == "yard" and first["ansel"].view.place == "hall"
            await play(players, {"ansel": "/observe", "bea": "Quiet out here."})
            await play(players, {"ansel": "/recall pump", "bea": "/wait"} | {"ansel": "/wait"})
            await close_all()
            return players

        players = asyncio.run(scene())
    assert_private(hosting.server.session, players)
    assert hosting.server.rounds_played == 3


def test_eight_seats_one_world_nothing_leaks_and_lines_arrive_in_order(tmp_path):
    hosting = hosted(tmp_path, EVERYONE)
    with hosting:
        async def scene() -> dict[str, Player]:
            players = {s.agent: seat(hosting.url, s.code, keep_bytes=True) for s in hosting.server.session.seats}
            await asyncio.gather(*(p.join() for p in players.values()))
            for n in range(2):
                resolved = await play(players, {a: f"{a} speaks {n}" for a in EVERYONE})
                orders = {tuple(e.text for e in r.entries if e.kind == "line") for r in resolved.values()}
                assert len(orders) == 1 and len(next(iter(orders))) == 8  # everyone hears all eight, in one order
            await close_all()
            return players

        players = asyncio.run(scene())
    assert_private(hosting.server.session, players)
    assert seats_of_save(tmp_path / "game") == hosting.server.session.seats  # the save keeps the seats


def test_round_resolves_on_the_last_persons_line_not_before(tmp_path):
    hosting = hosted(tmp_path, ("ansel", "bea"), timeout=60.0)
    with hosting:
        async def scene() -> None:
            a, b = (seat(hosting.url, s.code) for s in hosting.server.session.seats)
            await a.join()
            await b.join()
            await a.send_line("Who will carve?")
            assert isinstance(await until(a, Accepted), Accepted)
            progress = await until(b, Progress)
            assert (progress.acted, progress.seated) == (1, 2) and 0 < progress.seconds_left <= 60
            with pytest.raises(TimeoutError):
                await until(a, Resolved, timeout=0.5)  # one of two has acted: the round waits
            started = time.monotonic()
            await b.send_line("I will.")
            resolved = await until(a, Resolved)
            assert time.monotonic() - started < 10 and not resolved.waited
            await close_all()

        asyncio.run(scene())


def test_round_resolves_on_the_timeout_and_the_idle_character_waits(tmp_path):
    hosting = hosted(tmp_path, ("ansel", "bea"), timeout=0.8)
    with hosting:
        async def scene() -> None:
            a, b = (seat(hosting.url, s.code) for s in hosting.server.session.seats)
            await a.join()
            await b.join()
            await a.send_line("Anyone?")
            idle = await until(b, Resolved)
            active = await until(a, Resolved)
            assert idle.waited and not active.waited
            assert [e.text for e in idle.entries if e.kind == "line"] == ["Anyone?"]
            await close_all()

        asyncio.run(scene())


def test_a_dropped_player_rejoins_and_catches_up(tmp_path):
    hosting = hosted(tmp_path, ("ansel", "bea"), timeout=0.5)
    with hosting:
        async def scene() -> None:
            a, b = (seat(hosting.url, s.code) for s in hosting.server.session.seats)
            await a.join()
            await b.join()
            await play({"ansel": a, "bea": b}, {"ansel": "First course.", "bea": "Lovely."})
            await b.drop()
            for line in ("Second course.", "Third course."):
                await a.send_line(line)
                await until(a, Resolved)
            again = await b.join()  # the same code, and the last round it saw
            caught = [e.text for e in again.entries if e.kind == "line"]
            assert caught == ["Second course.", "Third course."] and again.view.round == 3
            await close_all()

        asyncio.run(scene())


def test_bad_messages_wrong_codes_and_floods_do_not_break_the_game(tmp_path):
    hosting = hosted(tmp_path, ("ansel", "bea"), timeout=30.0)
    with hosting:
        async def scene() -> None:
            a, b = (seat(hosting.url, s.code) for s in hosting.server.session.seats)
            with pytest.raises(Exception, match="no seat has that code"):
                await seat(hosting.url, "aaaa-bbbb-cccc").join()
            await a.join()
            with pytest.raises(Exception, match="in use"):
                await seat(hosting.url, a.code).join()
            await b.join()
            for junk in (b"{not json", b'{"type": "teleport"}', b'{"type": "line"}', b"\xff\xfe"):
                await a.send_raw(junk)
                assert isinstance(await until(a, Error), Error)
            await a.send_line("/retry")
            assert "host's alone" in (await until(a, Notice)).text
            await a.send_line("/recall pump")
            assert any("SECRET-ansel-" in h.text for h in (await until(a, Recalled)).holdings)
            await a.send_line("Here.")
            await until(a, Accepted)
            started = time.monotonic()
            await asyncio.gather(*(a.send_line("/help") for _ in range(2000)))  # past the rate: dropped, one warning
            await b.send_line("Pass the salt.")
            resolved = await until(b, Resolved)
            assert time.monotonic() - started < 5 and not resolved.waited
            await close_all()

        asyncio.run(scene())


def test_a_seat_left_to_an_agent_is_played_by_the_mind_and_taken_back(tmp_path):
    mind = ScriptedMind()
    hosting = hosted(tmp_path, ("ansel", "bea"), timeout=30.0, mind=mind)
    with hosting:
        async def scene() -> None:
            a, b = (seat(hosting.url, s.code) for s in hosting.server.session.seats)
            await a.join()
            await b.join()
            await b.send_line("/leave")
            assert "agent plays your character" in (await until(b, Notice)).text
            await a.send_line("Alone at last.")  # bea is the agent's now: the round does not wait for her
            await until(a, Resolved, timeout=5)
            assert (0, "bea") in mind.calls
            await b.drop()
            await b.join()  # the code takes the seat back
            await a.send_line("Welcome back.")
            with pytest.raises(TimeoutError):
                await until(a, Resolved, timeout=0.5)
            await close_all()

        asyncio.run(scene())


def test_undo_and_retry_are_the_hosts_and_every_seat_is_told(tmp_path):
    hosting = hosted(tmp_path, ("ansel", "bea"))
    server = hosting.server
    with hosting:
        async def scene() -> None:
            a, b = (seat(hosting.url, s.code) for s in server.session.seats)
            await a.join()
            await b.join()
            await play({"ansel": a, "bea": b}, {"ansel": "A toast!", "bea": "To the house."})
            await a.send_line("/undo")
            assert "host's alone" in (await until(a, Notice)).text and server.session.round == 1
            told = await asyncio.to_thread(hosting.wait_for, server.undo(), 30)
            assert told == "round 0 undone" and server.session.round == 0
            assert [(await until(p, Rewound)).round for p in (a, b)] == [0, 0]
            assert not any("A toast!" in r.text for r in server.session.store.records())  # memory went back too
            await play({"ansel": a, "bea": b}, {"ansel": "A second toast!", "bea": "Hear, hear."})
            await asyncio.to_thread(hosting.wait_for, server.undo(retry=True), 30)
            again = await until(b, Resolved)
            assert sorted(e.text for e in again.entries if e.kind == "line") == ["A second toast!", "Hear, hear."]
            assert server.session.round == 1 and server.session.sim.state.draw == 1  # the round's second drawing
            await close_all()

        asyncio.run(scene())


def test_a_stopping_host_says_goodbye_and_the_client_knows_it_is_gone(tmp_path):
    from storyworld.host.client import HostGone
    from storyworld.host.protocol import Bye

    hosting = hosted(tmp_path, ("ansel", "bea"))
    with hosting:
        async def scene() -> None:
            a = seat(hosting.url, hosting.server.session.seats[0].code)
            await a.join()
            stopping = asyncio.create_task(asyncio.to_thread(hosting.stop))
            assert "saved" in (await until(a, Bye)).reason
            with pytest.raises(HostGone):
                await a.receive(10)
            await stopping
            await close_all()

        asyncio.run(scene())
