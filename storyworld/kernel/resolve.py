"""The round barrier: resolve every chosen action in a seeded order into events and memory deposits."""

from __future__ import annotations

import random
from typing import TypedDict, Unpack

import msgspec

from memory.records import Deposit, Kind, Via
from storyworld.kernel import ids, verbs
from storyworld.kernel.actions import ActOn, Action, Claim, Move, Observe, ReadThread, Say, Told, Wait
from storyworld.kernel.wording import deed, direction_text, inline, split_directions
from storyworld.kernel.perception import present_at
from storyworld.kernel.state import SimEvent, ThreadLine, WorldState
from storyworld.world import World


class RoundOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What one round produced: events in resolution order, deposits, and each actor's result line."""

    round: int
    events: tuple[SimEvent, ...]
    deposits: tuple[Deposit, ...]
    results: dict[str, str]
    order: tuple[str, ...]
    retractions: tuple[tuple[str, str], ...] = ()  # (event id of the exposed claim, who exposed it)
    refused: tuple[str, ...] = ()  # actors whose action the kernel could not carry out
    # canon beats met this round that the story declined to show (no one could see them as the canon tells
    # them): they happened off the screen, so nobody's Goals tick them done
    declined: tuple[str, ...] = ()
    draw: int = 0  # which drawing of the round this is: 0 as first played, d > 0 the d-th retry (minds.draws)


class Narration(msgspec.Struct, frozen=True, kw_only=True):
    """Something the story tells at a place besides anyone's action: a canon deed or sight as it happens
    (everyone there sees it), or word of one reaching `hearers` (held as told, by nobody in particular)."""

    text: str
    place: str  # where it happened (for word: where the word comes from)
    statements: tuple[str, ...]  # what those who see it, or hear of it, come to hold
    key: str  # the store key of the statements (kernel.ids.canon): one record for all who hold them
    kind: Kind = "event"  # the statements' memory kind
    beat: str | None = None  # the canon beat it tells
    hearers: tuple[str, ...] | None = None  # None: seen by whoever is at `place`; else word reaching these
    actors: tuple[str, ...] = ()  # who did it (the canon event's actors)


class EventDetails(TypedDict, total=False):
    """The optional fields of a SimEvent that an event's kind fills in."""

    target: str | None
    claim: str | None
    fallback: bool
    to: str | None
    verb: str | None
    from_place: str | None
    detail: str
    act: str | None
    tells: tuple[int, ...]
    rendered: bool
    led_by: str | None
    beat: str | None
    word_from: str | None


class _Resolver:
    """Applies actions one at a time to the state, collecting events and deposits."""

    def __init__(self, world: World, state: WorldState, based_on: dict[str, tuple[int, ...]],
                 actions: dict[str, Action] | None = None, companions: dict[str, tuple[str, ...]] | None = None) -> None:
        self.world = world
        self.state = state
        self.based_on = based_on
        self.actions = actions or {}
        self.companions = companions or {}
        self.arrived: dict[str, str] = {}  # who walked in this round -> the result they were given then
        self.refused: list[str] = []
        self.events: list[SimEvent] = []
        self.deposits: list[Deposit] = []
        self.results: dict[str, str] = {}
        self.retractions: list[tuple[str, str]] = []
        self.offset = 0  # events of the round resolved before these (answers come after the round's lines)

    def present(self, place: str) -> tuple[str, ...]:
        return present_at(self.world, self.state, place)

    def event(self, actor: str, kind: str, text: str, place: str, witnesses: tuple[str, ...],
              **extra: Unpack[EventDetails]) -> SimEvent:
        event = SimEvent(
            id=ids.event_id(self.state.round, self.offset + len(self.events)),
            round=self.state.round,
            place=place,
            actor=actor,
            kind=kind,  # type: ignore[arg-type]
            text=text,
            witnesses=witnesses,
            **extra,
        )
        self.events.append(event)
        return event

    def deposit_all(self, event: SimEvent, statements: tuple[str, ...], *, kind: Kind, event_id: str | None = None,
                    via: Via = "witnessed", source: str | None = None, owners: tuple[str, ...] | None = None,
                    based_on: tuple[int, ...] = (), place: str | None = None, group: str | None = None,
                    actors: tuple[str, ...] | None = None, flags: tuple[str, ...] = ()) -> None:
        """One deposit per owner (the witnesses by default); `group` is what it is affiliated with (its event id).

        `actors`: who did what the statements say (default: the event's actor, and its target when a person).
        """
        if actors is None:
            actors = tuple(a for a in (event.actor, event.target) if a and a in self.world.agents)
        for owner in owners if owners is not None else event.witnesses:
            self.deposits.append(Deposit(
                owner=owner, statements=statements, round=event.round, event_id=event_id or event.id,
                via=via, source=source, place=place or event.place, kind=kind, based_on=based_on,
                group=group or event_id or event.id, actors=actors, flags=flags,
            ))

    # --- one method per action -------------------------------------------------------------
    def say(self, action: Say, *, lie: bool = False, fallback: bool = False) -> None:
        place = self.state.positions[action.actor]
        witnesses = self.present(place)
        speaker = self.world.name_of(action.actor)
        spoken, directions = split_directions(action.text)
        if directions:  # "(bows) My lord." : the bow is done, never said
            for direction in directions:
                event = self.event(action.actor, "act", direction_text(speaker, direction), place, witnesses,
                                   fallback=fallback, target=action.to)
                self.deposit_all(event, (event.text,), kind="event")
            if not spoken:
                self.results[action.actor] = "done"
                return
            action = msgspec.structs.replace(action, text=spoken)
        where = inline(self.world.name_of(place))
        to = f" {self.world.name_of(action.to)}" if action.to else ""  # "Ada tells Maren in ...", not "tells to Maren"
        text = f'{speaker} tells{to} in {where}: "{action.text}"' if action.to else (
            f'{speaker} says in {where}: "{action.text}"')
        lie = lie or action.act == "lie"  # a denial chosen from memory is a lie too
        act = "lie" if lie else action.act
        event = self.event(action.actor, "say", text, place, witnesses, target=action.to, claim=action.text,
                           fallback=fallback, to=action.to, act=act, tells=tuple(t.record for t in action.tells),
                           rendered=action.rendered)
        self.state.threads.setdefault(place, []).append(
            ThreadLine(round=event.round, speaker=action.actor, text=action.text, event_id=event.id,
                       heard_by=witnesses, to=action.to, narration=text, tells=action.tells, act=act,
                       claims=action.claims)
        )
        self.state.threads[place] = self.state.threads[place][-40:]
        # Everyone here heard it said (one utterance record); what it tells lands on the records it tells.
        self.deposit_all(event, (text,), kind="utterance")
        listeners = tuple(w for w in witnesses if w != action.actor)
        # those it was not said to overheard it (a line to someone here; a line to all is said to each)
        overheard = tuple(w for w in listeners if action.to in listeners and w != action.to)
        for listener in listeners:
            self.tell(listener, action.actor, action.tells, round_=event.round, place=place, group=event.id,
                      overheard=listener in overheard)
        self.claim(event, action.claims, listeners, overheard)
        if lie:
            # A lie is a claim of its own, held as told by the listeners: exposing the liar retracts it.
            claim_id = ids.claim_of(event.id).text
            derived = self.based_on.get(action.actor, ())
            self.deposit_all(event, (action.text,), kind="claim", event_id=claim_id, via="told",
                             source=action.actor, owners=listeners, based_on=derived, group=event.id)
            self.deposit_all(event, (action.text,), kind="claim", event_id=claim_id, via="inferred",
                             owners=(action.actor,), based_on=derived, group=event.id)
            self.state.lies[claim_id] = action.actor
        heard = len(listeners)
        self.results[action.actor] = f"{heard} heard you" if heard else "nobody was there to hear"
        for listener in listeners:
            self.results.setdefault(listener, "")

    def tell(self, listener: str, speaker: str, tells: tuple[Told, ...], *, round_: int, place: str, group: str,
             overheard: bool = False) -> None:
        """The listener comes to hold each told record, told by the speaker (the store lands it on that record);
        one who heard it said to another holds it as overheard."""
        for told in tells:
            self.deposits.append(Deposit(owner=listener, statements=(told.text,), round=round_, record=told.record,
                                         via="told", source=speaker, place=place, kind=told.kind, group=group,
                                         flags=("overheard",) if overheard else ()))

    def claim(self, event: SimEvent, claims: tuple[Claim, ...], listeners: tuple[str, ...],
              overheard: tuple[str, ...] = ()) -> None:
        """What a line asserts of its own: one claim record per statement, the speaker's word, held as told by
        its listeners (never by the speaker: what one says does not change what one holds); those of them it
        was not said to (`overheard`) hold it as overheard."""
        if not claims:
            return
        actors = tuple(dict.fromkeys(a for claim in claims for a in claim.actors))
        statements = tuple(claim.text for claim in claims)
        addressed = tuple(w for w in listeners if w not in overheard)
        for owners, flags in ((addressed, ()), (overheard, ("overheard",))):
            if owners:
                self.deposit_all(event, statements, kind="claim", event_id=ids.claim_of(event.id).text, via="told",
                                 source=event.actor, owners=owners, group=event.id, actors=actors, flags=flags)

    def move(self, action: Move, *, fallback: bool = False, led_by: str | None = None) -> None:
        origin = self.state.positions[action.actor]
        if action.to not in self.world.places[origin].exits:
            self.refuse(action.actor, f"there is no way from here to {action.to}")
            return
        left_behind = self.present(origin)
        self.state.positions[action.actor] = action.to
        self.state.arrived[action.actor] = self.state.round
        arrivals = self.present(action.to)
        witnesses = tuple(sorted(set(left_behind) | set(arrivals)))
        along = f" with {self.world.name_of(led_by)}" if led_by else ""
        text = (f"{self.world.name_of(action.actor)} went{along} from {inline(self.world.name_of(origin))} "
                f"to {inline(self.world.name_of(action.to))}.")
        event = self.event(action.actor, "move", text, action.to, witnesses, target=action.to, fallback=fallback,
                           from_place=origin, led_by=led_by)
        # one record (one event id), but each witness saw it where they stood: the leaving or the arriving
        # (arrivals first: the record takes the event's place, the destination)
        self.deposit_all(event, (text,), kind="event", owners=tuple(w for w in witnesses if w in arrivals))
        self.deposit_all(event, (text,), kind="event", owners=tuple(w for w in witnesses if w not in arrivals),
                         place=origin)
        self.results[action.actor] = self.arrived[action.actor] = self.arrival(action.actor)
        if led_by is None:
            for companion in self.companions.get(action.actor, ()):
                if self.comes_along(companion, action.actor, action.to, origin):
                    self.move(Move(actor=companion, to=action.to), led_by=action.actor)
                    self.results[companion] = (f"went with {self.world.name_of(action.actor)} to "
                                               f"{self.world.name_of(action.to)}")

    def arrival(self, agent: str) -> str:
        """What someone who walked in sees: who is there."""
        others = [self.world.name_of(a) for a in self.present(self.state.positions[agent]) if a != agent]
        return f"arrived; here: {', '.join(others) or 'nobody'}"

    def comes_along(self, agent: str, leader: str, place: str, origin: str) -> bool:
        """Whether `agent`, with `leader` at `origin`, goes along to `place`: yes unless going their own way,
        busy with a deed of their own, or talking to someone else."""
        if agent not in self.present(origin) or agent == leader:
            return False
        own = self.actions.get(agent)
        if isinstance(own, Move) or (isinstance(own, ActOn) and own.verb == "lead"):
            return False  # their own way (or the same way, on their own feet)
        busy = isinstance(own, ActOn) or (isinstance(own, Say) and own.to not in (None, leader))
        return not busy

    def observe(self, action: Observe, *, fallback: bool = False) -> None:
        place = self.state.positions[action.actor]
        present = self.present(place)
        objects = sorted(o for o, p in self.state.object_places.items() if p == place)
        names = ", ".join(self.world.name_of(a) for a in present)
        text = f"In {self.world.name_of(place)} in round {self.state.round}: {names} present"
        text += f"; {', '.join(self.world.name_of(o) for o in objects)} here." if objects else "."
        # Everyone who looks around the same place in the same round sees the same scene: one event id.
        shared_id = ids.scene(self.state.round, place, text).text
        event = self.event(action.actor, "observe", text, place, (action.actor,), fallback=fallback)
        # Remembered as the facts seen, one statement each (the granularity every backend atomizes to),
        # so they are affiliated as one deposit and each merges with other observers' same fact: every
        # observer of the scene deposits the same facts in the same order (themselves included), since the
        # store matches a scene's facts by their position in it.
        where = f"in {inline(self.world.name_of(place))} in round {self.state.round}"
        facts = tuple(f"{self.world.name_of(x)} is {where}." for x in (*present, *objects))
        self.deposit_all(event, facts, kind="observation", event_id=shared_id, actors=())
        self.results[action.actor] = f"saw {names}" + (f" and {', '.join(self.world.name_of(o) for o in objects)}" if objects else "")

    def read_thread(self, action: ReadThread, *, fallback: bool = False) -> None:
        place = self.state.positions[action.actor]
        missed = [t for t in self.state.threads.get(place, []) if action.actor not in t.heard_by][-6:]
        text = f"{self.world.name_of(action.actor)} caught up on what was said in {inline(self.world.name_of(place))}."
        event = self.event(action.actor, "read", text, place, (action.actor,), fallback=fallback)
        for line in missed:
            said = line.narration or f'{self.world.name_of(line.speaker)} said in {inline(self.world.name_of(place))}: "{line.text}"'
            # the line itself, as its hearers hold it (one record), and what it told
            self.deposits.append(Deposit(owner=action.actor, statements=(said,), round=event.round,
                                         event_id=ids.of_event(line.event_id).text, via="read", source=line.speaker,
                                         place=place, kind="utterance", group=line.event_id))
            self.tell(action.actor, line.speaker, line.tells, round_=event.round, place=place, group=line.event_id)
        self.results[action.actor] = f"caught up on {len(missed)} lines" if missed else "nothing new was said here"

    def act_on(self, action: ActOn, *, fallback: bool = False) -> None:
        place = self.state.positions[action.actor]
        witnesses = self.present(place)
        actor, target = self.world.name_of(action.actor), self.world.name_of(action.target)
        where = inline(self.world.name_of(place))
        holders, places = self.state.object_holders, self.state.object_places
        is_object = action.target in self.world.objects
        verb = action.verb.strip().lower() or "use"
        if verb == "lie":
            listener = action.to or (action.target if action.target in self.world.agents else None)
            self.say(Say(actor=action.actor, text=action.text or "...", to=listener), lie=True, fallback=fallback)
            return
        if verb == "expose":
            self.expose(action, place, witnesses, fallback)
            return
        if verb == "take" and is_object:
            if places.get(action.target) != place:
                self.refuse(action.actor, f"{target} is not here to take")
                return
            places[action.target], holders[action.target] = None, action.actor
            text = f"{actor} took {inline(target)} in {where}."
        elif verb == "give" and is_object:
            recipient = action.to if action.to in witnesses else None
            if holders.get(action.target) != action.actor or recipient is None or recipient == action.actor:
                self.refuse(action.actor, f"cannot give {target}")
                return
            holders[action.target] = recipient
            text = f"{actor} gave {inline(target)} to {self.world.name_of(recipient)}."
        elif verb == "read" and is_object:
            reachable = holders.get(action.target) == action.actor or places.get(action.target) == place
            carried = self.world.objects[action.target].carries
            if not reachable or not carried:
                self.refuse(action.actor, f"there is nothing to read in {target}")
                return
            text = f"{actor} read {inline(target)} in {where}."
            event = self.event(action.actor, "act", text, place, witnesses, target=action.target, fallback=fallback,
                               verb="read")
            self.deposit_all(event, (text,), kind="event")
            # Every reader of one carrier shares one record of its content.
            self.deposit_all(event, (carried,), kind="claim", event_id=ids.carrier(action.target).text, via="read",
                             source=action.target, owners=(action.actor,))
            self.results[action.actor] = f"it says: {carried}"
            return
        elif verb == "lead":
            self.lead(action, fallback)
            return
        else:
            if action.target in self.world.agents and action.target not in witnesses:
                self.refuse(action.actor, f"{target} is not here")
                return
            person = action.target in self.world.agents
            text = f"{deed(actor, verb, target, person=person)} in {where}{verbs.detail(verb, action.text)}"
        event = self.event(action.actor, "act", text, place, witnesses, target=action.target, fallback=fallback,
                           verb=verb, to=action.to if verb == "give" else None, detail=action.text)
        self.deposit_all(event, (text,), kind="event")
        self.results[action.actor] = "done"

    def lead(self, action: ActOn, fallback: bool) -> None:
        """Go to a neighbouring place and take someone along: they come unless they are going elsewhere."""
        origin = self.state.positions[action.actor]
        if action.place not in self.world.places[origin].exits:
            self.refuse(action.actor, f"cannot lead {self.world.name_of(action.target)} there")
            return
        if action.target not in self.present(origin):
            # the one to be led went first (to the same place, or elsewhere): the leader still goes
            self.move(Move(actor=action.actor, to=action.place), fallback=fallback)
            return
        own = self.actions.get(action.target)
        heading = own.to if isinstance(own, Move) else (own.place if isinstance(own, ActOn) and own.verb == "lead" else None)
        # someone busy with a deed of their own, or talking to another, stays; the idle and the willing come
        busy = isinstance(own, ActOn) and own.verb != "lead" or (isinstance(own, Say) and own.to != action.actor)
        goes_elsewhere = (heading is not None and heading != action.place) or (heading is None and busy)
        if action.text:
            self.say(Say(actor=action.actor, text=action.text, to=action.target, act="lead"), fallback=fallback)
        self.move(Move(actor=action.actor, to=action.place), fallback=fallback)
        if goes_elsewhere or heading == action.place:  # going their own way, or coming anyway by themselves
            if goes_elsewhere:
                self.results[action.actor] = f"{self.world.name_of(action.target)} did not come"
            return
        self.move(Move(actor=action.target, to=action.place), led_by=action.actor)
        self.results[action.target] = f"went with {self.world.name_of(action.actor)} to {self.world.name_of(action.place)}"
        self.results[action.actor] = f"brought {self.world.name_of(action.target)} to {self.world.name_of(action.place)}"

    def refuse(self, actor: str, why: str) -> None:
        """The action could not be carried out: say why, and count it."""
        self.results[actor] = why
        self.refused.append(actor)

    def expose(self, action: ActOn, place: str, witnesses: tuple[str, ...], fallback: bool) -> None:
        """Expose a forged carrier or a liar: what was taken from them is retracted (kept, flagged)."""
        actor, target = self.world.name_of(action.actor), self.world.name_of(action.target)
        if action.target in self.world.objects and self.world.objects[action.target].forged:
            exposed = [ids.carrier(action.target).text]
            text = f"{actor} exposed {target} as a forgery in {inline(self.world.name_of(place))}."
        else:
            exposed = [claim for claim, liar in self.state.lies.items() if liar == action.target]
            text = f"{actor} exposed the lies of {target} in {inline(self.world.name_of(place))}." if exposed else (
                f"{actor} accused {target} in {inline(self.world.name_of(place))}{': ' + action.text if action.text else '.'}")
        for claim in exposed:
            self.state.lies.pop(claim, None)
            self.retractions.append((claim, action.actor))
        event = self.event(action.actor, "act", text, place, witnesses, target=action.target, fallback=fallback)
        self.deposit_all(event, (text,), kind="event")
        self.results[action.actor] = f"exposed {len(exposed)} falsehood(s)" if exposed else "nothing false to expose"

    def apply(self, action: Action, fallback: bool) -> None:
        match action:
            case Say():
                self.say(action, fallback=fallback)
            case Move():
                self.move(action, fallback=fallback)
            case Observe():
                self.observe(action, fallback=fallback)
            case ReadThread():
                self.read_thread(action, fallback=fallback)
            case ActOn():
                self.act_on(action, fallback=fallback)
            case Wait():
                place = self.state.positions[action.actor]
                self.event(action.actor, "wait", f"{self.world.name_of(action.actor)} waited.", place, (action.actor,),
                           fallback=fallback)
                self.results[action.actor] = "time passed"


def resolve_round(
    world: World,
    state: WorldState,
    actions: dict[str, Action],
    rng: random.Random,
    *,
    based_on: dict[str, tuple[int, ...]] | None = None,
    fallbacks: frozenset[str] = frozenset(),
    companions: dict[str, tuple[str, ...]] | None = None,
) -> RoundOutcome:
    """Resolve every action in a seeded order (moves, then looks around, last); mutates state.

    `companions`: mover -> who goes along with them when not busy (the people of the mover's beat).
    """
    order = sorted(actions)
    rng.shuffle(order)
    # Moves resolve after everything else: whoever was in the room when the round began hears what
    # was said there, which is what a player expects from a simultaneous round. Looking around comes
    # last of all, so it sees everyone who arrived this round.
    order.sort(key=lambda actor: _phase(actions[actor]))
    resolver = _Resolver(world, state, based_on or {}, actions, companions)
    for actor in order:
        if world.agents[actor].status != "active":
            continue
        resolver.apply(actions[actor], actor in fallbacks)
        state.actions.append(actions[actor])
    for agent, seen in resolver.arrived.items():  # who is there to meet them, once everyone has walked
        if resolver.results.get(agent) == seen:
            resolver.results[agent] = resolver.arrival(agent)
    state.events.extend(resolver.events)
    outcome = RoundOutcome(
        round=state.round,
        events=tuple(resolver.events),
        deposits=tuple(resolver.deposits),
        results={a: resolver.results.get(a, "") for a in order},
        order=tuple(order),
        retractions=tuple(resolver.retractions),
        refused=tuple(resolver.refused),
    )
    state.invalid += len(resolver.refused)
    state.round += 1
    return outcome


def resolve_replies(world: World, state: WorldState, outcome: RoundOutcome, answers: dict[str, Action]) -> RoundOutcome:
    """Resolve the answers given within a round just resolved (after its lines were heard): the same round
    number, their events after the round's own, words before walking (an answer may be to lead the one who
    spoke); mutates state like resolve_round."""
    if not answers:
        return outcome
    after = state.round
    state.round = outcome.round
    resolver = _Resolver(world, state, {})
    resolver.offset = len(outcome.events)
    try:
        for actor in sorted(answers, key=lambda a: (_phase(answers[a]), a)):
            if world.agents[actor].status == "active":
                resolver.apply(answers[actor], False)
                state.actions.append(answers[actor])
    finally:
        state.round = after
    state.events.extend(resolver.events)
    results = dict(outcome.results)
    for actor, result in resolver.results.items():
        results[actor] = f"{results[actor]}; {result}" if results.get(actor) else result
    return msgspec.structs.replace(outcome, events=(*outcome.events, *resolver.events),
                                   deposits=(*outcome.deposits, *resolver.deposits), results=results,
                                   order=(*outcome.order, *(a for a in sorted(answers) if a not in outcome.order)))


def narrate(world: World, state: WorldState, outcome: RoundOutcome, narrations: list[Narration] | tuple[Narration, ...]
            ) -> RoundOutcome:
    """Add what the story tells this round (after resolve_round) as narration events and their deposits."""
    if not narrations:
        return outcome
    events: list[SimEvent] = []
    deposits: list[Deposit] = []
    via: Via
    canon = {e.id: i for i, e in enumerate(world.events)}
    told = _told_upto(state, canon)
    declined: list[str] = []
    for item in sorted(narrations, key=lambda n: canon.get(n.beat or "", -1)):
        index = len(outcome.events) + len(events)
        if item.hearers is None:
            witnesses = present_at(world, state, item.place)
            text = seen_text(world, item, witnesses, told, canon)
            if text is None or not witnesses:
                # it cannot be seen as the canon tells it: not narrated, and nobody comes to hold it
                declined.extend([item.beat] if item.beat else [])
                continue
            where, word_from, via = item.place, None, "witnessed"
            if item.beat in canon:
                told[item.place] = max(told.get(item.place, -1), canon[item.beat])
        else:
            witnesses = tuple(h for h in item.hearers if h in state.positions)
            where = state.positions[witnesses[0]] if witnesses else item.place
            text = f"Word comes from {inline(world.name_of(item.place))}: {item.text}"
            word_from, via = item.place, "told"
        if not witnesses:
            continue
        event = SimEvent(id=ids.event_id(outcome.round, index), round=outcome.round, place=where, actor="",
                         kind="narration", text=text, witnesses=witnesses, beat=item.beat, word_from=word_from)
        events.append(event)
        for owner in witnesses:
            deposits.append(Deposit(owner=owner, statements=item.statements or (item.text,), round=outcome.round,
                                    event_id=item.key, via=via, place=state.positions.get(owner, where),
                                    kind=item.kind, group=event.id, actors=item.actors))
    state.events.extend(events)
    return msgspec.structs.replace(outcome, events=(*outcome.events, *events),
                                   deposits=(*outcome.deposits, *deposits),
                                   declined=(*outcome.declined, *declined))


def _told_upto(state: WorldState, canon: dict[str, int]) -> dict[str, int]:
    """Per place, the latest canon beat (by story order) already narrated there as seen."""
    upto: dict[str, int] = {}
    for event in state.events:
        if event.kind == "narration" and event.beat in canon and not event.word_from:
            upto[event.place] = max(upto.get(event.place, -1), canon[event.beat])
    return upto


def seen_text(world: World, item: Narration, present: tuple[str, ...], told: dict[str, int],
              order: dict[str, int]) -> str | None:
    """What those present see of a canon beat, never contradicting who is there or what was told before it.

    The canon's own words when its whole cast is present (and, for a beat its actors had to themselves,
    nobody else); else a line built from its fields naming only people present; None when it cannot be
    seen here (an actor is elsewhere, or a later beat of this place was told already: no effect before
    its cause).
    """
    beat = world.events_by_id.get(item.beat or "")
    if beat is None:
        return item.text
    if told.get(item.place, -1) > order[beat.id]:
        return None
    here = set(present)
    actors = [a for a in beat.actors if a in world.agents]
    if not all(a in here for a in actors):
        return None
    cast = {a for a in (*beat.actors, *beat.witness_ids()) if a in world.agents}
    private = beat.witnesses is not None and cast <= set(actors)  # the author said nobody else saw it
    if cast <= here and not (private and here - cast):
        return item.text
    if beat.kind != "say" or not actors:
        return None  # only a spoken beat can be told from its fields alone
    who = _names(world, actors)
    if private:
        return f"{who} {'think' if len(actors) > 1 else 'thinks'} aloud."
    others = [a for a in sorted(cast - set(actors)) if a in here]
    return f"{who} {'speak' if len(actors) > 1 else 'speaks'}{' to ' + _names(world, others) if others else ''}."


def _names(world: World, agents: list[str]) -> str:
    names = [world.name_of(a) for a in agents]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _phase(action: Action) -> int:
    """When an action resolves in the round: deeds and words, then walking, then looking around."""
    if isinstance(action, Move) or (isinstance(action, ActOn) and action.verb == "lead"):
        return 1
    return 2 if isinstance(action, Observe) else 0
