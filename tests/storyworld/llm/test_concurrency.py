"""Concurrent decisions: order kept, bounded in flight, same events as sequential for the same seed."""

from __future__ import annotations

import random
import threading
import time

import msgspec
import pytest

from storyworld.game import session
from storyworld.kernel.actions import Move, Observe, Say
from storyworld.llm.concurrency import LANE, lanes, parallelism, run_ordered
from storyworld.llm import wrap
from storyworld.llm.base import LanguageModel, model_of
from storyworld.minds import Decision
from storyworld.errors import Cancelled
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, InFlight
from tests.support.paths import TINY


def test_results_keep_input_order_and_at_most_n_run_at_once():
    flight = InFlight()
    jitter = random.Random(7)
    delays = [jitter.uniform(0.0, 0.02) for _ in range(12)]

    def work(i: int) -> int:
        with flight:
            time.sleep(delays[i])  # finish out of order
            return i * i

    main = threading.get_ident()
    started_on: list[int] = []
    assert run_ordered(work, list(range(12)), 3, started=lambda i: started_on.append(threading.get_ident())) == [
        i * i for i in range(12)
    ]
    assert flight.most == 3
    assert started_on == [main] * 12  # callbacks stay on the caller's thread


@pytest.mark.parametrize("parallel", [1, 3])
def test_a_lane_takes_its_items_one_at_a_time_in_input_order(parallel):
    """Whether lanes run together or not, each lane sees the same items in the same order."""
    seen: dict[int, list[int]] = {}
    per_lane = {lane: InFlight() for lane in range(3)}
    flight = InFlight()
    jitter = random.Random(3)
    delays = [jitter.uniform(0.0, 0.01) for _ in range(10)]
    lock = threading.Lock()

    def work(i: int) -> int:
        lane = LANE.get()
        with flight, per_lane[lane]:
            with lock:
                seen.setdefault(lane, []).append(i)
            time.sleep(delays[i])
            return i + 100 * lane

    lane_of = [0, 1, 2, 0, 0, 1, 2, 2, 1, 0]
    results = run_ordered(work, list(range(10)), parallel, lane_of=lambda i: lane_of[i])
    assert results == [i + 100 * lane_of[i] for i in range(10)]
    assert seen == {0: [0, 3, 4, 9], 1: [1, 5, 8], 2: [2, 6, 7]}
    assert all(f.most == 1 for f in per_lane.values())  # one at a time within a lane
    assert flight.most == (3 if parallel == 3 else 1)  # lanes overlap when running together
    assert LANE.get() == 0  # the caller's lane is left as it was


def test_lanes_are_read_through_wrappers():
    class Pool(LanguageModel):
        lanes = 3
        parallel = 3

    assert lanes(wrap(Pool())) == 3 and lanes(LanguageModel()) == 0 and lanes(None) == 0


def test_parallel_one_is_a_plain_loop_on_the_calling_thread():
    threads: set[int] = set()
    assert run_ordered(lambda i: threads.add(threading.get_ident()) or i, [1, 2, 3], 1) == [1, 2, 3]
    assert threads == {threading.get_ident()}


def test_an_error_propagates_after_the_calls_in_flight_finish():
    finished: list[int] = []

    def work(i: int) -> int:
        if i == 1:
            raise ValueError("boom")
        time.sleep(0.02)
        finished.append(i)
        return i

    with pytest.raises(ValueError, match="boom"):
        run_ordered(work, [0, 1, 2, 3], 2)
    assert 0 in finished  # the call beside the failing one was awaited, not abandoned


def test_cancel_stops_new_starts_and_says_which_was_next():
    started: list[int] = []
    with pytest.raises(Cancelled) as caught:
        run_ordered(lambda i: i, list(range(10)), 2, started=started.append, cancelled=lambda: len(started) >= 4)
    assert caught.value.next_index == 4 and started == [0, 1, 2, 3]


def test_parallelism_is_read_through_wrappers_and_minds():
    class Backend(LanguageModel):
        parallel = 6

        def complete(self, *a, **k):  # pragma: no cover - never called
            raise AssertionError

    class Mind:
        def __init__(self, lm) -> None:
            self.lm = lm

    assert parallelism(model_of(Mind(wrap(Backend())))) == 6
    assert model_of(Mind(object())) is None and model_of(object()) is None
    assert parallelism(LanguageModel()) == 1
    assert parallelism(None) == 1


class SeededMind:
    """Decides from the context's seed alone, sleeping a seed-dependent while so replies arrive out of order."""

    def __init__(self) -> None:
        self.flight = InFlight()

    def decide(self, world, context) -> Decision:
        with self.flight:
            pick = random.Random(context.seed)
            time.sleep(pick.uniform(0.0, 0.01))
            roll = pick.random()
            perception = context.perception
            if roll < 0.4 and perception.exits:
                action = Move(actor=context.agent, to=pick.choice(perception.exits))
            elif roll < 0.8:
                action = Say(actor=context.agent, text=f"I heard {pick.randrange(1000)} bells tonight.")
            else:
                action = Observe(actor=context.agent)
            return Decision(action=action, based_on=tuple(r.record_id for r in context.recalled))


def run(parallel: int, rounds: int = 4):
    world = load_world(TINY)
    mind = SeededMind()
    sim = session.new_simulation(world, "arrival", Settings(seed=3, awake="all"), mind, embedder=HashEmbedder())
    sim.parallel = parallel
    progress: list[tuple[str, int, int]] = []
    outcomes = [sim.step(progress=lambda *p: progress.append(p)) for _ in range(rounds)]
    events = [msgspec.json.encode(o.events) for o in outcomes]
    records = sorted((r.id, r.text, tuple(sorted(r.owners))) for r in sim.store.records())
    return events, records, msgspec.json.encode(sim.state), progress, mind.flight.most


def test_concurrent_rounds_produce_the_same_events_records_and_state_as_sequential():
    seq_events, seq_records, seq_state, seq_progress, seq_most = run(parallel=1)
    par_events, par_records, par_state, par_progress, par_most = run(parallel=4)
    assert seq_most == 1 and par_most > 1  # the second run really decided concurrently
    assert any(b"say" in e for e in seq_events)  # the comparison covers speech, not only waiting
    assert par_events == seq_events
    assert par_records == seq_records
    assert par_state == seq_state
    assert par_progress == seq_progress  # same agents announced in the same order


def test_cancel_mid_round_leaves_the_state_unchanged():
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=3, awake="all"), SeededMind(), embedder=HashEmbedder())
    sim.parallel = 2
    before = msgspec.json.encode(sim.state)
    seen: list[str] = []
    with pytest.raises(Cancelled):
        sim.step(progress=lambda agent, i, n: seen.append(agent), cancelled=lambda: len(seen) >= 2)
    assert msgspec.json.encode(sim.state) == before


@pytest.mark.parametrize("parallel", [1, 3])
def test_finished_is_called_on_the_calling_thread_as_each_result_lands(parallel):
    caller = threading.get_ident()
    landed = []

    def finished(index):
        assert threading.get_ident() == caller
        landed.append(index)

    assert run_ordered(lambda x: x * 2, [1, 2, 3, 4], parallel, finished=finished) == [2, 4, 6, 8]
    assert sorted(landed) == [0, 1, 2, 3]


@pytest.mark.parametrize("parallel", [1, 4])
def test_the_round_is_watched_from_all_waiting_to_all_decided(parallel):
    from storyworld.game.simulation import RoundProgress

    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=3, awake="all"), SeededMind(), embedder=HashEmbedder())
    sim.parallel = parallel
    seen: list[RoundProgress] = []
    sim.step(watch=seen.append)
    deciders = seen[0].deciders
    assert len(deciders) > 1 and seen[0].waiting == deciders and not seen[0].thinking
    assert set(seen[-1].decided) == set(deciders) and not seen[-1].thinking and not seen[-1].waiting
    assert len(seen) == 1 + 2 * len(deciders)  # each decision starts once and lands once
    for before, after in zip(seen, seen[1:]):  # one change at a time; nobody un-decides
        assert set(before.decided) <= set(after.decided)
        assert len(after.decided) + len(after.thinking) - len(before.decided) - len(before.thinking) in (0, 1)
    if parallel == 1:
        assert all(len(p.thinking) <= 1 for p in seen)


def test_the_progress_line_names_everyone_when_it_fits_and_counts_when_not():
    from storyworld.game.simulation import RoundProgress

    shown = RoundProgress(deciders=("a", "b", "c"), thinking=("b",), decided=("a",))
    assert shown.waiting == ("c",)
    assert shown.line(str.upper) == "A ✓ · B thinking… · C"
    crowd = RoundProgress(deciders=tuple(f"agent{i}" for i in range(12)), thinking=("agent3",),
                          decided=("agent0", "agent1", "agent2"))
    assert crowd.line(str.title, width=50) == "3 of 12 decided · Agent3 thinking… · 8 waiting"
