"""The agenda: what a character does next for its goals when nobody spoke to it and the canon asks nothing.

Read against what it holds and who is here (DESIGN §4.2b): what it was bidden to tell someone here, to them, and
where it was bidden to go, there; news it was told lately goes on to someone
here who lacks it and cares (whom it bears on most, by their goals, then one with a goal to find something out;
never back to whoever told it, nor to the one it says did it); a goal to find something out is asked of someone
here it has not asked yet, in the goal's own words; a goal to tell goes to whoever here lacks what bears on it;
what it holds that bears on its goals and the moment goes to whoever here lacks it (one round in two); with news
that nobody here lacks (not of its own doing), one messenger at a time heads for where one who lacks it was last
known to be (else where voices are heard), and with its piece said there goes back to the larger gathering it
left; alone with no post to guard, it seeks company where voices are heard. It waits only when nothing can move.
"""

from __future__ import annotations

import msgspec

from storyworld.kernel.actions import Move, Say
from storyworld.minds.choice import Plan
from storyworld.minds.content import (NEWS_STEP, TELL_MIN, Known, Knowledge, _tellable, about_whom, answered, care_of,
                                      keys, news_first, replies)
from storyworld.minds.context import DecisionContext
from storyworld.minds.direction import shortest_path
from storyworld.world import World

SEEK_EVERY = 3  # a character seeks company at most once in this many rounds (it does not pace between rooms)


def next_step(world: World, context: DecisionContext) -> Plan | None:
    """The agenda's next step for this character now, or None when nothing on it can move."""
    p = context.perception
    knowledge = context.knowledge
    present = [a for a in p.present if a != context.agent]
    news = fresh_news(knowledge)
    listener: str | None  # whom a line goes to (None: nobody here it fits)
    owes = context.agent in _busy(context, asked_only=True)  # a question put to it holds it here
    for listener, where, known in knowledge.bidden:
        # bidden to tell someone something (it agreed when the bidding was put): told them here, else it goes to
        # where they were last known to be
        if listener in present:
            if listener not in _busy(context):
                return Plan(action=Say(actor=context.agent, text="", to=listener), purpose="tell",
                            record=known.record_id)
            continue
        way = shortest_path(world, p.place, where) if where != p.place else None
        if way and not owes:
            return Plan(action=Move(actor=context.agent, to=way[0]), purpose="carry")
    going = knowledge.going
    if going and going != p.place and going in world.places and not owes:
        # bidden to come or go somewhere (and it agreed): it goes, its bidder's company before its own errands
        way = shortest_path(world, p.place, going)
        if way:
            return Plan(action=Move(actor=context.agent, to=way[0]), purpose="seek")
    telling = tell_news(world, context)
    if telling is not None:
        return telling
    for index, question in enumerate(knowledge.questions):
        # of someone here it has not asked yet and whom it is not about (who may know: one with news first);
        # asked of all, it moves on
        about = _not_asked_of(knowledge, index)
        unasked = [a for a in present if a not in about and not _asked(context, question, a)]
        if unasked:
            listener = sorted(unasked, key=lambda a: a not in knowledge.seekers)[0]
            return Plan(action=Say(actor=context.agent, text="", to=listener), purpose="seek", question=question)
    if present and not _spoke_lately(context):
        # what it holds that bears on its goals and this moment, to someone here who lacks it (one in two rounds:
        # a character with something to say says it, and does not hold forth every round)
        for known in knowledge.moment:
            if known.score < TELL_MIN:
                break
            listener = next((a for a in sorted(present, key=lambda a: a not in knowledge.seekers)
                             if a not in known.actors and _tellable(known, a, knowledge)), None)
            if listener is not None:
                return Plan(action=Say(actor=context.agent, text="", to=listener), purpose="chat")
    back = context.came_from
    if back and back in p.voices and not knowledge.stays and context.agent not in _busy(context, asked_only=True):
        # its piece said where it went, it goes back to the gathering it left (the talk goes on there); a question
        # put to it holds it, a remark does not
        return Plan(action=Move(actor=context.agent, to=back), purpose="seek")
    if _moved_lately(context):
        return None
    here = p.place
    # news nobody here lacks goes toward where one who lacks it was last known to be, by one messenger at a time
    # (none goes while another who went from here is still away; of those here who heard it, one, by a turn that
    # moves with the round: a room does not empty the moment something is said in it); never news of its own
    # doing (nobody carries a charge against themself about the place)
    carried = {k.record_id for k in news if context.agent not in k.actors and _carries(world, context, k)} \
        if not context.left_lately else set()
    for place, record_id in knowledge.lacking_at:
        way = shortest_path(world, here, place) if record_id in carried else None
        if way:
            return Plan(action=Move(actor=context.agent, to=way[0]), purpose="carry")
    # news just heard that nobody here lacks, its messenger takes where voices are heard; alone (with nothing to
    # guard here), it seeks company there
    fresh = [k for k in news if k.since_round >= p.round - 1 and k.record_id in carried]
    if fresh or not present and not knowledge.stays:
        company = [e for e in world.places[here].exits if e in p.voices]
        if company:
            return Plan(action=Move(actor=context.agent, to=sorted(company)[0]), purpose="seek")
    return None


def _carries(world: World, context: DecisionContext, known: Known) -> bool:
    """Whether this character is the one of those here holding the news who carries it off: one who owes an answer
    stays; of the rest, one goes, by a turn that moves with the round (each decides alone, all alike)."""
    busy = _busy(context)
    if context.agent in busy:
        return False
    index = {a: i for i, a in enumerate(world.agents)}
    # of those deciding this round (one who sits the round out carries nothing off: the turn passes it by)
    deciding = set(context.deciding) or set(known.holders)
    carriers = sorted({h for h in known.holders if h != context.player and h in index and h not in busy
                       and h in deciding} | {context.agent}, key=lambda a: index.get(a, 0))
    return carriers[context.perception.round % len(carriers)] == context.agent


def _busy(context: DecisionContext, *, asked_only: bool = False) -> set[str]:
    """Those spoken to (or asked, with `asked_only`) last round or this one who owe their speaker an answer: not
    answered since, and not itself the reply to a line of theirs (a reply closes the exchange)."""
    talk = context.perception.recent_talk
    return {t.to for i, t in enumerate(talk)
            if t.round >= context.perception.round - 1 and t.to and (t.act == "ask" or not asked_only)
            and not answered(talk, i) and not replies(talk, i)}


def tell_news(world: World, context: DecisionContext) -> Plan | None:
    """News it was told lately, to someone here who lacks it: one with a goal to find something out first; never
    back to whoever told it, nor to one it accuses (its doer)."""
    knowledge = context.knowledge
    present = [a for a in context.perception.present if a != context.agent]
    index = {a: i for i, a in enumerate(world.agents)}
    busy = _busy(context)
    candidates = []
    for order, known in enumerate(fresh_news(knowledge)):
        # whom it concerns most first (the news nearest their goals), then one with a goal to find something out
        listeners = [a for a in sorted(present, key=lambda a: (-int(care_of(knowledge, a, known) / NEWS_STEP),
                                                               a not in knowledge.seekers))
                     if a != known.source and a not in about_whom(world, known.text, known.actors, known.said_by)
                     and _tellable(known, a, knowledge)]
        if listeners:
            candidates.append((-int(care_of(knowledge, listeners[0], known) / NEWS_STEP), order, known, listeners))
    # the news that concerns a listener here most goes first (the teller's own order among the like)
    for _, _, known, listeners in sorted(candidates, key=lambda c: c[:2]):
        # those here who hold the same news decide at once, none hearing the others: each takes the next listener
        # in a turn that rotates with the round, so two who hold it tell two who lack it rather than both the same
        # one (with fewer listeners than tellers some tell one listener alike: leaving it to another who may be
        # kept busy would leave the news untold)
        tellers = sorted({h for h in known.holders if h != context.player and h in index and h not in busy}
                         | {context.agent}, key=lambda a: index.get(a, 0))  # one spoken to last round answers now
        start = context.perception.round % len(tellers)
        turn = (tellers[start:] + tellers[:start]).index(context.agent)
        return Plan(action=Say(actor=context.agent, text="", to=listeners[turn % len(listeners)]), purpose="tell")
    return None


def open_questions(context: DecisionContext, knowledge: Knowledge, listener: str | None) -> Knowledge:
    """Its goal questions fit to put to this listener: not about them, not asked of them lately (a line chosen
    for another purpose may still fall back on asking)."""
    kept = [(q, _not_asked_of(knowledge, i)) for i, q in enumerate(knowledge.questions)]
    kept = [(q, about) for q, about in kept
            if listener is None or (listener not in about and not _asked(context, q, listener))]
    return msgspec.structs.replace(knowledge, questions=tuple(q for q, _ in kept),
                                   asked_about=tuple(about for _, about in kept), withheld=())


def _not_asked_of(knowledge: Knowledge, index: int) -> tuple[str, ...]:
    """Whom a goal question is never put to: the people it asks after, and those it would give a secret away to."""
    about = knowledge.asked_about[index] if index < len(knowledge.asked_about) else ()
    return about + (knowledge.withheld[index] if index < len(knowledge.withheld) else ())


def fresh_news(knowledge: Knowledge) -> list[Known]:
    """What the character was told lately (gathered as `Knowledge.news`): news to pass on, in `news_first` order."""
    return sorted(knowledge.news, key=news_first)


def _asked(context: DecisionContext, question: str, listener: str) -> bool:
    """Whether the character put this question to this listener lately (the questions it put, and its cache)."""
    wanted = keys(question)
    put = [(to, text) for to, text in context.asked]
    put += [(c.done.to, c.done.text) for c in context.shortterm.cache
            if isinstance(c.done, Say) and c.done.act == "ask" and c.done.to]
    for to, text in put:
        if to == listener and (len(wanted & keys(text)) * 2 >= len(wanted) if wanted else text == question):  # the model may phrase it: most words are there
            return True
    return False


def _spoke_lately(context: DecisionContext) -> bool:
    return any(isinstance(c.done, Say) and c.round >= context.perception.round - 1 for c in context.shortterm.cache)


def _moved_lately(context: DecisionContext) -> bool:
    if context.last_moved is not None and context.last_moved >= context.perception.round - SEEK_EVERY:
        return True
    return any(isinstance(c.done, Move) and c.round >= context.perception.round - SEEK_EVERY
               for c in context.shortterm.cache)
