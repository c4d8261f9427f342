"""A running story: world + state + memory store + minds, stepped one round at a time."""

from __future__ import annotations

import hashlib
import logging
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from storyworld.kernel.actions import ActOn, Action, Move, Say
from storyworld.kernel.actions import describe
from storyworld.errors import Cancelled, UserError
from storyworld.llm.base import ModelError, model_of
from storyworld.llm.concurrency import lanes, parallelism, run_ordered
from storyworld.kernel.resolve import Narration, RoundOutcome, narrate, resolve_replies, resolve_round
from storyworld.kernel import ids
from storyworld.minds import Decision, DecisionContext, Mind, Recalled, content, provenance_tag
from storyworld.minds import direction, draws, listening, questions, render
from storyworld.minds.status import update_status
from storyworld.kernel.perception import perceive, present_at
from storyworld.kernel.shortterm import new_shortterm, remember_result
from storyworld.kernel.state import CacheEntry, Settings, ThreadLine, WorldState
from storyworld.world import World

if TYPE_CHECKING:
    from memory.store import MemoryStore

log = logging.getLogger("storyworld.game.simulation")
BIDDING_ROUNDS = 4  # a bidding to do something is kept this many rounds (then it is let go)

Progress = Callable[[str, int, int], None]  # (agent deciding, index, total)

_state_encoder = msgspec.msgpack.Encoder()
_state_decoder = msgspec.msgpack.Decoder(WorldState)


class RoundRefused(UserError):
    """A round that was not played: the world state and the memory store are as they were before it.

    `round` is the round that was refused; `cause` the error that stopped it.
    """

    def __init__(self, message: str, *, round_: int, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.round = round_
        self.cause = cause


class ModelFailed(RoundRefused):
    """The model failed (after its retries) while `agent` was deciding, so the round was not played."""

    def __init__(self, round_: int, agent: str, agent_name: str, cause: ModelError) -> None:
        super().__init__(f"round {round_} not played: the model failed while {agent_name} was deciding: {cause}",
                         round_=round_, cause=cause)
        self.agent = agent


class RoundProgress(msgspec.Struct, frozen=True, kw_only=True):
    """Who decides this round and how far each one is: waiting, thinking, or decided."""

    deciders: tuple[str, ...]
    thinking: tuple[str, ...] = ()
    decided: tuple[str, ...] = ()

    @property
    def waiting(self) -> tuple[str, ...]:
        """Deciders that have not started yet, in order."""
        return tuple(a for a in self.deciders if a not in self.thinking and a not in self.decided)

    def line(self, name: Callable[[str], str], width: int = 64) -> str:
        """One line for a status bar: every decider marked when it fits `width`, else counts and who thinks."""
        marks = {**{a: f"{name(a)} ✓" for a in self.decided}, **{a: f"{name(a)} thinking…" for a in self.thinking}}
        full = " · ".join(marks.get(a, name(a)) for a in self.deciders)
        if len(full) <= width:
            return full
        thinking = ", ".join(name(a) for a in self.thinking)
        parts = [f"{len(self.decided)} of {len(self.deciders)} decided"]
        parts.append(f"{thinking} thinking…" if thinking and len(thinking) <= width // 2
                     else f"{len(self.thinking)} thinking")
        if self.waiting:
            parts.append(f"{len(self.waiting)} waiting")
        return " · ".join(parts)


Watch = Callable[[RoundProgress], None]  # the round's progress, each time a decision starts or lands


class RoundTiming(msgspec.Struct, kw_only=True):
    """Where one round's time went."""

    decide_s: float = 0.0
    recall_s: float = 0.0
    remember_s: float = 0.0
    decisions: int = 0
    fallbacks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


REPLY_PASSES = 2  # one asked by the person and by another in one round answers both, the person first


def _closes(thread: list[ThreadLine], position: int) -> bool:
    """Whether a line answers a question its hearer put to its speaker just before and asks nothing back: nobody owes
    it a word (news said back to a remark is owed one)."""
    line = thread[position]
    asks = line.act == "ask" or content.is_question(line.text)
    return not asks and content.replies(thread, position, to_a_question=True)


def derive_seed(*parts: object) -> int:
    """A stable 31-bit seed from parts (never Python's hash())."""
    text = "/".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(text, digest_size=4).digest(), "big") & 0x7FFFFFFF


def redraw(sim: Simulation, draw: int) -> int:
    """Seed `sim` for drawing its round again as drawing `draw` (> 0) of it; the new seed.

    From the seed the round was first played under: the first retry's seed is the one retries always had,
    a later one's names its drawing too, so each drawing of a round has its own seed and the same again
    draws the same.
    """
    base, round_ = sim.settings.seed, sim.state.round
    seed = derive_seed(base, "retry", round_) if draw <= 1 else derive_seed(base, "retry", round_, draw)
    sim.settings = msgspec.structs.replace(sim.settings, seed=seed)
    sim.rng = random.Random(derive_seed(seed, round_))
    return seed


def initial_state(world: World, start_id: str | None) -> WorldState:
    """World state at a start point: agents at their start positions or homes, objects where the file puts them."""
    start = world.start(start_id)
    positions = world.start_positions(start.id)
    return WorldState(
        world_id=world.file.world.id,
        world_digest=world.digest,
        start_id=start.id,
        round=start.round,
        start_round=start.round,
        positions=positions,
        object_holders={o.id: o.holder for o in world.file.object},
        object_places={o.id: o.place for o in world.file.object},
        shortterm={a.id: new_shortterm(list(a.goals)) for a in world.file.agent},
        arrived={a.id: start.round for a in world.file.agent},
        absent=sorted(start.absent),
    )


class Simulation:
    """Steps a world round by round; the player's action, if any, comes from outside."""

    def __init__(self, world: World, state: WorldState, store: MemoryStore, settings: Settings, mind: Mind | None) -> None:
        self.world = world
        self.state = state
        self.store = store
        self.settings = settings
        self.mind = mind
        self.rng = random.Random(settings.seed)
        if state.rng_state:
            self.rng.setstate((state.rng_state[0], tuple(state.rng_state[1:]), None))
        self.last_timing = RoundTiming()
        # decisions in flight at once; None asks the model (a server's slots, else 1)
        self.parallel: int | None = None
        self._mechanical: set[str] = set()  # store keys of moves and looks around (grown as events come)
        self._mechanical_upto = 0
        self.draw = 0  # the drawing of the round being played (step's `draw`; 0 outside a step)

    # --- scheduling --------------------------------------------------------------------------
    def active_agents(self) -> list[str]:
        """Agents who can act (not archived, not absent at this start), in id order."""
        absent = set(self.state.absent)
        return sorted(a.id for a in self.world.active_agents() if a.id not in absent)

    def awake_agents(self) -> list[str]:
        """Who decides this round: everyone, or (near) those around the player and a rotating few."""
        active = self.active_agents()
        if self.settings.awake == "all" or self.settings.player is None:
            return active
        player = self.settings.player
        here = self.state.positions[player]
        exits = set(self.world.places[here].exits)
        rnd = self.state.round

        def rotation(agent: str) -> int:
            # a stable per-agent offset, so a crowded room takes turns instead of the same few always acting
            return (derive_seed(agent) + rnd) % 997

        # one who went from here lately (on an errand next door) keeps its turn with those here: it says its piece
        # and comes back, instead of waiting out the turns of a crowded room
        gone = set(self.left_lately(here))
        tiers = (
            [a for a in active if self.state.positions[a] == here or a in gone and self.state.positions[a] in exits],
            # a messenger come with news last round, however far: it says its piece (then the turns go on as before)
            [a for a in active if self.state.carrying.get(a) == rnd - 1 and self.state.arrived.get(a) == rnd - 1],
            [a for a in active if self.state.positions[a] in exits],
            # far agents wake every eighth round, staggered so they do not all wake together
            [a for a in active if self.state.positions[a] not in exits | {here}
             and (derive_seed(a) + rnd) % 8 == 0],
        )
        chosen: list[str] = []
        # whoever was spoken to last round is awake to answer, before anyone else takes a turn
        for agent in self.addressed_agents():
            if agent != player and agent in active and len(chosen) < self.settings.max_awake + 2:
                chosen.append(agent)
        # then whoever the canon brings to the player's place now (the ghost keeps its appointment)
        for agent in active:
            if agent == player or agent in chosen or self.state.positions[agent] not in exits | {here}:
                continue
            intention = direction.intention_for(self.world, self.state, self.state.canon, agent)
            if intention is not None and intention.place == here and self.state.positions[agent] != here \
                    and len(chosen) < self.settings.max_awake + 1:
                chosen.append(agent)
        for tier in tiers:
            # one who came here last round goes first among its tier: it came with something to say or to ask
            for agent in sorted((a for a in tier if a != player and a not in chosen),
                                key=lambda a: (self.state.arrived.get(a) != rnd - 1, rotation(a))):
                if len(chosen) < self.settings.max_awake:
                    chosen.append(agent)
        return sorted(chosen)

    def addressed_agents(self) -> list[str]:
        """Agents spoken to in the last round by someone who is still with them."""
        last = self.state.round - 1
        found: list[str] = []
        for thread in self.state.threads.values():
            for position, line in enumerate(thread):
                # wherever it was said: they may have walked on together since
                if line.round == last and line.to and line.to not in found \
                        and self.state.positions.get(line.to) == self.state.positions.get(line.speaker) \
                        and not content.answered(thread, position) and not _closes(thread, position):
                    found.append(line.to)
        return found

    def addressed_by(self, agent: str) -> ThreadLine | None:
        """The latest line spoken to `agent` last round (or this one) by someone still present, or None."""
        place = self.state.positions[agent]
        found = []
        for thread in self.state.threads.values():  # said here, or where the two stood before walking on together
            for position in range(len(thread) - 1, -1, -1):
                line = thread[position]
                if line.round < self.state.round - 1:
                    break
                if line.to == agent and self.state.positions.get(line.speaker) == place and not content.answered(thread, position):
                    found.append(line)
        found.sort(key=lambda line: (line.round, line.event_id), reverse=True)
        # the person playing is answered first: they are the one waiting for it
        mine = [line for line in found if line.speaker == self.settings.player]
        return mine[0] if mine else found[0] if found else None

    def biddings_to(self, agent: str) -> tuple[tuple[str, str], ...]:
        """(bidder, what it asks) of each line spoken to `agent` in the last BIDDING_ROUNDS rounds that bids or asks it
        do something ("Tell the inspector what I found" -> "tell the inspector what I found"), oldest first: what it
        agreed to do, it does when it can."""
        found: list[tuple[int, str, str, str]] = []
        for thread in self.state.threads.values():
            for line in reversed(thread):  # a thread runs oldest first: read back only as far as the window
                if line.round < self.state.round - BIDDING_ROUNDS:
                    break
                what = questions.requested(line.text.strip()) if line.to == agent and line.speaker != agent else None
                if what is not None:
                    found.append((line.round, line.event_id, line.speaker, what))
        return tuple((speaker, what) for _, _, speaker, what in sorted(found))

    def player_call(self, agent: str) -> direction.Intention | None:
        """The player's due beat elsewhere, if `agent` is with the player and nobody has sent word of it yet."""
        player = self.settings.player
        if player is None or agent == player or self.state.positions.get(agent) != self.state.positions.get(player):
            return None
        call = direction.intention_for(self.world, self.state, self.state.canon, player)
        if call is None or call.role != "actor" or call.place == self.state.positions[player] \
                or call.beat_id in self.state.canon.summoned:
            return None
        # one sends word, not everyone in the room: whoever the beat involves, else the first of those here
        here = [a for a in present_at(self.world, self.state, self.state.positions[player], besides=player)]
        involved = [a for a in here if a in call.meet or a in call.companions]
        return call if (involved or here)[:1] == [agent] else None

    def own_lines(self, agent: str, limit: int = 6) -> tuple[str, ...]:
        """What `agent` said most recently, newest last."""
        said = [e.claim for e in self.state.events[-200:] if e.kind == "say" and e.actor == agent and e.claim]
        return tuple(said[-limit:])

    def arrivals(self, agent: str) -> tuple[str, ...]:
        """Who came to this agent's place last round."""
        place = self.state.positions[agent]
        return tuple(a for a in present_at(self.world, self.state, place, besides=agent)
                     if self.state.arrived.get(a) == self.state.round - 1)

    # --- one round ---------------------------------------------------------------------------
    def context_for(self, agent: str, *, replying: bool = False) -> tuple[DecisionContext, float]:
        """Perception, short-term memory and what it holds that bears on the round; the context and recall seconds."""
        perception = perceive(self.world, self.state, agent)
        stm = self.state.shortterm[agent]
        goal = stm.goals[-1] if stm.goals else ""
        intention = direction.intention_for(self.world, self.state, self.state.canon, agent)
        addressed = self.addressed_by(agent)
        started = time.perf_counter()
        knowledge = content.gather(
            self.world, self.store, agent, round_=self.state.round,
            present=perception.present, addressed=addressed,
            beat_text=intention.text if intention is not None else "",
            moment_query=f"{goal} {perception.summary(self.world)}".strip(), told=self.told_lately(agent),
            mechanical=self.mechanical_keys(), before=self.exchange_before(agent, addressed),
            previous=self.told_to(agent, addressed.speaker) if addressed is not None else (),
            biddings=self.biddings_to(agent))
        recall_s = time.perf_counter() - started
        recalled = tuple(Recalled(record_id=k.record_id, text=k.text, tag=provenance_tag(self.world, k))
                         for k in knowledge.moment[: self.settings.recall_k])
        seed = derive_seed(self.settings.seed, self.state.round, agent)
        place = self.state.positions[agent]
        caught_up = max((e.round for e in self.state.events if e.actor == agent and e.kind == "read"), default=None)
        missed = sum(1 for t in self.state.threads.get(place, [])
                     if agent not in t.heard_by and (caught_up is None or t.round > caught_up))
        context = DecisionContext(
            agent=agent, perception=perception, shortterm=stm, recalled=recalled, seed=seed, intention=intention,
            addressed_by=addressed, own_lines=self.own_lines(agent), arrivals=self.arrivals(agent),
            missed_lines=missed, player=self.settings.player, player_call=self.player_call(agent),
            read_already=tuple(sorted({e.target for e in self.state.events
                                       if e.actor == agent and e.kind == "act" and e.verb == "read" and e.target})),
            knowledge=knowledge, replying=replying, asked=self.asked_by(agent),
            last_moved=max((e.round for e in self.state.events[-400:] if e.kind == "move" and e.actor == agent),
                           default=None), came_from=self.way_back(agent),
            left_lately=self.left_lately(place), draw=self.draw,
        )
        return draws.vary(context), recall_s

    def left_lately(self, place: str, rounds: int = 3) -> tuple[str, ...]:
        """The characters who went from `place` in the last `rounds` rounds and are not there now (the person playing
        goes where they like: that sends nobody's news anywhere)."""
        since = self.state.round - rounds
        return tuple(sorted({e.actor for e in self.state.events[-400:] if e.kind == "move" and e.from_place == place
                             and e.round >= since and self.state.positions.get(e.actor) != place
                             and e.actor != self.settings.player}))

    def way_back(self, agent: str) -> str | None:
        """Where `agent` came from by its last move, if it has spoken here since, more are there than here, and that
        move was neither a way back nor one it was led on (DecisionContext.came_from)."""
        recent = self.state.events[-400:]
        moves = [e for e in recent if e.kind == "move" and e.actor == agent]
        here = self.state.positions.get(agent)
        if here is None or not moves or moves[-1].target != here or moves[-1].led_by:
            return None
        last, origin = moves[-1], moves[-1].from_place
        if origin is None:
            return None
        if len(moves) > 1 and moves[-2].from_place == here and moves[-2].target == origin:
            return None
        if not any(e.kind == "say" and e.actor == agent and e.place == here and e.round > last.round for e in recent):
            return None
        there = present_at(self.world, self.state, origin)
        return origin if len(there) > len(present_at(self.world, self.state, here, besides=agent)) else None

    def asked_by(self, agent: str, limit: int = 12) -> tuple[tuple[str, str], ...]:
        """The questions `agent` put lately and to whom (its agenda does not ask the same one twice)."""
        asked = [(a.to, a.text) for a in self.state.actions[-400:]
                 if isinstance(a, Say) and a.actor == agent and a.act == "ask" and a.to]
        return tuple(asked[-limit:])

    def exchange_before(self, agent: str, addressed: ThreadLine | None, rounds: int = 6) -> str:
        """The last line `agent` and whoever spoke to it said to each other before that line (what "it" means)."""
        if addressed is None:
            return ""
        pair = {agent, addressed.speaker}
        best: tuple[int, int, str] | None = None
        for thread in self.state.threads.values():
            lines = [line.event_id for line in thread]
            cut = lines.index(addressed.event_id) if addressed.event_id in lines else len(thread)
            for position, line in enumerate(thread[:cut]):
                if {line.speaker, line.to} == pair and addressed.round - rounds <= line.round <= addressed.round:
                    if best is None or (line.round, position) > best[:2]:
                        best = (line.round, position, line.text)
        return best[2] if best else ""

    def focus_of(self, agent: str) -> frozenset[str]:
        """The ids an agent is after now: the people, places and things its top goal names, and its beat's place
        and people (what short-term memory keeps when it must forget)."""
        stm = self.state.shortterm[agent]
        goal = stm.goals[-1] if stm.goals else ""
        found = set(render.names_in(self.world, goal))
        found |= {p.id for p in self.world.places.values() if p.name and p.name in goal}
        found |= {o.id for o in self.world.objects.values() if o.name and o.name in goal}
        intention = direction.intention_for(self.world, self.state, self.state.canon, agent)
        if intention is not None:
            found |= {intention.place, *intention.meet}
        return frozenset(found - {agent})

    def told_to(self, agent: str, listener: str, rounds: int = 12) -> tuple[int, ...]:
        """The records `agent` last told `listener` (a follow-up, "Who told you?", points back to them)."""
        latest: tuple[int, int, tuple[int, ...]] | None = None
        for thread in self.state.threads.values():
            for position, line in enumerate(thread):
                if line.speaker == agent and line.to == listener and line.tells and line.round >= self.state.round - rounds:
                    if latest is None or (line.round, position) > latest[:2]:
                        latest = (line.round, position, tuple(t.record for t in line.tells))
        return latest[2] if latest else ()

    def told_lately(self, agent: str, rounds: int = 12) -> tuple[int, ...]:
        """Records `agent` told in the last `rounds` rounds (a story is not told twice running)."""
        since = self.state.round - rounds
        return tuple(r for e in self.state.events[-400:] if e.kind == "say" and e.actor == agent and e.round >= since
                     for r in e.tells)

    def mechanical_keys(self) -> frozenset[str]:
        """Store keys of the run's moves, looks around, waits and catch-ups: remembered, never news to tell."""
        if self._mechanical_upto != len(self.state.events):
            for event in self.state.events[self._mechanical_upto:]:
                if event.kind in ids.MECHANICAL:
                    self._mechanical.update(ids.keys_of(event))
            self._mechanical_upto = len(self.state.events)
        return frozenset(self._mechanical)

    def decide_all(
        self, exclude: set[str], progress: Progress | None = None, cancelled: Callable[[], bool] | None = None,
        watch: Watch | None = None, *, only: list[str] | None = None,
    ) -> dict[str, Decision]:
        """Every awake non-player agent decides against the same start-of-round state (the barrier).

        `progress(agent, index, total)` as each decision starts; `watch(RoundProgress)` once before
        any starts and again as each starts and as each lands (all on this thread).
        """
        replying = only is not None  # the round's answers, decided once its lines are heard
        deciders = list(only) if only is not None else [a for a in self.awake_agents() if a not in exclude]
        if deciders and self.mind is None:
            raise RuntimeError("no mind configured for agents")
        if not replying:
            self.last_timing = RoundTiming()
        timing = self.last_timing
        # Contexts first, in order (recall reads the store; it stays on this thread), then the
        # decisions, up to `parallel` at once: each is a function of its own context and seed.
        contexts: list[DecisionContext] = []
        for agent in deciders:
            context, recall_s = self.context_for(agent, replying=replying)
            timing.recall_s += recall_s
            contexts.append(msgspec.structs.replace(context, deciding=tuple(deciders)))
        model = model_of(self.mind)
        parallel = self.parallel if self.parallel is not None else parallelism(model)
        lane_count = lanes(model)
        lane_of: Callable[[int], int] | None = None
        if lane_count:
            # an agent keeps its lane (its server's cache holds its prompts), whoever else is awake
            order = {agent.id: index for index, agent in enumerate(self.world.file.agent)}
            lane_of = lambda i: order.get(deciders[i], i) % lane_count  # noqa: E731
        shown = RoundProgress(deciders=tuple(deciders))
        if watch is not None:
            watch(shown)

        def begun(index: int) -> None:
            nonlocal shown
            if progress is not None:
                progress(deciders[index], index, len(deciders))
            if watch is not None:
                shown = msgspec.structs.replace(shown, thinking=(*shown.thinking, deciders[index]))
                watch(shown)

        def landed(index: int) -> None:
            nonlocal shown
            agent = deciders[index]
            shown = msgspec.structs.replace(shown, thinking=tuple(a for a in shown.thinking if a != agent),
                                            decided=(*shown.decided, agent))
            watch(shown)  # type: ignore[misc]

        started = time.perf_counter()

        def decide(context: DecisionContext) -> Decision:
            try:
                return self.mind.decide(self.world, context)  # type: ignore[union-attr]
            except ModelError as exc:  # the model is down: the round is refused, never played without it
                raise ModelFailed(self.state.round, context.agent, self.world.name_of(context.agent), exc) from exc

        try:
            results = run_ordered(
                decide,
                contexts,
                parallel,
                started=begun if progress is not None or watch is not None else None,
                cancelled=cancelled,
                lane_of=lane_of,
                finished=landed if watch is not None else None,
            )
        except Cancelled as exc:  # the round is cancelled before it resolves: the state is unchanged
            who = deciders[exc.next_index] if exc.next_index is not None else "an agent"
            raise Cancelled(f"round {self.state.round} cancelled while {who} was deciding") from None
        timing.decide_s += time.perf_counter() - started
        decisions: dict[str, Decision] = {}
        for agent, decision in zip(deciders, results):
            timing.decisions += 1
            timing.fallbacks += int(decision.fallback)
            timing.prompt_tokens += decision.prompt_tokens
            timing.completion_tokens += decision.completion_tokens
            decisions[agent] = decision
        return decisions

    def step(
        self,
        player_action: Action | None = None,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
        watch: Watch | None = None,
        seated: dict[str, Action] | None = None,
        draw: int = 0,
    ) -> RoundOutcome:
        """Run one round (`_step`) as its drawing `draw`: 0 as first played; a retry's d > 0 takes the next of
        the near-tied choices (minds.draws). The outcome and the state say which drawing it was."""
        self.draw = draw
        try:
            outcome = self._step(player_action, progress, cancelled, watch, seated)
        finally:
            self.draw = 0  # the next round is a first drawing unless a retry says otherwise
        self.state.draw = draw
        return msgspec.structs.replace(outcome, draw=draw) if draw else outcome

    def _step(
        self,
        player_action: Action | None = None,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
        watch: Watch | None = None,
        seated: dict[str, Action] | None = None,
    ) -> RoundOutcome:
        """Run one round: decide, resolve at the barrier, deposit, update short-term memory.

        `seated`: the actions of other people playing (a hosted game's seats); their characters do not decide.

        All or nothing: until the memory store has taken the round's deposits, a failure (a cancel,
        the model down, a deposit the store refuses) leaves the world state, the seeded RNG and the
        store as they were (RoundRefused, Cancelled); the store validates a whole batch before it
        writes any of it.
        """
        exclude = {player_action.actor} if player_action is not None else set()
        # each seated person's line is read into what it asserts, as the one player's is below
        seated = {a: listening.hear(self.world, self.store, act) if isinstance(act, Say) else act
                  for a, act in (seated or {}).items()}
        exclude.update(seated)
        if self.settings.player is not None:
            exclude.add(self.settings.player)
        if isinstance(player_action, Say):
            # the person's line is read into what it asserts (the listeners come to hold it, told by them)
            player_action = listening.hear(self.world, self.store, player_action)
            if player_action.to is not None and player_action.to in self.active_agents():
                exclude.add(player_action.to)  # it hears the person first, and answers within this round
        decisions = self.decide_all(exclude, progress, cancelled, watch)
        for agent in self.stay_to_answer(decisions):
            del decisions[agent]  # asked a question here as it turned to go: it stays and answers within the round
        for agent in self.wait_for_comers(decisions, player_action):
            del decisions[agent]  # the company it set off to find is on its way here: it stays and meets them
        actions: dict[str, Action] = {a: d.action for a, d in decisions.items()}
        actions.update(seated)
        if player_action is not None:
            actions[player_action.actor] = player_action
        based_on = {a: d.based_on for a, d in decisions.items()}
        fallbacks = frozenset(a for a, d in decisions.items() if d.fallback)
        before, rng_before = _state_encoder.encode(self.state), self.rng.getstate()
        try:
            self.state.fallbacks += len(fallbacks)
            # who set off with news this round (inside the undo: a refused round leaves no messenger behind)
            self.state.carrying.update({a: self.state.round for a, d in decisions.items() if d.purpose == "carry"})
            outcome = resolve_round(self.world, self.state, actions, self.rng, based_on=based_on, fallbacks=fallbacks,
                                    companions=self.companions(player_action))
            outcome, replied = self.replies(outcome, progress, cancelled, watch)
            for agent, decision in replied.items():  # one who also acted keeps its main decision's beat
                decisions.setdefault(agent, decision)
                actions.setdefault(agent, decision.action)
            self.state.canon.summoned.extend(d.beat for d in decisions.values() if d.purpose == "summon" and d.beat)
            outcome = self.settle_canon(outcome, {a: d.beat for a, d in decisions.items()
                                                  if d.beat and d.purpose != "summon"})
            started = time.perf_counter()
            record_ids = self.store.remember_many(list(outcome.deposits)) if outcome.deposits else []
        except Exception as exc:  # the commit point is the store taking the batch: before it, undo the state
            restored = _state_decoder.decode(before)
            for field in restored.__struct_fields__:  # in place: whoever holds the state sees it put back
                setattr(self.state, field, getattr(restored, field))
            self.rng.setstate(rng_before)
            self._mechanical, self._mechanical_upto = set(), 0
            if isinstance(exc, (Cancelled, RoundRefused)):
                raise  # a cancel or the model down while the round's answers were decided: said as such
            raise RoundRefused(f"round {self.state.round} not played: {exc}", round_=self.state.round,
                               cause=exc) from exc
        self.affiliate(outcome, record_ids)
        self.retract(outcome)
        self.last_timing.remember_s = time.perf_counter() - started
        for agent, result in outcome.results.items():
            if agent in actions:
                remember_result(
                    self.state.shortterm[agent],
                    CacheEntry(round=outcome.round, action=describe(actions[agent]), result=result, done=actions[agent]),
                    policy=self.settings.cache_policy,
                    size=self.settings.cache_size,
                    focus=self.focus_of(agent) if self.settings.cache_policy != "fifo" else frozenset(),
                )
        update_status(self.world, self.state, outcome, self.settings.player)
        self.store.decay(self.state.round)
        version, internal, _ = self.rng.getstate()
        self.state.rng_state = [version, *internal]
        return outcome

    def stay_to_answer(self, decisions: dict[str, Decision]) -> list[str]:
        """Who was asked a question this round by someone beside it as it chose to walk off or to put a question
        of its own, on its own errand (not the canon's): it stays to answer, within the round; its errand waits.
        Two who ask each other: the first (by id) asks, the other answers."""
        where = self.state.positions

        def errand(agent: str) -> bool:
            d = decisions.get(agent)
            return d is not None and not d.beat and (
                isinstance(d.action, Move) and d.purpose not in ("beat", "lead", "summon")
                or isinstance(d.action, Say) and d.purpose == "seek")

        staying: list[str] = []
        for agent in sorted(decisions):
            action = decisions[agent].action
            if agent in staying or not isinstance(action, Say) or not action.to or action.to == agent:
                continue
            # (a line said back in surprise, "Your circus is engaged…? I never knew that", asks nothing)
            if action.act != "react" and (action.act == "ask" or content.is_question(action.text)) \
                    and where.get(agent) == where.get(action.to) \
                    and action.to not in staying and errand(action.to):
                staying.append(action.to)
        return sorted(staying)

    def wait_for_comers(self, decisions: dict[str, Decision], player_action: Action | None = None) -> list[str]:
        """Who set off on its own errand to the room someone is leaving for its own this same round: it stays (else
        the two cross on the way, each to find the other's room empty). Of two such errands toward each other, the
        first (by id) stays and the other goes."""
        where = self.state.positions
        moving: dict[str, str] = {a: d.action.to for a, d in decisions.items() if isinstance(d.action, Move)}
        if isinstance(player_action, Move):
            moving[player_action.actor] = player_action.to
        staying: list[str] = []
        # one crossing the person playing stays first (the person always goes): then whoever it would have crossed
        # goes on its errand, instead of both staying for each other
        crossing_player = {a for a, d in decisions.items() if isinstance(d.action, Move) and isinstance(player_action, Move)
                           and where.get(player_action.actor) == d.action.to and player_action.to == where.get(a)}
        for agent in sorted(decisions, key=lambda a: (a not in crossing_player, a)):
            d = decisions[agent]
            if not isinstance(d.action, Move) or d.beat or d.purpose not in ("seek", "carry"):
                continue
            here, there = where.get(agent), d.action.to
            if any(b != agent and where.get(b) == there and to == here for b, to in moving.items()):
                staying.append(agent)
                del moving[agent]  # it stays: one coming its way no longer crosses it
        return staying

    def repliers(self, outcome: RoundOutcome, limit: int) -> list[str]:
        """Who answers within the round: spoken to by the person playing, or asked a question by another, still
        with them, and not yet answered this round; not the person, not one whose own line this round already
        went to the asker (their lines crossed)."""
        asked: list[tuple[bool, str, str]] = []  # (not the person's, addressee, asker), in the order said
        for thread in self.state.threads.values():
            for position, line in enumerate(thread):
                if line.round != outcome.round or not line.to or line.to == line.speaker or content.answered(thread, position):
                    continue
                if line.speaker != self.settings.player and not (line.act == "ask" or content.is_question(line.text)):
                    continue  # between characters, a question asks for an answer now; a remark waits its turn
                asked.append((line.speaker != self.settings.player, line.to, line.speaker))
        asked.sort(key=lambda item: item[0])  # the person playing is answered first
        found: list[str] = []
        for _, agent, asker in asked:
            if agent == self.settings.player or agent in found or agent not in self.active_agents():
                continue
            if self.state.positions.get(agent) != self.state.positions.get(asker):
                continue
            found.append(agent)
        return found[:limit]

    def replies(self, outcome: RoundOutcome, progress: Progress | None = None,
                cancelled: Callable[[], bool] | None = None, watch: Watch | None = None,
                ) -> tuple[RoundOutcome, dict[str, Decision]]:
        """The round's answers: whoever was spoken to answers now, having heard the line (same round number). One
        asked by two answers the person playing first, then, in a second pass, the other."""
        replied: dict[str, Decision] = {}
        budget = self.settings.max_awake  # answers a round gives at most (each is a decision)
        for _ in range(REPLY_PASSES):
            repliers = self.repliers(outcome, budget)
            if not repliers:
                break
            self.state.round = outcome.round  # the answers belong to the round whose lines they answer
            try:
                decisions = self.decide_all(set(), progress, cancelled, watch, only=repliers)
            finally:
                self.state.round = outcome.round + 1
            self.state.fallbacks += sum(1 for d in decisions.values() if d.fallback)
            # an answer is a line, or a deed done with words to the one who spoke (leading them somewhere)
            answers: dict[str, Action] = {a: d.action for a, d in decisions.items() if isinstance(d.action, (Say, ActOn))}
            outcome = resolve_replies(self.world, self.state, outcome, answers)
            for agent in answers:
                replied.setdefault(agent, decisions[agent])
            budget -= len(repliers)
            if budget <= 0 or not answers:
                break
        return outcome, replied

    def companions(self, player_action: Action | None) -> dict[str, tuple[str, ...]]:
        """Who goes along when the player walks toward their beat (the beat's people with them, not busy)."""
        player = self.settings.player
        if player is None or not isinstance(player_action, Move):
            return {}
        found = direction.companions(self.world, self.state, self.state.canon, player, player_action.to)
        return {player: found} if found else {}

    def settle_canon(self, outcome: RoundOutcome, worked: dict[str, str]) -> RoundOutcome:
        """Mark the beats the round met or left behind, and narrate what the screen should show of them:
        a deed or sight where it happened, and word of a passed beat to a player who would know of it."""
        from storyworld.game.sediment import MEMORY_KIND

        told = {line.event_id: " ".join(t.text for t in line.tells)
                for lines in self.state.threads.values() for line in lines
                if line.round == outcome.round and line.tells}
        progress = self.state.canon
        dropped_before = len(progress.dropped)
        own: set[str] = set()
        performed: set[str] = set()
        met = direction.update(self.world, self.state, progress, list(outcome.events), worked=worked,
                               player=self.settings.player, told=told, own=own, performed=performed)
        tellings = direction.tellings(self.world, self.state, progress, met, progress.dropped[dropped_before:],
                                      self.settings.player, own, performed)
        narrations = [Narration(text=t.beat.text, place=t.beat.place, statements=tuple(t.beat.statements),
                                key=ids.canon(t.beat.id).text, kind=MEMORY_KIND[t.beat.kind], beat=t.beat.id,
                                hearers=t.hearers if t.mode == "word" else None, actors=tuple(t.beat.actors))
                      for t in tellings]
        outcome = narrate(self.world, self.state, outcome, narrations)
        progress.declined.extend(b for b in outcome.declined if b not in progress.declined)
        return outcome

    def retract(self, outcome: RoundOutcome) -> None:
        """Apply the round's exposures: each exposed claim's records are retracted, contaminating what rests on them."""
        # follows the claim into every record it merged into, not only the one carrying its event id
        for event_id, by in dict(outcome.retractions).items():
            self.store.retract_event(event_id, by=by, round=outcome.round)

    def affiliate(self, outcome: RoundOutcome, id_lists: list[list[int]]) -> None:
        """Link the records each event group and each owner's round took in (`id_lists`: per deposit)."""
        groups: dict[str, set[int]] = {}
        for deposit, record_ids in zip(outcome.deposits, id_lists):
            groups.setdefault(f"event:{deposit.group or deposit.event_id or ''}", set()).update(record_ids)
            groups.setdefault(f"owner:{deposit.owner}", set()).update(record_ids)
        for linked in groups.values():
            if len(linked) > 1:
                self.store.affiliate(sorted(linked))
