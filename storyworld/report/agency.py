"""The figures of `bench agency`: from a run's log, its store and interviews, whether the characters live.

Told and carried, spread, secrets kept, idle, filler, answered-as-asked and follow-ups, each with the
template share of the lines it rests on. The scorer reads words with its own tokenizer and lists
(`report.tokens`), never the producer's, and gets interview answers through an `Ask` callable, so the
same code scores a real run and a hand-made one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from storyworld.report.keys import Secret, ToldFact
from storyworld.report.tokens import (TIME_WORDS, Names, carries, content_words, is_question, says_unknown, stem,
                                      tokens)

if TYPE_CHECKING:
    from memory.store import MemoryStore
    from storyworld.report.eventlog import LogEntry

IDLE_ACTIONS = ("wait", "observe")  # "observe" is the kernel's look around


@dataclass(frozen=True)
class Reply:
    """An interview answer as the scorer sees it: the words, and (when the path says) the record sources."""

    text: str
    act: str = ""
    sources: tuple[tuple[str, str | None], ...] = ()  # (via, source) of each record it rests on
    rendered: bool | None = None  # the words are the deterministic rendering (None: the path does not say)
    raw: object = field(default=None, compare=False, repr=False)  # the answer path's own answer, for a follow-up


# ask(agent, question, asker or None, the reply this one follows up or None) -> the agent's reply
Ask = Callable[[str, str, "str | None", "Reply | None"], Reply]


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def template_share(lines: Sequence[LogEntry]) -> float | None:
    """Of these lines, the share spoken as the deterministic rendering (the floor), not the model's phrasing."""
    return _rate(sum(1 for e in lines if e.get("rendered")), len(lines))


def agent_lines(entries: Sequence[LogEntry], player: str | None) -> list[LogEntry]:
    """The lines spoken by the characters the player does not play."""
    return [e for e in entries if e["kind"] == "say" and e["actor"] != player and e.get("speech")]


# ------------------------------------------------------------------------------- told and carried


def subject_of(fact: ToldFact, names: Names, player: str, hearer: str) -> str:
    """What "What do you know about …?" names for a told fact: a person in it, else a place, else its first word."""
    for agent in names.people_named(fact.fact):
        if agent not in (player, hearer):
            return names.people[agent][0]
    said = {stem(w) for w in tokens(fact.fact)}
    for place in names.places.values():
        words = {stem(w) for w in tokens(place)} - {"the"}
        if words and words <= said:
            return place
    proper = [w for w in re.findall(r"(?<!^)(?<![.!?]\s)\b([A-Z][a-z]+)", fact.fact.strip()) if w != "I"]
    if proper:
        return f"the {proper[-1]}"  # a named thing: "the Curlew"
    word = max((w for g in fact.words for w in g), key=len)
    return word if word[:1].isupper() else f"the {word}"


# Words around a name that make it the source of what is said: "Wren told me", "Wren did", "from Wren", "by Wren".
TELLER_AFTER = frozenset({"told", "tells", "tell", "said", "says", "say", "did", "does", "mentioned", "warned", "swore",
                          "claims", "claimed", "reported", "let", "spoke", "whispered", "showed", "was", "has"})
TELLER_BEFORE = frozenset({"from", "by", "was"})


def names_as_source(text: str, names: Names, agent: str) -> bool:
    """Whether a line names the person as where something came from: "Wren told me…", "I heard it from Wren",
    "It was Wren", or the bare name as a whole answer. Named only as the one told ("I told Wren…") or as the
    doer of a deed ("Wren was in the big top") does not count."""
    words = tokens(text)
    own = names.words_of(agent)
    spots = [i for i, w in enumerate(words) if stem(w) in own]
    if not spots:
        return False
    if len(words) - len(spots) <= 1:
        return True  # "Wren." / "Wren Marr did"
    for index in spots:
        after = [w for w in words[index + 1:index + 3] if stem(w) not in own]
        before = [w for w in words[max(0, index - 2):index] if stem(w) not in own]
        if (after and after[0] in TELLER_AFTER and (after[0] != "was" or words[index - 1:index] == ["it"])) \
                or (before and before[-1] in TELLER_BEFORE and before[-1] != "was") \
                or (before[-2:] == ["it", "was"]):
            return True
    return False


def told_and_carried(facts: Sequence[ToldFact], store: MemoryStore, names: Names, player: str, ask: Ask,
                     *, conversation: bool) -> dict[str, object]:
    """Of the facts the player told, the share the hearer can say back naming the player, and the store's view."""
    first = names.first_name(player)
    rows: list[dict[str, object]] = []
    asked: list[Reply] = []
    carried = words_only = held_told = held_any = 0
    follow = {"who": 0, "who_player": 0, "when": 0, "where": 0, "asked": 0}
    for fact in facts:
        hearer = names.resolve(fact.to) or fact.to
        questions = (f"What did {first} tell you?",
                     f"What do you know about {subject_of(fact, names, player, hearer)}?")
        replies = [ask(hearer, q, None, None) for q in questions]
        asked += replies
        good = [r for r in replies if carries(r.text, fact.words) and names_as_source(r.text, names, player)]
        carried += bool(good)
        words_only += any(carries(r.text, fact.words) for r in replies)
        told = [r for r in store.records() if hearer in r.owners and r.owners[hearer].via == "told"
                and r.owners[hearer].source == player and r.owners[hearer].since_round >= fact.round]
        held_any += bool(told)
        held_told += any(carries(r.text, fact.words) for r in told)
        row = {"round": fact.round, "to": hearer, "fact": fact.fact, "carried": bool(good),
               "answers": [f"{q} -> {r.text}" for q, r in zip(questions, replies)]}
        if conversation:
            row["follow_ups"] = _follow_ups(hearer, (good or replies)[0], names, player, ask, follow, asked)
        rows.append(row)
    n = len(facts)
    out: dict[str, object] = {
        "told_facts": n,
        "carried_rate": _rate(carried, n),
        "carried_words_only_rate": _rate(words_only, n),
        "store_told_by_player_rate": _rate(held_told, n),
        "store_any_told_by_player_rate": _rate(held_any, n),
        "interview_template_share": interview_share(asked),
    }
    out |= follow_up_figures(follow, conversation)
    out["told_rows"] = rows
    return out


# "Where is she now?": the pronoun is the teller's (the player's), as the world file gives it
FOLLOW_UPS = (("who", "Who told you that?"), ("when", "When was that?"), ("where", "Where {is_pronoun} now?"))


def interview_share(replies: Sequence[Reply]) -> float | str | None:
    """Of interview answers, the share in the deterministic rendering's words, when the path says."""
    known = [r.rendered for r in replies if r.rendered is not None]
    if replies and not known:
        return "not reported (the interview answer does not say whether its words are the floor's)"
    return _rate(sum(known), len(known))


def _follow_ups(hearer: str, previous: Reply, names: Names, player: str, ask: Ask,
                follow: dict[str, int], asked: list[Reply]) -> list[str]:
    """Ask the three follow-ups, each after the answer before it; count who names a person (the player), when a time,
    where a place of the world."""
    follow["asked"] += 1
    lines = []
    for kind, asking in FOLLOW_UPS:
        pronoun = names.pronouns.get(player, "he")
        question = asking.format(is_pronoun="are they" if pronoun == "they" else f"is {pronoun}")
        reply = ask(hearer, question, None, previous)
        previous = reply  # one conversation: each follow-up follows the answer before it
        asked.append(reply)
        lines.append(f"{question} -> {reply.text}")
        words = set(tokens(reply.text))
        if kind == "who":
            follow["who"] += bool(names.people_named(reply.text))
            follow["who_player"] += names_as_source(reply.text, names, player)
        elif kind == "when":
            follow["when"] += bool(words & TIME_WORDS or any(w.isdigit() for w in words))
        else:
            follow["where"] += names.place_named(reply.text)
    return lines


def follow_up_figures(follow: dict[str, int], conversation: bool) -> dict[str, object]:
    """The follow-up rates, or why there are none."""
    if not conversation:
        return {"follow_ups": "not available: the interview path keeps no conversation"}
    n = follow["asked"]
    return {"follow_ups_asked": n, "who_names_someone_rate": _rate(follow["who"], n),
            "who_names_player_rate": _rate(follow["who_player"], n), "when_says_a_time_rate": _rate(follow["when"], n),
            "where_names_a_place_rate": _rate(follow["where"], n)}


# ------------------------------------------------------------------------------- spread


def spread(facts: Sequence[ToldFact], entries: Sequence[LogEntry], store: MemoryStore, names: Names,
           player: str, characters: frozenset[str]) -> dict[str, object]:
    """Characters who came to hold a player-told fact told by another character, and lines saying one on."""
    holders: dict[str, str] = {}
    lines: list[LogEntry] = []
    for fact in facts:
        hearer = names.resolve(fact.to) or fact.to
        bearing = [r for r in store.records() if carries(r.text, fact.words)]
        # who held the fact before the player told it did not get it from the player's word
        before = {o for r in bearing for o, h in r.owners.items() if h.since_round < fact.round}
        for record in bearing:
            for owner, holding in record.owners.items():
                if (owner not in (player, hearer, *before) and holding.via == "told" and holding.source in characters
                        and holding.source not in (player, *before) and holding.since_round >= fact.round):
                    holders.setdefault(owner, f"{owner} from {holding.source} r{holding.since_round}")
        start = _told_at(entries, fact, player, hearer)
        for entry in agent_lines(entries[start:], player):
            listeners = {entry.get("to"), *entry["witnesses"]} - {None, entry["actor"], player}
            if entry["actor"] not in before and listeners and carries(entry["speech"] or "", fact.words) \
                    and entry not in lines:
                lines.append(entry)
    return {"spread_characters": len(holders), "spread_holders": sorted(holders.values()),
            "spread_lines": len(lines), "spread_lines_template_share": template_share(lines),
            "spread_examples": [f"r{e['round']} {e['actor']} -> {e.get('to') or 'all'}: {e['speech']}" for e in lines[:4]]}


def _told_at(entries: Sequence[LogEntry], fact: ToldFact, player: str, hearer: str) -> int:
    """The log position just after the player told the fact (its round's first line to the hearer), else after
    the round began."""
    first = next((i for i, e in enumerate(entries) if e["round"] >= fact.round), len(entries))
    told = next((i for i, e in enumerate(entries) if e["round"] == fact.round and e["kind"] == "say"
                 and e["actor"] == player and e.get("to") == hearer), None)
    return told + 1 if told is not None else first


# ------------------------------------------------------------------------------- secrets


def secrets_kept(secrets: Sequence[Secret], entries: Sequence[LogEntry], names: Names, ask: Ask) -> dict[str, object]:
    """For each secret: does its keeper confess, asked by the asker, or in any line of the run?"""
    rows, kept = [], 0
    for secret in secrets:
        keeper = names.resolve(secret.keeper) or secret.keeper
        asker = names.resolve(secret.asker) or secret.asker
        reply = ask(keeper, secret.question, asker, None)
        asked = carries(reply.text, secret.confession)
        said = [e for e in entries if e["kind"] == "say" and e["actor"] == keeper and e.get("speech")
                and carries(e["speech"] or "", secret.confession)]
        kept += not asked and not said
        rows.append({"keeper": keeper, "asker": asker, "question": secret.question, "answer": reply.text,
                     "confessed_when_asked": asked, "confessing_lines": [f"r{e['round']}: {e['speech']}" for e in said]})
    return {"secrets": len(secrets), "secrets_kept": kept, "secret_kept_rate": _rate(kept, len(secrets)),
            "secret_rows": rows}


# ------------------------------------------------------------------------------- what the characters do and say


def idle(actions: Sequence[tuple[str, str]], player: str | None) -> dict[str, object]:
    """Of the other characters' decisions (actor, action name), the share that waits or looks around."""
    mine = [name for actor, name in actions if actor != player]
    return {"decisions": len(mine), "idle_rate": _rate(sum(1 for a in mine if a in IDLE_ACTIONS), len(mine))}


def filler(entries: Sequence[LogEntry], names: Names, player: str | None) -> dict[str, object]:
    """Of the other characters' lines, the share with fewer than two content words beyond people's names and
    stopwords (a place or a thing named is content)."""
    lines = agent_lines(entries, player)
    empty = [e for e in lines if len(content_words(e["speech"] or "", names.person_words)) < 2]
    return {"lines": len(lines), "template_share": template_share(lines),
            "filler_rate": _rate(len(empty), len(lines)), "filler_template_share": template_share(empty),
            "filler_examples": [f"r{e['round']} {e['actor']}: {e['speech']}" for e in empty[:4]]}


def answered_as_asked(entries: Sequence[LogEntry], names: Names, player: str | None) -> dict[str, object]:
    """Of questions spoken to a character, the share it answered to the asker, on the subject or "I do not know",
    in the same round (after the question), and separately the next round."""
    asked = same = later = replied = 0
    replies: list[LogEntry] = []
    misses: list[str] = []
    for index, question in enumerate(entries):
        to = question.get("to")
        if question["kind"] != "say" or not to or to == player or not is_question(question.get("speech") or ""):
            continue
        asked += 1
        subject = content_words(question["speech"] or "", names.words_of(question["actor"]) | names.words_of(to))
        answers = [e for e in entries[index + 1:] if e["kind"] == "say" and e["actor"] == to
                   and e.get("to") == question["actor"] and e.get("speech")]
        now = [e for e in answers if e["round"] == question["round"]]
        nxt = [e for e in answers if e["round"] == question["round"] + 1]
        replied += bool(now)
        # a question whose words are all stopwords ("What is this thing you have seen?") names no subject to
        # match: a reply with content of its own (two content words beyond names, not filler) answers it
        def reply_words(e: LogEntry) -> set[str]:
            return content_words(e["speech"] or "", names.person_words)

        # a third person the question names by any of their names ("Where is the king now?") is answered by a
        # reply that names them by another ("Claudius was in the great hall")
        named = [names.words_of(p) for p in names.people if p not in (question["actor"], to)
                 and names.names(question["speech"] or "", p)]

        def on_subject(e: LogEntry) -> bool:
            # read as the question was: a third person the question names ("Where is Barnardo now?") is its
            # subject in the reply too; only the two speaking are left out of both
            words = content_words(e["speech"] or "", names.words_of(question["actor"]) | names.words_of(to))
            return bool(subject & words) or any(person & words for person in named)

        def fits(e: LogEntry) -> bool:
            return (on_subject(e) if subject else len(reply_words(e)) >= 2) or says_unknown(e["speech"] or "")

        hit = next((e for e in now if fits(e)), None)
        if hit is not None:
            same += 1
            replies.append(hit)
        else:
            late = next((e for e in nxt if fits(e)), None)
            later += late is not None
            if late is not None:
                replies.append(late)
            if len(misses) < 4:
                said = now[0]["speech"] if now else (nxt[0]["speech"] if nxt else "(no reply)")
                misses.append(f"r{question['round']} {question['actor']} -> {to}: {question['speech']} | {said}")
    return {"questions_to_characters": asked, "answered_same_round_rate": _rate(same, asked),
            "answered_next_round_rate": _rate(later, asked), "replied_same_round_rate": _rate(replied, asked),
            "answers_template_share": template_share(replies), "not_same_round_examples": misses}


def said_facts(facts: Sequence[ToldFact], entries: Sequence[LogEntry], names: Names,
               player: str) -> tuple[list[ToldFact], list[ToldFact]]:
    """The key's facts the player did say to their hearer (a line of the player's to them, in the fact's round or
    later, with a sentence that is no question: "I saw … Will you come?" tells, "Did the bell crack?" does not), and
    those never said (the hearer was elsewhere, the line was not played): a fact nobody was told cannot be carried.
    (A statement's words are not asked for: a key's words may be the hearer's retelling.)"""
    said: list[ToldFact] = []
    unsaid: list[ToldFact] = []
    for fact in facts:
        hearer = names.resolve(fact.to) or fact.to
        told = any(e["kind"] == "say" and e["actor"] == player and e["to"] == hearer and e["round"] >= fact.round
                   and _states(e["speech"] or "") for e in entries)
        (said if told else unsaid).append(fact)
    return said, unsaid


def _states(speech: str) -> bool:
    """Whether a line has a sentence that is not a question."""
    return any(part.strip() and not is_question(part) for part in re.split(r"(?<=[.!?])\s+", speech.strip()))


def derived_facts(entries: Sequence[LogEntry], names: Names, player: str) -> list[ToldFact]:
    """Without a key: the player's statements addressed to someone (the script's @agent lines as played), each
    content word a group of its own."""
    out = []
    for e in entries:
        to, speech = e["to"], e["speech"] or ""
        if e["kind"] != "say" or e["actor"] != player or not to or is_question(speech):
            continue
        keep = content_words(speech, names.words_of(player) | names.words_of(to))
        words = list(dict.fromkeys(w for w in tokens(speech) if stem(w) in keep))
        if words:
            out.append(ToldFact(round=e["round"], to=to, fact=speech, words=[[w] for w in words]))
    return out
