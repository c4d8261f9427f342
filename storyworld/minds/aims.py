"""Aims: what each goal of a character means to do — find out, tell, keep hidden, guard, leave (DESIGN §4.2b).

A goal is an author's sentence ("Make sure nobody learns that she swapped the samples"). Its kind is
read by meaning, not by its words: the goal is embedded beside a few exemplar goals of each kind and
takes the kind it is nearest to, when near enough; the people it names come from the world's names.
The agenda (`agenda.py`) turns aims and holdings into the next step.
"""

from __future__ import annotations

from typing import Literal, Protocol

import re

import msgspec
import numpy as np
from lemminflect import getAllLemmas

from storyworld.minds import lines, render
from storyworld.world import World

AimKind = Literal["learn", "tell", "keep", "guard", "leave", "other"]

# Exemplar goals of each kind, written as authors write goals (general, no world's names): a goal takes the
# kind whose exemplars it is nearest to on average over its best three.
EXEMPLARS: dict[str, tuple[str, ...]] = {
    "keep": (
        "Keep what she did a secret", "Make sure nobody finds out what he did", "Hide the truth about the theft",
        "Cover up her part in the crime", "Keep anyone from learning who did it", "Conceal his guilt",
        "Never let them discover what really happened", "Keep the affair hidden from everyone",
        "Make sure no one learns she was there", "Stop the others from finding the evidence against him",
    ),
    "learn": (
        "Find out who did it", "Learn the truth about what happened", "Discover who stole the money",
        "Uncover what really happened that night", "Find out why he died", "Investigate the crime",
        "Learn where the missing papers went", "Get to the bottom of the mystery", "Find the culprit",
    ),
    "tell": (
        "Tell everyone the truth", "Warn the others of the danger", "Make sure the captain hears what she saw",
        "Let her know what happened", "Spread the news", "Convince them that he is innocent",
        "Report what he saw to the authorities", "Get the word to his friends",
    ),
    "guard": (
        "Protect the family", "Keep the house safe", "Guard the treasure", "Keep the peace",
        "Look after the children", "Defend the town", "Keep watch over the gate",
    ),
    "leave": (
        "Get away from here", "Escape the city", "Leave before they catch her", "Run away", "Flee the country",
    ),
}
# A goal is an imperative: its leading verb says whether it means to find out or to tell, whatever its object
# (a goal to "Learn what is hidden in the store" is about hiding only in its object). Exemplar verbs, compared
# by meaning, so that "Discover", "Uncover" or "Expose" lead as "Learn" does.
LEADING: dict[str, tuple[str, ...]] = {
    "learn": ("learn", "discover", "find", "uncover", "investigate", "prove", "solve", "search", "ask"),
    "tell": ("tell", "warn", "inform", "reveal", "report", "confess", "announce"),
}
# cosine of a goal's first word to an exemplar verb for it to lead as that kind: near-identity only, since single
# words sit close to their opposites in the embedder's space ("hide" is 0.7 from "reveal")
LEADING_NEAR = 0.85
NEAR = 0.3  # mean cosine a goal must reach to its kind's best exemplars to take that kind (else "other")
MARGIN = 0.05  # how far ahead of the next kind it must be (a goal between two kinds is neither)


class Encoder(Protocol):
    """What aims need of an embedder: normalised vectors for texts."""

    def encode(self, texts: list[str]) -> np.ndarray: ...


class Aim(msgspec.Struct, frozen=True, kw_only=True):
    """One goal read for what it means to do, and whom it names."""

    goal: str
    kind: AimKind
    people: tuple[str, ...] = ()  # agent ids the goal names (the one to tell, the one to find out about)
    score: float = 0.0  # how near its kind's exemplars it is


_CACHE: dict[tuple[str, tuple[str, int]], tuple[Aim, ...]] = {}
_EXEMPLAR_VECTORS: dict[tuple[str, int], tuple[list[str], np.ndarray]] = {}


def _key(encoder: Encoder) -> tuple[str, int]:
    """A cache key for an encoder: its id, with its class (an id is reused once an encoder is freed)."""
    return f"{type(encoder).__module__}.{type(encoder).__qualname__}", id(encoder)


def _exemplars(encoder: Encoder) -> tuple[list[str], np.ndarray]:
    found = _EXEMPLAR_VECTORS.get(_key(encoder))
    if found is None:
        kinds = [kind for kind, texts in EXEMPLARS.items() for _ in texts]
        vectors = np.asarray(encoder.encode([t for texts in EXEMPLARS.values() for t in texts]), dtype=np.float32)
        found = (kinds, vectors)
        _EXEMPLAR_VECTORS[_key(encoder)] = found
    return found


def classify(goals: list[str], encoder: Encoder) -> list[tuple[AimKind, float]]:
    """Each goal's kind by meaning, with its score ("other" when no kind is near enough or clearly ahead)."""
    if not goals:
        return []
    kinds, exemplars = _exemplars(encoder)
    # a goal with a clause of its own is also read by its head ("Make sure nobody learns | that Dan sold the rope
    # …": the long deed after "that" outweighs the four words that say what kind of goal it is)
    heads = [re.split(r"\s+that\s+", g, maxsplit=1)[0] for g in goals]
    with_clause = [i for i, (g, h) in enumerate(zip(goals, heads)) if h != g and len(h.split()) >= 2]
    texts = list(goals) + [heads[i] for i in with_clause]
    vectors = np.asarray(encoder.encode(texts), dtype=np.float32)
    if vectors.shape[1] != exemplars.shape[1]:  # another encoder at a reused id: read the exemplars again
        _EXEMPLAR_VECTORS.pop(_key(encoder), None)
        kinds, exemplars = _exemplars(encoder)
    sims = vectors @ exemplars.T
    whole = _kinds_of(sims[: len(goals)], kinds)
    for row, i in zip(_kinds_of(sims[len(goals):], kinds), with_clause):
        if whole[i][0] == "other" and row[0] != "other":
            whole[i] = row
    return whole


def _kinds_of(sims: np.ndarray, kinds: list[str]) -> list[tuple[AimKind, float]]:
    """Each row's kind by its nearest exemplars ("other" when no kind is near enough or clearly ahead)."""
    out: list[tuple[AimKind, float]] = []
    for row in sims:
        by_kind: dict[str, float] = {}
        for kind in EXEMPLARS:
            mine = np.sort(row[[i for i, k in enumerate(kinds) if k == kind]])[::-1][:3]
            by_kind[kind] = float(mine.mean())
        ranked = sorted(by_kind.items(), key=lambda item: -item[1])
        best, score = ranked[0]
        ahead = score - ranked[1][1] if len(ranked) > 1 else score
        out.append((best if score >= NEAR and ahead >= MARGIN else "other", round(score, 4)))  # type: ignore[arg-type]
    return out


_LEADING_VECTORS: dict[tuple[str, int], tuple[list[str], np.ndarray]] = {}


def leading(goals: list[str], encoder: Encoder) -> list[str]:
    """Each goal's leading kind from its first word ("learn", "tell"), or "" when it leads as neither."""
    if not goals:
        return []
    found = _LEADING_VECTORS.get(_key(encoder))
    firsts = [(g.split() or [""])[0].strip(".,;:").lower() for g in goals]
    asked = np.asarray(encoder.encode(firsts), dtype=np.float32)
    if found is not None and found[1].shape[1] != asked.shape[1]:
        found = None  # another encoder at a reused id
    if found is None:
        kinds = [kind for kind, verbs in LEADING.items() for _ in verbs]
        found = (kinds, np.asarray(encoder.encode([v for verbs in LEADING.values() for v in verbs]), dtype=np.float32))
        _LEADING_VECTORS[_key(encoder)] = found
    kinds, vectors = found
    sims = asked @ vectors.T
    return [kinds[int(row.argmax())] if float(row.max()) >= LEADING_NEAR else "" for row in sims]


def aims_of(world: World, agent: str, encoder: Encoder) -> tuple[Aim, ...]:
    """The agent's goals as aims (cached per world and encoder)."""
    key = (f"{world.digest}:{agent}", _key(encoder))
    found = _CACHE.get(key)
    if found is None:
        goals = list(world.agents[agent].goals) if agent in world.agents else []
        found = tuple(
            Aim(goal=goal, kind=lead or kind, score=score,  # type: ignore[arg-type]
                people=tuple(a for a in render.names_in(world, goal) if a != agent))
            for goal, (kind, score), lead in zip(goals, classify(goals, encoder), leading(goals, encoder)))
        _CACHE[key] = found
    return found


# Where a goal to find out opens its question: "Find out who took the ledger" -> "who took the ledger".
_OPENING = re.compile(r"\b(?:who|whom|whose|what|where|when|why|how|which|whether|if)\b.*", re.IGNORECASE)


_OWN = {"he": "I", "she": "I", "him": "me", "his": "my", "himself": "myself", "herself": "myself"}


def _own_words(body: str, pronouns: str, others_named: bool) -> str:
    """A goal's words with its owner's third person as the first ("his word" -> "my word"), unless it names someone
    else its "he" may mean."""
    if others_named:
        return body
    own = {w: v for w, v in _OWN.items() if pronouns == "they" or (w in ("he", "him", "his", "himself")) == (
        pronouns == "he")}
    if pronouns in ("she", "they"):
        own["her"] = "my"

    def mine(found: re.Match[str]) -> str:
        word = found.group(1)
        # "her" before a thing is "my" ("her father"); where a phrase ends, or before a particle or a preposition
        # ("brought her down", "for her"), it is "me"
        after = re.match(r"\s+([a-z']+)", body[found.end():])
        if word == "her" and (after is None or after.group(1) in _NOT_OWNED):
            return "me"
        return own[word]

    return re.sub(r"\b(" + "|".join(own) + r")\b", mine, body) if own else body


# what follows an object "her", never a thing of hers: particles, prepositions, conjunctions, articles
_NOT_OWNED = frozenset("""down up out off away back over in on into onto to for from with by at about again and or but
    that the a an as than""".split())


def intent_of(goal: str, pronouns: str = "they", other_at: int | None = None) -> str:
    """A goal said by its owner when asked what it means to do: "Serve his elder brother Liu Bei" -> "I mean to serve
    my elder brother Liu Bei."; "" for an empty goal. `other_at`: where the goal first names someone else; a "his"
    after it may be theirs and stays ("Tell Hamlet the truth about his murder")."""
    body = goal.strip().rstrip(".!;")
    if not body:
        return ""
    cut = len(body) if other_at is None else min(other_at, len(body))
    body = _own_words(body[:cut], pronouns, False) + body[cut:]
    first = body.split()[0]
    if first.isalpha() and first[1:].islower():  # a goal is an imperative: its verb opens it
        body = first.lower() + body[len(first):]
    return f"I mean to {body}."


def question_of(goal: str, pronouns: str = "they", others_named: bool = False) -> str:
    """A goal to find something out put as a question to someone: "Find out who took the ledger" -> "Do you know
    who took the ledger?"; "" when the goal names nothing to ask ("Learn the truth"). A goal says its owner in
    the third person ("why the sacks he carted felt light"): asked aloud, that is "I" — unless the goal names
    someone else, whom its "he" may mean."""
    opening = _OPENING.search(goal)
    if opening is None:
        return ""
    body = _own_words(_what_to_learn(opening.group(0).strip().rstrip(".")), pronouns, others_named)
    if len(lines.words(body)) < 3:
        return ""
    return f"Do you know {body}?"


def _what_to_learn(body: str) -> str:
    """A goal's matter to find out, without what it means to do once it knows: "who lost the second press and see
    them answer for it" -> "who lost the second press" (a bare verb after "and" bids; "and hid it" tells)."""
    for joint in re.finditer(r",?\s+and\s+([a-z]+)\b(\s+[a-z]+)?", body):
        word, after = joint.group(1), (joint.group(2) or "").strip()
        lemmas = getAllLemmas(word)
        # a word that is a noun too bids when an object follows it ("and make them pay it back")
        if word in lemmas.get("VERB", ()) and ("NOUN" not in lemmas or after in _OBJECT_OPENERS):
            return body[:joint.start()]
    return body


_OBJECT_OPENERS = frozenset("them him her it me us the a an his their my our sure".split())
