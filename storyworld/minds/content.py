"""What to say, before how: a speech act chosen from the speaker's own memory (DESIGN §4.2a step 3).

`gather` reads the store on the simulation's thread and hands the mind what the speaker holds about
the line it was spoken, about the beat due here and about the moment, each record with who of those
present holds it too. `choose` picks the act — answer, tell, ask, greet, lead, summon, react, refuse,
"I do not know" — and the records it carries; `floor` says it in the speaker's words (render.py).
Nothing here invents: every fact a line states is a record the speaker holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal, Protocol

import msgspec
import numpy as np
from lemminflect import getAllLemmas

from memory import frames, guard, lexicon, wordnet
from memory.records import Kind, Record
from storyworld.kernel.actions import ActOn, SpeechAct, Say
from storyworld.kernel.state import ThreadLine
from storyworld.minds import aims, lines, questions, render
from storyworld.world import World
from storyworld.world.lang import english

if TYPE_CHECKING:
    from memory.records import RecallHit, Record
    from storyworld.kernel.actions import Action

ANSWER_MIN = 0.30  # relevance at which a holding answers a question (below it: "I do not know")
ANSWER_MARGIN = 0.1  # how far below the best holding one the asker lacks may be and still be the answer
TELL_MIN = 0.28  # relevance at which a holding bears on the beat or the moment enough to be told unasked
RECALL_K = 8
TELL_LIMIT = 170  # characters of a statement a line carries (a longer record is told by its first sentence)
# Words a question is made of that say nothing of its subject.
QUESTION_WORDS = frozenset({
    "what", "who", "whom", "whose", "where", "when", "why", "how", "which", "whether", "do", "does", "did", "is",
    "are", "was", "were", "can", "could", "will", "would", "shall", "should", "may", "might", "have", "has", "had",
    "tell", "know", "say", "said", "think", "thing", "things", "anything", "something", "anyone", "someone",
    "plainly", "please", "me", "you", "your", "yours", "i", "my", "mine", "we", "us", "our", "it", "this", "that",
    "these", "those", "there", "here", "the", "a", "an", "of", "to", "in", "on", "at", "for", "with", "about",
    "from", "by", "and", "or", "but", "not", "no", "yes", "be", "been", "again", "now", "then", "so", "if",
    "any", "some", "all", "very", "much", "many", "ever", "never", "still", "yet", "just", "really", "him",
    "her", "his", "she", "he", "they", "them", "their", "one", "ones", "let", "come", "go",
    # a question about nothing in particular: "What news?", "What brings you here?", "Is all well?"
    "news", "new", "happen", "happened", "happening", "going", "goes", "matter", "wrong", "well", "brings", "bring",
    "doing", "fare", "fares", "faring", "heard", "hear", "word", "afoot", "quiet", "friend",
})
# Words of speaking itself (asking, telling, greeting, leading, not knowing): they carry no fact a line could invent.
SPEECH_WORDS = frozenset(lexicon.key(w) for w in (
    "told", "tells", "saw", "seen", "myself", "yourself", "believe", "read", "heard", "hear", "news", "well",
    "met", "welcome", "good", "day", "follow", "brings", "bring", "wanted", "asking", "answer", "plainly",
    "truth", "nothing", "cannot", "will", "would", "speak", "ask", "look", "listen", "sorry", "fear", "all",
    "as", "much", "more", "less", "own", "eyes", "sure", "certain", "indeed", "yes", "no", "aye", "sir", "madam",
    "lord", "lady", "friend", "pray", "thank", "thanks", "grant", "swear", "matter", "thing", "way", "man",
    "must", "once", "together", "now", "quickly", "asking", "wanted", "glad", "safe")) | frozenset(
    # the renderer's own plain lines and provenance frames state nothing ("all is quiet, as far as I know")
    lexicon.key(w) for table in (render.TEMPLATES["en"], render.PROVENANCE["en"]) for kind in table.values()
    for line in ((kind,) if isinstance(kind, str) else kind) for w in lines.words(re.sub(r"\{\w+\}", " ", line)))
# A goal that means to keep something hidden ("Keep his brandy trade secret"), not one that hunts secrets
# ("Know every secret in town").
SECRET_CUES = re.compile(r"\b(?:keep\w*\b.*\bsecret|secret\w*\s+(?:kept|safe)|hide|hid|hidden|conceal\w*|keep\w* quiet|"
                         r"never learn|nobody know|no one know|cover\w* up|keep\w* it from|found out|"
                         r"find\w* out about)\b", re.IGNORECASE)
SPOKEN_KINDS = frozenset({"event", "observation", "claim", "utterance", "inference", "reflection", "insight"})
class Memory(Protocol):
    """What gathering reads of a store (any MemoryStore)."""

    @property
    def embedder(self) -> aims.Encoder:
        """What reads goals for what they mean."""
        ...

    def recall(self, owner: str, query: str, k: int | None = None, *, expand: bool = True) -> list[RecallHit]: ...

    def held_by(self, owner: str) -> list[Record]: ...


class Known(msgspec.Struct, frozen=True, kw_only=True):
    """A record the speaker holds, as content for a line: what it says, how the speaker came by it, who else here has it."""

    record_id: int
    text: str
    kind: Kind
    via: str
    source: str | None = None
    confidence: float = 1.0
    status: str = "believed"
    round: int = 0  # story time of the record
    since_round: int = 0  # when the speaker came to hold it
    sediment: bool = False
    score: float = 0.0  # relevance to what it was recalled for
    holders: tuple[str, ...] = ()  # who of those present holds it too
    mechanical: bool = False  # a move, a look around or a wait from play: answered about, never told unasked
    private: bool = False  # a doing of the speaker's own that nobody else in play holds: answered, never volunteered
    quote: bool = False  # a line of the canon's dialogue: an answer as what its speaker said, in their words
    said_by: str | None = None  # who said it (a line of dialogue)
    actors: tuple[str, ...] = ()  # who did what it says (the record's typed actors)
    place: str | None = None  # where it happened (the record's place)
    overheard: bool = False  # heard said to another (the holding's flag): "I heard X say …", not "X told me"
    tellers: tuple[str, ...] = ()  # who told it to any holder: its first teller knows it as their own words


class Knowledge(msgspec.Struct, frozen=True, kw_only=True):
    """What one speaker holds that bears on this round, gathered from the store before deciding."""

    heard: tuple[Known, ...] = ()  # about the line spoken to it
    beat: tuple[Known, ...] = ()  # about the canon beat due here
    moment: tuple[Known, ...] = ()  # about its goal, its place and its company
    lately: tuple[Known, ...] = ()  # what it witnessed this round and the last
    told: tuple[int, ...] = ()  # records it told lately (not told again unasked)
    # records it keeps to itself -> those it would tell anyway (its goals name them for the matter)
    secrets: dict[int, tuple[str, ...]] = msgspec.field(default_factory=dict)
    vocabulary: frozenset[str] = frozenset()  # word keys of everything it holds: what its lines may say
    asked: questions.Asked = msgspec.field(default_factory=questions.Asked)  # the shape of the question put to it
    previous: tuple[Known, ...] = ()  # what it last told the one asking (a follow-up points back to it)
    pointed: tuple[Known, ...] = ()  # holdings a shaped question picks: what the named told it; where one was last
    news: tuple[Known, ...] = ()  # what it was told lately (news to pass on to whoever here lacks it)
    questions: tuple[str, ...] = ()  # its goals to find something out, as questions to put to someone
    asked_about: tuple[tuple[str, ...], ...] = ()  # for each question, the people it asks after (not asked of them)
    # for each question, those present it is not put to either: asking would give away a secret it bears on
    withheld: tuple[tuple[str, ...], ...] = ()
    seekers: tuple[str, ...] = ()  # who of those present has a goal to find something out (cares for news)
    # for each other one present, how near each piece of news is to their goals (record id, score): news goes
    # first to whoever it bears on most
    cares: tuple[tuple[str, tuple[tuple[int, float], ...]], ...] = ()
    stays: bool = False  # a goal to guard or keep watch where it is: alone, it does not go looking for company
    # where those who lack its news (not here, not its source nor its doers) were last known to be, by its own
    # holdings (else their home), with the news each lacks: where it goes to pass it on when nobody here lacks it
    lacking_at: tuple[tuple[str, int], ...] = ()
    # asked what it means to do ("What should we do?"): the goal nearest the question that hides nothing, as it
    # says it ("I mean to …"); "" when it has none to tell
    intent: str = ""
    proposal: str = ""  # asked to do something ("Should we tell Hamlet?"): what it agrees to, in its own words
    declines: bool = False  # ... and it will not: the deed would give away what it keeps from the asker
    # asked what to do about a matter no goal of its is on: the matter's words; a holding answers only when it is on
    # the whole matter ("…with the men who join us?" is not answered by "a real man should serve his country")
    matter: frozenset[str] = frozenset()
    # bidden lately to tell someone something ("Tell the inspector what I found"): (whom, where they were last known
    # to be, what it holds that the bidding points to), each while the one to be told lacks it
    bidden: tuple[tuple[str, str, Known], ...] = ()
    # of the records the line spoken to it tells, those it held before the line (not news to it, however far down
    # its recall for the line they come)
    held_before: frozenset[int] = frozenset()
    covers: tuple[int, ...] = ()  # its own words, nearest its goals to hide or to have believed first: its story
    going: str = ""  # bidden lately to go somewhere ("Come with me to the forge", "Come and look at his feet"): where


class Speech(msgspec.Struct, frozen=True, kw_only=True):
    """A chosen speech act: what it does, to whom, the records it carries, and its floor rendering."""

    act: SpeechAct
    to: str | None
    carries: tuple[Known, ...] = ()
    told_all: bool = False  # asked about what it holds nothing more of to tell ("I have told you all I know")
    news: bool = False  # asked a question about nothing in particular ("What news?"): "unknown" is "no news"
    question: str = ""  # an ask put in the asker's own words (a goal to find something out)
    heard: bool = False  # what it carries answers news it was just told ("That is news to me; and …")
    focus: Literal["", "source", "when", "where"] = ""  # a follow-up's answer: where it came from, when, where one is
    again: bool = False  # an answer it gave this listener lately, given again ("As I said, …")
    restate: bool = False  # a follow-up's answer that says what it is about (the question named it, not a last answer)
    echo: str = ""  # a reaction's: what the line just told it, said back as a question ("You saw …? I did not know that")
    # an answer near the question in meaning only, no word of it in common: to a yes-or-no question "I cannot say
    # for sure, but …"; to a question of what, who or where, "I do not know that; what I can tell you is this. …";
    # to a request ("Tell me what you saw"), "What I can tell you is this. …"
    loose: Literal["", "unsure", "unknown", "only"] = ""
    intent: str = ""  # asked what it means to do: its goal as it says it (Knowledge.intent), said as rendered
    about: str = ""  # a where-answer's: the one asked after (an agent id), whom the line places
    verdict: Literal["", "yes", "no"] = ""  # a yes-or-no question of fact the answer settles: said first
    proposal: str = ""  # a proposal it answers (Knowledge.proposal): agreed to ("yes: let us …"), or not (verdict "no")
    matter: str = ""  # what it does not know, as the question asked it ("how Laertes is living"): "I do not know …"


# ------------------------------------------------------------------------------- gathering


def keys(text: str) -> set[str]:
    """Content-word keys of a text: inflections folded ("saw" and "seen" are "see"), question words dropped."""
    return {lexicon.key(w) for w in lines.words(text) if w not in QUESTION_WORDS and (len(w) > 1 or w.isdigit())}


def line_keys(text: str) -> set[str]:
    """The content-word keys a line asserts: its words without question words and words of speaking."""
    return keys(text) - SPEECH_WORDS


# "When I left …", "Where the path forks …": a wh-word opening a clause with its own subject, not a question.
_CLAUSE = re.compile(r"^(?i:when|where|while|as|after|before|since|if|because|though|although|once)\s+"
                     r"(?:(?i:i|you|he|she|we|they|it|the|a|an|my|our|his|her|their|everyone|nobody)\b|[A-Z]\w*)")


def is_asking(line: ThreadLine) -> bool:
    """Whether a line spoken asks something of its hearer: a question, but not a reaction that says back what it
    just heard with a question mark ("You saw it? I did not know that"), which answers a line and asks nothing."""
    return is_question(line.text) and line.act != "react"


def answered(lines: Sequence[ThreadLine], position: int) -> bool:
    """Whether the one a line was spoken to has answered its speaker since (in the same round or after)."""
    line = lines[position]
    return any(later.speaker == line.to and later.to == line.speaker for later in lines[position + 1:])


def replies(lines: Sequence[ThreadLine], position: int, *, to_a_question: bool = False) -> bool:
    """Whether a line is said back to a line its hearer spoke to its speaker this round or the last (with
    `to_a_question`: to a question it asked); such a line closes that exchange, and nobody owes it a word."""
    line = lines[position]
    return any(earlier.speaker == line.to and earlier.to == line.speaker and earlier.round >= line.round - 1
               and (not to_a_question or earlier.act == "ask" or earlier.act is None and is_question(earlier.text))
               for earlier in lines[:position])


def asked_part(line: ThreadLine) -> ThreadLine:
    """A line that tells something and ends on a question, as the question it asks (what it told it carries in its
    claims and records): "I found the schedule in the basket. Will you keep it locked?" is answered as a proposal."""
    if not is_asking(line):
        return line
    question = questions.question_of(line.text)
    return line if question == line.text else msgspec.structs.replace(line, text=question)


def is_question(text: str) -> bool:
    """Whether a line asks something (a question mark, or the shape of a question)."""
    stripped = text.strip()
    if stripped.endswith("?") or "?" in stripped or questions.bidding(stripped) is not None:
        return True  # a bidding asks for a deed as a question does ("Tell the inspector what I found.")
    first = (lines.words(stripped) or [""])[0]
    if _CLAUSE.match(stripped):
        return False  # "When I left, a lamp was burning": a wh-word opening a clause of its own asserts
    return first in {"what", "who", "where", "when", "why", "how", "which", "whether"} or stripped.lower().startswith(
        ("tell me", "do you know", "have you", "did you", "can you", "will you", "is it", "are you"))


KIN = {"father": ("son", "daughter", "child"), "mother": ("son", "daughter", "child"), "son": ("father", "mother"),
       "daughter": ("father", "mother"), "brother": ("brother", "sister"), "sister": ("brother", "sister"),
       "husband": ("wife",), "wife": ("husband",), "uncle": ("nephew", "niece"), "master": ("servant", "apprentice")}


KIN_SEX = {"father": "m", "son": "m", "brother": "m", "husband": "m", "uncle": "m",
           "mother": "f", "daughter": "f", "sister": "f", "wife": "f"}


def kin(world: World, agent: str, relation: str) -> str | None:
    """Who the agent's `relation` is, as the personas say it ("Wren's father" / "Abel Marr's daughter"), else None."""
    if agent not in world.agents:
        return None
    me = world.agents[agent]
    mine = {n for n in me.all_names()} | {me.name.split()[0]}
    for other_id, other in world.agents.items():
        if other_id == agent:
            continue
        theirs = {n for n in other.all_names()} | {other.name.split()[0]}
        sex = render.gender(world, other_id)
        if sex and sex != KIN_SEX.get(relation, sex):
            continue  # "Abel Marr's daughter" says who her parent is, not whether he is her mother
        if any(f"{n}'s {relation}".lower() in other.description.lower() for n in mine) or any(
                f"{n}'s {back}".lower() in me.description.lower() for n in theirs for back in KIN.get(relation, ())):
            return other_id
    return None


def asked_keys(world: World, question: str, asker: str, answerer: str, asked: str | None = None) -> set[str]:
    """What a question asks about, as the one asked holds it, without the two names ("what did you see?" -> see);
    `asked`: the question as_asked already, when the caller has it."""
    names = {w for a in (asker, answerer) if a in world.agents for w in keys(world.agents[a].name)}
    return keys(asked if asked is not None else as_asked(world, question, asker, answerer)) - names


def as_asked(world: World, question: str, asker: str, answerer: str) -> str:
    """A question turned to the answerer's memory: "what did you see" asked of Marcellus -> "what did Marcellus see";
    "my father" asked by Wren -> "Abel Marr" where the personas say whose father he is."""
    answer_name = world.agents[answerer].name if answerer in world.agents else "you"
    asker_name = world.agents[asker].name if asker in world.agents else "I"

    def whose(match: re.Match[str]) -> str:
        found = kin(world, asker, match.group(1).lower())
        return world.agents[found].name if found else f"{asker_name}'s {match.group(1)}"

    text = re.sub(r"\bmy\s+(" + "|".join(KIN) + r")\b", whose, question, flags=re.IGNORECASE)
    text = by_name(world, text)
    text = re.sub(r"\byour\b", f"{answer_name}'s", text, flags=re.IGNORECASE)
    text = re.sub(r"\byou\b", answer_name, text, flags=re.IGNORECASE)
    text = re.sub(r"\bmy\b", f"{asker_name}'s", text)
    return re.sub(r"\b(I|me)\b", asker_name, text)


def by_name(world: World, text: str) -> str:
    """A question's posts put as the names of the ones who hold them ("Which man pointed you at the collector?" ->
    "… at Ferdinand Wauters?"), as the holdings name them."""
    posts = render.post_forms(world)
    if posts:
        pattern = _POST_PATTERNS.get(world.digest)
        if pattern is None:
            alternation = "|".join(re.escape(p) for p in sorted(posts, key=len, reverse=True))
            pattern = _POST_PATTERNS[world.digest] = re.compile(rf"\bthe\s+({alternation})\b", re.IGNORECASE)
        text = pattern.sub(lambda m: world.agents[posts[m.group(1).lower()]].name, text)
    # and the names it is given by ("the grocer", "Mr Mott"): as the holdings name them, in full
    for span in reversed(render.find_names(world, text)):
        if span.agent in world.agents:
            text = text[:span.start] + world.agents[span.agent].name + text[span.end:]
    return text


_POST_PATTERNS: dict[str, re.Pattern[str]] = {}  # by world digest


def secret_goals(world: World, agent: str, encoder: aims.Encoder | None = None) -> list[str]:
    """The agent's goals that mean to keep something hidden, read by meaning when an encoder is given ("Make sure
    nobody learns that she swapped the samples"); a plain cue ("Keep his trade secret") counts unless the goal
    reads as one to find out or to tell ("Learn what is hidden in her store")."""
    goals = world.agents[agent].goals if agent in world.agents else []
    kinds = {a.goal: a.kind for a in aims.aims_of(world, agent, encoder)} if encoder is not None else {}
    return [g for g in goals if kinds.get(g) == "keep" or (SECRET_CUES.search(g) and kinds.get(g) not in ("learn", "tell"))]


def _known(record: Record, owner: str, score: float, present: Iterable[str], mechanical: frozenset[str],
           world: World | None = None) -> Known:
    holding = record.owners[owner]
    private = world is not None and is_private(world, record, owner)
    quote = not is_statement(record.text) or (world is not None and is_staging(world, record))
    return Known(private=private, quote=quote, said_by=record.speaker, actors=record.actors,
        record_id=record.id, text=record.text, kind=record.kind, via=holding.via, source=holding.source,
        confidence=holding.confidence, status=holding.status, round=record.round, since_round=holding.since_round, sediment=record.sediment,
        score=round(float(score), 4), holders=tuple(a for a in present if a in record.owners), place=record.place,
        mechanical=record.event_id in mechanical, overheard="overheard" in holding.flags,
        tellers=tuple(sorted({h.source for h in record.owners.values() if h.via == "told" and h.source})),
    )


def is_statement(text: str) -> bool:
    """Whether a record reads as a statement about the world, fit to be told: third person, a sentence, no
    question or cry. A line of dialogue kept as canon ("Say, what, is Horatio there?") is not."""
    tokens = lines.words(text)
    if len(tokens) < 4:
        return False
    return not (english().person & set(tokens)) and "?" not in text and "!" not in text


def is_staging(world: World, record: Record) -> bool:
    """A record of the canon's staging (an entrance, a flourish, an aside; the world file's typed `staging`):
    its witnesses hold it, nobody tells or quotes it."""
    return record.event_id in world.staging_events


def is_private(world: World, record: Record, owner: str) -> bool:
    """A deed of the owner's own (its typed actors, a deed's record) that no one else in play holds but those who
    did it with it. A sight is not a deed: the actors of what one saw are its witnesses."""
    if owner not in record.actors or record.kind != "event":
        return False
    partners = set(record.actors)
    return not any(o not in partners and o in world.agents and world.agents[o].status == "active"
                   for o in record.owners)


def _usable(world: World, record: Record, owner: str) -> bool:
    """A holding fit to say aloud: believed (or doubted), not retracted, not a private note, not the canon's
    staging, a statement (not a line of dialogue), and not a line said in play (what was said is heard by those
    there; what it told travels as the record it told)."""
    holding = record.owners.get(owner)
    return (holding is not None and holding.status in ("believed", "doubted") and record.namespace == "shared"
            and record.kind in SPOKEN_KINDS and "contaminated" not in holding.flags
            and not (record.kind == "utterance" and not record.sediment) and not is_staging(world, record)
            and (is_statement(record.text) or is_quotable(record)))


def is_quotable(record: Record) -> bool:
    """A line of the canon's dialogue, held as said by its speaker: it can be told as what was said, in quotes."""
    return record.kind == "utterance" and record.sediment and len(lines.words(record.text)) >= 4


def _scored(world: World, store: Memory, owner: str, query: str, present: tuple[str, ...],
            mechanical: frozenset[str], *, subject: str | None = None) -> tuple[Known, ...]:
    """The owner's best holdings for a query, re-scored: the store's relevance, plus shared content words,
    plus (when `subject` is named) the records that name the one asked about."""
    query = FRAMING.sub("", query).strip()
    if not query:
        return ()
    # the answerer's own name is in every record about it: it says nothing of what was asked
    own = keys(world.agents[subject].name) if subject in world.agents else set()
    wanted = keys(query) - own
    # a question about the answerer itself ("what did you see?") favours its own doings; one that names
    # someone else does not
    about_self = subject is not None and not any(a != subject for a in render.names_in(world, query))
    found: list[Known] = []
    # asked wider, so that moves and looks around (near many a question, the answer to few) do not crowd out
    # the holdings that answer it: the first RECALL_K of any kind, then the rest up to RECALL_K of substance
    hits = store.recall(owner, query, k=RECALL_K * 2)
    substantial = 0
    for rank, hit in enumerate(hits):
        record = hit.record
        if not _usable(world, record, owner):
            continue
        moved = record.event_id in mechanical
        substantial += not moved
        if rank >= RECALL_K and (moved or substantial > RECALL_K):
            continue
        score = float(hit.score)
        if wanted:
            score += 0.25 * len(wanted & keys(record.text)) / len(wanted)
        if about_self and subject in record.actors:
            score += 0.08
        found.append(_known(record, owner, score, present, mechanical, world))
    found.sort(key=lambda k: (-k.score, k.record_id))
    return tuple(found)


# How a question is framed, which says nothing of its subject ("Do you know that …", "Tell me whether …").
FRAMING = re.compile(r"^\s*(?:do|did|does)\s+\w+(?:\s+\w+)?\s+know\s+(?:that|whether|if|about)\s+|"
                     r"^\s*(?:please\s+)?(?:can\s+\w+(?:\s+\w+)?\s+)?tell\s+(?:me|us|\w+(?:\s+\w+)?)\s+(?:\w+ly\s+)?"
                     r"(?:that\s+|whether\s+|if\s+|about\s+)?(?=what|who|where|when|why|how|which|whether|that|if|about|of)",
                     re.IGNORECASE)
PRONOUNS = re.compile(r"\b(it|he|she|they|him|her|them|this|that|there)\b", re.IGNORECASE)


def gather(world: World, store: Memory, agent: str, *, round_: int, present: tuple[str, ...],
           addressed: ThreadLine | None, beat_text: str, moment_query: str, told: Iterable[int] = (),
           mechanical: frozenset[str] = frozenset(), before: str = "", previous: tuple[int, ...] = (),
           biddings: tuple[tuple[str, str], ...] = ()) -> Knowledge:
    """Everything the speaker holds that this round's line may carry (one store read per question).

    `before`: the last line the two exchanged before the one spoken to the speaker, which a question's
    "it" and "he" point back to ("Do you think it will come again?"). `biddings`: (bidder, what it asks,
    questions.requested) of the biddings put to it lately, oldest first.
    """
    heard: tuple[Known, ...] = ()
    # the question's shape from the question it ends on; what it bears on from the whole line ("Something heavy
    # has been crossing the bridge. Did you let anyone through?" is on the crossing)
    shaped = asked_part(addressed) if addressed is not None else None
    held = store.held_by(agent)
    by_id = {r.id: r for r in held}
    earlier = tuple(_known(by_id[r], agent, 1.0, present, mechanical, world) for r in previous if r in by_id)
    asked = questions.Asked()
    pointed: tuple[Known, ...] = ()
    if addressed is not None and is_asking(addressed):
        asked = questions.read_question(world, shaped.text if shaped else addressed.text, addressed.speaker, agent,
                                        tuple(a for k in earlier for a in k.actors))
        pointed = _pointed(world, agent, asked, held, present, mechanical)
    if addressed is not None:
        query = as_asked(world, addressed.text, addressed.speaker, agent) if is_asking(addressed) else addressed.text
        if before and PRONOUNS.search(addressed.text):
            query = f"{query} {before}"
        heard = _scored(world, store, agent, query, present, mechanical, subject=agent)
    beat = _scored(world, store, agent, beat_text, present, mechanical) if beat_text else ()
    moment = _scored(world, store, agent, moment_query, present, mechanical)
    lately = tuple(_known(r, agent, 0.0, present, mechanical, world) for r in held
                   if _usable(world, r, agent) and r.owners[agent].via == "witnessed"
                   and r.owners[agent].since_round >= round_ - 1 and r.event_id not in mechanical)
    vocabulary: set[str] = set()
    for record in held:
        vocabulary |= keys(record.text)
    encoder = store.embedder
    kept: dict[int, float] = {}
    giveaway: set[int] = set()
    own_words: list[tuple[float, int]] = []
    hiding = set(secret_goals(world, agent, encoder))
    finding = {a.goal for a in aims.aims_of(world, agent, encoder) if a.kind in ("learn", "tell")} if encoder else set()
    for goal in world.agents[agent].goals if agent in world.agents else ():
        if goal in finding:
            continue  # a goal to find out or to tell hides nothing
        # what a keep-it-hidden goal is about, or a deed a goal of another kind is plainly about (a private deed
        # that close to what one is after is not told to whoever asks)
        floor = KEEP_MATCH if goal in hiding else PRIVATE_MATCH
        hits = store.recall(agent, goal, k=RECALL_K)
        for hit in hits:
            if float(hit.score) >= floor:
                kept[hit.record.id] = max(kept.get(hit.record.id, 0.0), float(hit.score))
        if goal in hiding:
            giveaway |= _giveaway(agent, hits)
            own_words += [(float(h.score), h.record.id) for h in hits if h.record.speaker == agent]
    secrets = keep_to_self(world, agent, held, kept)
    secrets |= _near_the_deed(world, agent, held, secrets)
    # what others said that would give away what it hides ("the rope that broke was old, and nobody cut it", heard
    # by the rigger who hung old rope and says it was cut) is not passed on by it either
    secrets |= {r: () for r in giveaway if r not in secrets}
    # news is scored by how near it is to the moment (its goals, place and company): what it cares about goes first
    near = {k.record_id: k.score for k in moment}
    news = tuple(_known(r, agent, near.get(r.id, 0.0), present, mechanical, world) for r in held
                 if _usable(world, r, agent) and r.owners[agent].via == "told" and r.owners[agent].since_round >= round_ - NEWS_ROUNDS
                 and r.id not in secrets)
    lacking_at = _lacking_at(world, agent, held, [k.record_id for k in news if k.record_id not in told], present)
    cares = _cares(world, store, agent, news, present, mechanical) if encoder is not None else ()
    pronouns = world.agents[agent].pronouns if agent in world.agents else "they"
    asking = tuple((q, a.people) for a in (aims.aims_of(world, agent, encoder) if encoder is not None else ())
                   if a.kind == "learn" for q in [aims.question_of(a.goal, pronouns, bool(a.people))] if q)
    asks = tuple(q for q, _ in asking)
    withheld = tuple(_withheld(store, agent, q, secrets, present) for q in asks) if secrets and encoder else ()
    intent = _intent(world, agent, addressed.text, encoder, hiding) if asked.kind == "intent" and addressed else ""
    matter: frozenset[str] = frozenset()
    if asked.kind == "intent" and not intent and addressed and _has_substance(world, questions.intent_matter(addressed.text)):
        # "What should we do about the eunuchs?" with no goal on it: what it holds of the whole matter
        asked = questions.Asked()
        matter = frozenset(keys(questions.intent_matter(addressed.text)) - _people_keys(world))
    proposal = (questions.proposal(world, shaped.text, addressed.speaker, agent) or "") \
        if asked.kind == "proposal" and shaped and addressed else ""
    # a deed that would give away what it keeps from the asker ("Shall we look in the barn?" to the one who hid
    # the sacks there) it will not agree to
    declines = bool(proposal and secrets and encoder and addressed and addressed.speaker in
                    _withheld(store, agent, proposal, secrets, (addressed.speaker,)))
    last = _last_places(world, agent, held) if biddings else {}
    bidden = _bidden(world, store, agent, biddings, present, mechanical, secrets, last)
    going = _bidden_going(world, store, agent, biddings, secrets, last)
    return Knowledge(heard=heard, beat=beat, moment=moment, lately=lately, told=tuple(dict.fromkeys(told)),
                     secrets=secrets, vocabulary=frozenset(vocabulary), asked=asked, previous=earlier, pointed=pointed,
                     news=news, questions=asks, asked_about=tuple(people for _, people in asking), withheld=withheld,
                     seekers=tuple(a for a in present if encoder is not None and a in world.agents
                                   and any(x.kind == "learn" for x in aims.aims_of(world, a, encoder))),
                     stays=encoder is not None and any(a.kind == "guard" for a in aims.aims_of(world, agent, encoder)),
                     lacking_at=lacking_at, intent=intent, proposal=proposal, declines=declines, matter=matter,
                     cares=cares, bidden=bidden, going=going,
                     covers=tuple(dict.fromkeys(r for _, r in sorted(own_words, key=lambda sr: -sr[0]))),
                     held_before=frozenset(t.record for t in (addressed.tells if addressed is not None else ())
                                           if t.record in by_id and addressed is not None
                                           and by_id[t.record].owners[agent].since_round < addressed.round))


BIDDEN_TELLING = frozenset("tell warn inform show".split())  # biddings that ask to pass something on
BIDDEN_GOING = frozenset("come go follow walk meet hurry ride run".split())  # biddings that ask it to go somewhere


def _bidden_going(world: World, store: Memory, agent: str, biddings: tuple[tuple[str, str], ...],
                  secrets: dict[int, tuple[str, ...]], last: dict[str, str]) -> str:
    """Where the latest bidding to go somewhere sends it: the place it names ("Come with me to the forge"), else
    where the bidder was last seen (`last`: "Come and look at his feet"); "" when none, or when going would give
    away what it keeps from the bidder (it declined)."""
    for bidder, what in reversed(biddings):
        if what.split(" ", 1)[0].lower() not in BIDDEN_GOING:
            continue
        if secrets and store.embedder is not None and bidder in _withheld(store, agent, what, secrets, (bidder,)):
            return ""
        named = sorted(render.places_in(world, what), key=lambda p: what.lower().find(world.places[p].name.lower()))
        return named[0] if named else last.get(bidder, "")
    return ""


def _bidden(world: World, store: Memory, agent: str, biddings: tuple[tuple[str, str], ...], present: tuple[str, ...],
            mechanical: frozenset[str], secrets: dict[int, tuple[str, ...]], last: dict[str, str]
            ) -> tuple[tuple[str, str, Known], ...]:
    """For each bidding to pass something on to someone ("Tell the inspector what I found under the colt's
    plates"), whom, where they were last known to be (`last`, else their home) and the holding it points to: of
    what the bidder told it first, the one with most of the bidding's words; nothing it keeps from that one,
    nothing that one holds already."""
    out: dict[str, tuple[str, Known]] = {}
    for bidder, what in biddings:
        if what.split(" ", 1)[0].lower() not in BIDDEN_TELLING:
            continue
        whom = [a for a in render.names_in(world, what) if a not in (agent, bidder) and a in world.agents]
        if not whom:
            continue
        matter = questions.named(world, what.split(" ", 1)[1], bidder, agent) or what
        wanted = keys(matter) - keys(world.agents[whom[0]].name) - _people_keys(world)
        on = [k for k in _scored(world, store, agent, matter, present, mechanical) if wanted & keys(k.text)]
        # what the bidder told it, if they told it anything on the matter ("what I found"); else its own
        theirs = [k for k in on if k.source == bidder]
        on = sorted(theirs or on, key=lambda k: (-len(wanted & keys(k.text)), -k.score))
        best = on[0] if on else None
        if best is not None and whom[0] not in best.holders \
                and not (best.record_id in secrets and whom[0] not in secrets[best.record_id]):
            out[whom[0]] = (last.get(whom[0], world.agents[whom[0]].home), best)
    return tuple((whom, place, known) for whom, (place, known) in out.items())


def _cares(world: World, store: Memory, agent: str, news: tuple[Known, ...], present: tuple[str, ...],
           mechanical: frozenset[str]) -> tuple[tuple[str, tuple[tuple[int, float], ...]], ...]:
    """For each other one present with goals, the news nearest them (the teller's holdings recalled by the
    listener's goals): whom a piece of news concerns."""
    wanted = {k.record_id for k in news}
    # only those here who lack some of it, and only where there is a choice to make (of news, or of listener)
    lacking = [a for a in present if a != agent and a in world.agents and world.agents[a].goals
               and any(a not in k.holders and a != k.source for k in news)]
    if not wanted or len(wanted) < 2 and len(lacking) < 2:
        return ()
    cares = []
    for listener in lacking:
        near = _scored(world, store, agent, " ".join(world.agents[listener].goals), present, mechanical)
        cares.append((listener, tuple((k.record_id, k.score) for k in near if k.record_id in wanted)))
    return tuple(cares)


def _intent(world: World, agent: str, question: str, encoder: aims.Encoder | None, hiding: set[str]) -> str:
    """What the agent says it means to do, asked `question`: its goal nearest the question in meaning, of those
    that hide nothing (never a goal to keep something hidden), in its own words; "" when none."""
    if encoder is None or agent not in world.agents:
        return ""
    open_aims = [a for a in aims.aims_of(world, agent, encoder) if a.kind != "keep" and a.goal not in hiding]
    if not open_aims:
        return ""
    matter = questions.intent_matter(question)
    vectors = np.asarray(encoder.encode([question, matter, *(a.goal for a in open_aims)]), dtype=np.float32)
    goals = vectors[2:]
    if _has_substance(world, matter):
        # asked what to do about something ("…about the eunuchs?", "…if the king turns pale?"): only a goal on it
        # answers, a word of substance in common or near it in meaning; a goal beside it is no answer
        wanted = keys(matter)
        on = [i for i, a in enumerate(open_aims)
              if wanted & keys(a.goal) or float(goals[i] @ vectors[1]) >= INTENT_NEAR]
        if not on:
            return ""
        open_aims, goals = [open_aims[i] for i in on], goals[on]
    best = open_aims[int(np.argmax(goals @ vectors[0]))]
    other_at = min((span.start for span in render.find_names(world, best.goal) if span.agent != agent), default=None)
    return aims.intent_of(best.goal, world.agents[agent].pronouns, other_at)


def _withheld(store: Memory, agent: str, question: str, secrets: dict[int, tuple[str, ...]],
              present: tuple[str, ...]) -> tuple[str, ...]:
    """Those present a goal's question is not put to: it is on a record the agent keeps from them (Horatio, sworn
    to keep the ghost secret, does not ask the king what the figure on the battlements is)."""
    barred: set[str] = set()
    asked = keys(question) - frames.PREPOSITIONS
    for hit in store.recall(agent, question, k=RECALL_K):
        # on the kept record: near it in meaning and a word of it in common, or nearer still ("Where does the
        # cattle dealer lodge?" is not on the sacks Wat carted to the mill, however near the embedder puts them)
        on = bool(asked & keys(hit.record.text)) or float(hit.score) >= BEARS
        if hit.record.id in secrets and float(hit.score) >= KEEP_MATCH and on:
            barred |= {a for a in present if a != agent and a not in secrets[hit.record.id]}
    return tuple(sorted(barred))


_PEOPLE_KEYS: dict[str, frozenset[str]] = {}  # by world digest


def _people_keys(world: World) -> frozenset[str]:
    """The word keys of every name of the world's people (once per world)."""
    found = _PEOPLE_KEYS.get(world.digest)
    if found is None:
        found = _PEOPLE_KEYS[world.digest] = frozenset(
            w for a in world.agents.values() for n in a.all_names() for w in keys(n))
    return found


INTENT_NEAR = 0.4  # nearness in meaning at which a goal answers what to do about a matter it shares no word with


def _has_substance(world: World, text: str) -> bool:
    """Whether a text has a word of substance beyond people's names."""
    return bool(keys(text) - _people_keys(world))


def _lacking_at(world: World, agent: str, held: list[Record], news: list[int], present: tuple[str, ...]
                ) -> tuple[tuple[str, int], ...]:
    """Places where someone who lacks a piece of the agent's news was last known to be, with that news's record,
    newest news first.

    From typed fields: a record's owners say who holds it; where one is comes from the agent's own holdings
    that place them (the latest), else the world's home of theirs. Never its source nor its doers (news is not
    told back, nor to the one it accuses)."""
    by_id = {r.id: r for r in held}
    last = _last_places(world, agent, held)
    places: list[tuple[str, int]] = []
    for told in (by_id[i] for i in news if i in by_id):
        source = told.owners[agent].source
        of = about_whom(world, told.text, told.actors, told.speaker)
        for other, person in sorted(world.agents.items()):
            if (other == agent or other in present or other in told.owners or other == source
                    or other in of or person.status != "active"):
                continue
            places.append((last.get(other, person.home), told.id))
    return tuple(dict.fromkeys(p for p in places if p[0] in world.places))


def about_whom(world: World, text: str, actors: Iterable[str], said_by: str | None) -> set[str]:
    """Whom a holding is of: its doers, and in one's word the others it names ("Halvard said Kalani has been
    chipping at the arch" is of Kalani as much as of Halvard): news of them is not carried to them."""
    return set(actors) | (set(render.names_in(world, text)) - {said_by} if said_by else set())


def _last_places(world: World, agent: str, held: Iterable[Record]) -> dict[str, str]:
    """Where each person was last known to be by the agent's own holdings that place them since play began (the
    latest sighting); a claim told is placed where it was told, which says nothing of where the one it names was
    (as `_pointed`); where one was before the story began says less of where they are than their home does."""
    last: dict[str, tuple[int, int, str]] = {}
    for record in held:
        # a sighting's round is when it was seen; what it was told places them when it happened, not when told
        seen = _seen_round(record, agent) if record.owners[agent].via == "witnessed" else record.round
        if record.place in world.places and record.namespace == "shared" and seen >= 0 \
                and not (record.kind == "claim" and record.owners[agent].via == "told"):
            for actor in record.actors:
                if actor in world.agents and (actor not in last or (seen, record.id) > last[actor][:2]):
                    last[actor] = (seen, record.id, record.place)
    return {actor: place for actor, (_, _, place) in last.items()}


def _pointed(world: World, agent: str, asked: questions.Asked, held: list[Record], present: tuple[str, ...],
             mechanical: frozenset[str]) -> tuple[Known, ...]:
    """What a shaped question points at among the holdings, by typed fields: what the people it names told the
    agent (`source`), newest first; or the latest holding that places the person it asks after (`actors`, `place`)."""
    if asked.kind == "said_by":
        found = [r for r in held if _usable(world, r, agent) and r.owners[agent].via in ("told", "sediment")
                 and r.owners[agent].source in asked.people]
        found.sort(key=lambda r: (-r.owners[agent].since_round, -r.round, r.id))
        return tuple(_known(r, agent, 1.0, present, mechanical, world) for r in found[:4])
    if asked.kind == "where_now":
        # what was seen, or an event told; a claim told is placed where it was told, which says nothing of where
        # the one it names was ("Duarte's apron …", told in the case store, does not put Duarte there)
        found = [r for r in held if r.place and set(asked.people) & set(r.actors) and r.namespace == "shared"
                 and r.owners[agent].status in ("believed", "doubted")
                 and not (r.kind == "claim" and r.owners[agent].via == "told")]
        # the last time it saw them placed: a move seen again ("went to the brine house" twice) is one record whose
        # merge log keeps each sighting; within a round, moves resolve after what was said
        found.sort(key=lambda r: (-_seen_round(r, agent), r.kind != "event", -r.id))
        return tuple(_known(r, agent, 1.0, present, mechanical, world) for r in found[:1])
    return ()


def _seen_round(record: Record, owner: str) -> int:
    """The last round `owner` came by this record: its own round, or a later sighting its merge log keeps."""
    return max([record.round, *(m.round for m in record.merge_log if m.owner == owner)])


# A goal that means to share a matter with someone names them after one of these ("Get Horatio to see it").
ALLY_VERBS = ("get", "tell", "warn", "show", "convince", "help", "bring", "inform", "teach", "persuade", "make")
# Words of a goal that say nothing of its matter ("Get Horatio to see…", "Tell Hamlet the truth about…").
GENERIC_GOAL_WORDS = frozenset(lexicon.key(w) for w in (
    "get", "make", "see", "find", "learn", "keep", "help", "truth", "own", "eyes", "sure", "tell", "show", "warn",
    "convince", "bring", "persuade", "inform", "teach", "everything", "all", "whole", "real", "really"))


GIVEAWAY = 0.5  # relevance of another's word to a goal that hides something at which it is not passed on
KEEP_MATCH = 0.3  # relevance of a deed to a goal that says to keep something hidden at which the deed is kept
PRIVATE_MATCH = 0.5  # relevance of a private deed to any other goal (not to find out or tell) at which it is kept


def keep_to_self(world: World, agent: str, held: list[Record], kept: dict[int, float] | None = None
                 ) -> dict[int, tuple[str, ...]]:
    """The records a character keeps to itself, each with whom it would tell anyway.

    Decided from typed fields, never from the words of a record: a deed of its own (it is among the record's
    actors) is kept when the world file lists its event among the character's `secrets`, or when nobody else
    in play holds it (besides those who did it with it) and it is what a goal that says to keep something
    hidden is about (`kept`: record id -> relevance of the deed to such a goal, from the store's recall). A
    kept deed is told to nobody. And what a goal means to tell someone is for them ("Tell Hamlet the truth
    about his murder": the Ghost tells the murder to Hamlet, not to the watch).
    """
    goals = world.agents[agent].goals if agent in world.agents else []
    declared = set(world.agents[agent].secrets) if agent in world.agents else set()
    kept = kept or {}
    out: dict[int, tuple[str, ...]] = {}
    # what a goal means to tell someone is for them ("Tell Hamlet the truth about his murder")
    meant = [(a, keys(g) - keys(world.agents[a].name) - GENERIC_GOAL_WORDS) for g in goals for a in world.agents
             if a != agent and _ally(world, g, a)]
    for record in held:
        if not _usable(world, record, agent):
            continue
        for listener, matter in meant:
            if matter & keys(record.text):
                out[record.id] = (*out.get(record.id, ()), listener)
        if agent not in record.actors:
            continue  # not a deed of its own
        if record.event_id in declared or (is_private(world, record, agent) and record.id in kept):
            out[record.id] = ()
    return out


def _giveaway(agent: str, hits: Sequence[RecallHit]) -> set[int]:
    """Of the holdings a goal that hides something recalls, what would give it away: very near the
    goal, or near it and at odds with the agent's own word on the matter by the merge guard ("the rope that broke
    was old, and nobody cut it" against "I said the new rope was cut")."""
    score = {h.record.id: float(h.score) for h in hits}
    near = [h.record for h in hits if score[h.record.id] >= KEEP_MATCH]
    own = [r for r in near if r.speaker == agent and agent in r.actors]
    # (its own word is its story, told freely; what others say of it, "Dan carried a coil down to the keels", is not)
    return {r.id for r in near if r.speaker != agent
            and (score[r.id] >= GIVEAWAY or any(guard.check(r.text, word.text).contradiction for word in own))}


def _near_the_deed(world: World, agent: str, held: list[Record], secrets: dict[int, tuple[str, ...]]
                   ) -> dict[int, tuple[str, ...]]:
    """What it was told of the place where it did what it keeps from everyone is not passed on (Isolde, who burned
    the press in the drying tent, keeps the buckle raked out of the drying tent's brazier): from typed fields, the
    kept deed's place and the places the told record names; never its own word (its cover story goes on)."""
    places = {r.place for r in held if secrets.get(r.id) == () and agent in r.actors and r.place}
    if not places:
        return {}
    return {r.id: () for r in held if r.id not in secrets and agent not in r.actors and r.speaker != agent
            and r.owners[agent].via == "told" and (render.places_in(world, r.text) & places
                                                     or (r.kind == "event" and r.place in places))}


def _ally(world: World, goal: str, agent: str) -> bool:
    """Whether a goal means to share its matter with `agent`: it names them after a verb of sharing."""
    for span in render.find_names(world, goal):
        if span.agent == agent:
            before = re.findall(r"[a-z]+", goal[: span.start].lower())
            return bool(before) and before[-1] in ALLY_VERBS
    return False


# ------------------------------------------------------------------------------- choosing


TOLD_MIN = 0.2  # what it was told and doubts still goes on, hedged ("…, though I cannot vouch for it")


def _tellable(known: Known, listener: str | None, knowledge: Knowledge, *, asked: bool = False) -> bool:
    """A holding the listener lacks, not kept secret, not mechanical (unless asked), not told lately (unless asked),
    and never told back unasked to whoever told it, or to whoever first told anyone it."""
    if known.record_id in knowledge.secrets and listener not in knowledge.secrets[known.record_id]:
        return False
    if not asked and listener is not None and known.via in ("told", "sediment") and listener in (known.source, *known.tellers):
        # asked, it may say it back ("you told me yourself that …"); unasked, nobody is told their own news, from
        # whomever it came round
        return False
    if not asked and (known.mechanical or known.private or known.quote or known.record_id in knowledge.told
                      or known.confidence < (TOLD_MIN if known.via == "told" else 0.45)):
        return False
    return listener is None or listener not in known.holders


def choose(world: World, speaker: str, purpose: str, action: Action, knowledge: Knowledge, *,
           addressed: ThreadLine | None, arrivals: tuple[str, ...] = ()) -> Speech | None:
    """The speech act a plan calls for, and the records it carries: never a fact the speaker does not hold.

    None: a line of the speaker's own choosing (chat) with nothing to carry — better unsaid.
    """
    to = action.to if isinstance(action, Say) else getattr(action, "target", None)
    if purpose == "lead" and isinstance(action, ActOn):
        return Speech(act="lead", to=to)
    if purpose == "summon":
        return Speech(act="summon", to=to)
    if isinstance(action, ActOn) and action.verb in ("lie", "expose"):
        return Speech(act="lie" if action.verb == "lie" else "tell", to=to)
    if isinstance(action, ActOn) and action.verb in ("confront", "accuse"):
        # a deed of theirs the speaker holds, said to their face; else a demand for the truth
        about = [k for k in (*knowledge.beat, *knowledge.moment) if (to or "") in k.actors
                 and _tellable(k, to, knowledge)]
        return Speech(act="tell" if about else "ask", to=to, carries=tuple(about[:1]))
    if purpose == "answer" and addressed is not None:
        said = _answer(world, speaker, to, knowledge, addressed)
        if said is not None and said.act == "unknown" and not said.news and not said.told_all and is_asking(addressed):
            # "I do not know how Laertes is living": the asker hears which question it does not know the answer to
            said = msgspec.structs.replace(said, matter=questions.unknown_clause(
                world, questions.last_question(addressed.text), addressed.speaker, speaker, knowledge.asked))
        return said
    if purpose == "greet":
        return Speech(act="greet", to=to)
    if purpose == "tell":  # news it was told lately, on to someone who lacks it (not back to its teller)
        fresh = sorted((k for k in knowledge.news if k.source != to and _tellable(k, to, knowledge)
                        and to not in about_whom(world, k.text, k.actors, k.said_by)),
                       key=lambda k: (-int(care_of(knowledge, to, k) / NEWS_STEP), *news_first(k)))
        return Speech(act="tell", to=to, carries=tuple(fresh[:1])) if fresh else None
    if purpose == "seek":  # a goal to find something out, asked in its own words
        return Speech(act="ask", to=to, question=knowledge.questions[0]) if knowledge.questions else None
    pool = knowledge.beat if purpose in ("beat", "act") else ()
    for known in (*pool, *knowledge.moment):
        if known.score >= TELL_MIN and _tellable(known, to, knowledge):
            return Speech(act="tell", to=to, carries=(known,))
    fresh = [k for k in knowledge.lately if _tellable(k, to, knowledge)]
    if fresh:
        return Speech(act="react", to=to, carries=(fresh[-1],))
    if knowledge.questions:  # nothing to tell: ask after what its goals want to find out, in their words
        return Speech(act="ask", to=to, question=knowledge.questions[0])
    # nothing to tell and nothing to ask: a plain "what news?" or "well met" says nothing — better unsaid (a
    # greeting on arrival is a deed the menu offers, not a line)
    return None


def news_first(known: Known) -> tuple[int, int, int]:
    """The order news is passed on in: what bears most on the teller's goals and the moment first (`Known.score`,
    in steps of `NEWS_STEP`), the newest first among the like."""
    return -int(known.score / NEWS_STEP), -known.since_round, known.record_id


def care_of(knowledge: Knowledge, listener: str | None, known: Known) -> float:
    """How near a piece of news is to the listener's goals (`Knowledge.cares`; 0 when not among the nearest)."""
    for who, near in knowledge.cares:
        if who == listener:
            return next((score for record, score in near if record == known.record_id), 0.0)
    return 0.0


NEWS_STEP = 0.1  # nearness to the moment closer than this is no reason to put one piece of news before another
NEWS_ROUNDS = 6  # a holding told within this many rounds is news to pass on (Knowledge.news)
SAID_MAX = 3  # holdings one answer to "What did X tell you?" says at most
BEARS = 0.5  # relevance at which a holding answers a question it shares no word of substance with (a paraphrase)


def _answer(world: World, speaker: str, to: str | None, knowledge: Knowledge, addressed: ThreadLine) -> Speech | None:
    """A question gets the best holding about it, a denial of what it keeps, or "I do not know"; a remark, what
    bears on it, or word that it is news.

    A follow-up is answered against the last answer (who told it, when); "what did X tell you" with what X told;
    a question about nothing in particular ("What news?") with news: a holding the asker lacks. A holding answers
    an open question only when it shares a word of substance with it (or is near it in meaning, `BEARS`): the
    nearest record is not an answer to a question it does not bear on. Where someone went is an answer only to
    a question of where.
    """
    question = is_asking(addressed)
    if question and knowledge.asked.kind == "proposal" and knowledge.proposal:
        return Speech(act="answer", to=to, proposal=knowledge.proposal, verdict="no" if knowledge.declines else "yes")
    if question and knowledge.asked.kind == "intent":
        return Speech(act="answer", to=to, intent=knowledge.intent) if knowledge.intent else Speech(act="unknown", to=to)
    if question and knowledge.asked.kind != "open":
        said_on = questions.said_matter(addressed.text) or questions.source_matter(addressed.text)
        return _follow_up(to, knowledge, keys(addressed.text), keys(said_on) - _people_keys(world),
                          things=_things(world, addressed.text))
    named = keys(world.agents[speaker].name) if speaker in world.agents else set()  # "Marcellus, what news?"
    # "What news?" asks after nothing in particular; "Where is he now?" with no "he" it can tell asks after someone
    if question and not keys(addressed.text) - named and not re.search(r"\b(?:where|who|whom|when|why)\b", addressed.text,
                                                                      re.IGNORECASE):
        news = next((k for k in (*knowledge.beat, *knowledge.moment, *knowledge.lately)
                     if k.score >= TELL_MIN and _tellable(k, to, knowledge)), None)
        return Speech(act="answer", to=to, carries=(news,)) if news else Speech(act="unknown", to=to, news=True)
    whereabouts = re.search(r"\bwhere\b", addressed.text, re.IGNORECASE) is not None
    floor = ANSWER_MIN if question else TELL_MIN
    asked = as_asked(world, addressed.text, addressed.speaker, speaker)
    wanted = asked_keys(world, addressed.text, addressed.speaker, speaker, asked)
    movers: set[str] = set()
    things: set[str] = set()
    if whereabouts:
        # a where-question is answered by what places the one or the thing it asks after: a move by its mover (or
        # by the one asked, asked where "you" went), anything else only when it names the thing asked after
        where = addressed.text[re.search(r"\bwhere\b", addressed.text, re.IGNORECASE).end():]  # type: ignore[union-attr]
        movers = set(questions.people_in(world, where)) | ({speaker} if re.search(r"\byou\b", where, re.IGNORECASE) else set())
        things = _things(world, where)
    # "How much salt …?", "How many sacks …?" ask for a number: only a holding that says one answers
    counting = re.search(r"\bhow\s+(?:much|many)\b", addressed.text, re.IGNORECASE) is not None
    # "Who opened the window?" asks for the doer of a deed: only a holding of that deed (its verb, or one of the
    # same sense) with a doer answers, not the nearest record on the window
    asked_text = questions.question_of(addressed.text)
    deed = asked_deed(asked_text) if question else None
    # any who-question ("Who was down in the gallery on Sunday?") asks for a person: a holding that names none in
    # what it tells (only its teller, "Florian said the water soaked the roof") does not answer it, nor what the
    # asker told it (they know their own words)
    which = _WHICH_PERSON.match(asked_text)
    which = which if which is not None and wordnet.names_a_person(lexicon.key(which["noun"])) else None
    who = question and (asks_who(asked_text) or which is not None)
    # the person a who-question asks for is one it does not name ("Which man pointed you at the collector?" is not
    # answered by the collector's own comings and goings); asked who told or pointed, the teller of a holding is one
    # (named in so many words: the one asked, addressed or "you", may well be the one who did it)
    beside = set(render.names_in(world, by_name(world, asked_text))) - {speaker} if who else set()
    asked_verb = (which or _WHO_DID.match(asked_text) or {"verb": ""})["verb"] if who else ""
    telling = bool(asked_verb) and any(wordnet.tells(v) for v in getAllLemmas(asked_verb.lower()).get("VERB", ()))
    # "Who told the inspector …?": only a holding that names the one told (unknown to it: none does)
    told_to = questions.told_whom(world, asked_text) if question else None
    relevant = [k for k in knowledge.heard if k.score >= floor
                and (not counting or bool(guard.features(k.text).numbers))
                and (deed is None or bool(_doers(world, k)) and _does(k.text, deed))
                and (not who or _names_someone(world, k, beside, teller=telling) and k.source != addressed.speaker)
                and (told_to is None or bool(set(told_to) & set(render.names_in(world, k.text))))
                and (not k.mechanical or (whereabouts and bool(movers & _doers(world, k))))
                and (not things or movers & _doers(world, k) or bool(things & keys(k.text)))
                and (not question or _bears(world, k, wanted, wide=k.record_id in knowledge.secrets))
                and len(knowledge.matter & keys(k.text)) >= min(MATTER_WORDS, len(knowledge.matter))]
    kept = [k for k in relevant if k.record_id in knowledge.secrets and to not in knowledge.secrets[k.record_id]
            and to not in k.holders]
    # a kept deed the question is on (a word of it in common), not one merely near it in meaning: a denial of
    # what nobody asked after would draw the eye to it
    if kept and kept[0].score >= relevant[0].score - ANSWER_MARGIN and _shares(world, kept[0], wanted, wide=True):
        # asked after a deed it keeps, it gives its own story of the matter when it has told one (what it said
        # itself, on the question: "I said the crack was only frost in the mortar"), else denies knowing (a lie,
        # held as its word); after what it means to tell someone else, it will not say
        if knowledge.secrets[kept[0].record_id] == ():
            # on the matter by what it says, not by when ("Did you take the batch out early on Saturday night?" is
            # not answered by his promise of a dance on Saturday night)
            cover = _own_story(world, speaker, knowledge, [k for k in relevant if k not in kept],
                               wanted - lexicon.TIME_WORDS)
            if cover is not None:
                return _answered(world, speaker, to, cover, wanted, addressed)
        return Speech(act="lie" if knowledge.secrets[kept[0].record_id] == () else "refuse", to=to)
    relevant = [k for k in relevant if k not in kept]  # never answered with a kept deed, nor a neighbour of it
    if question:
        # what is on the question (a word of substance in common) answers it before what is only near it in
        # meaning, even when the asker holds it ("What play will you perform?": "you asked us to perform …")
        on = [k for k in relevant if _shares(world, k, wanted)]
        # and what holds more of the question's words before what holds fewer ("Did the test cans keep the water
        # out in your tank?": the record of the tank test, not one that shares only "cans"), nearness after
        # (a person the question names counts as one such word: "Which man pointed you at the collector as in the
        # pay of a nursery?" is on the holding that names Ferdinand and the nursery, before the one on pay alone)
        substance = _substance(world, wanted)
        named = set(render.names_in(world, asked)) - {speaker, addressed.speaker}
        on.sort(key=lambda k: -len(substance & keys(k.text)) - len(named & {*_doers(world, k), *render.names_in(world, k.text)}))
        relevant = on or relevant
    # a remark that told it something it did not hold before the line (by the time it answers, a line of last
    # round has landed: what it held since then is what the line told it): news to it
    held_before = {k.record_id for k in knowledge.heard if k.since_round < addressed.round} | knowledge.held_before
    told_news = bool(addressed.claims) or any(t.record not in held_before for t in addressed.tells)
    told_now = {t.record for t in addressed.tells}
    echo = addressed.claims[0].text if addressed.claims else addressed.tells[0].text if addressed.tells else ""
    relevant = [k for k in relevant if k.record_id not in told_now]  # the line's own news is no answer to it
    if not question and any(knowledge.secrets.get(t) == () for t in told_now):
        # told to its face what it keeps ("Nell tells me you carried a coil down to the keels"): never said back as
        # news, but met with its own story of the matter, else denied
        cover = _own_story(world, speaker, knowledge, relevant, wanted - lexicon.TIME_WORDS)
        return Speech(act="answer", to=to, carries=(cover,)) if cover is not None else Speech(act="lie", to=to)
    fresh = sorted((k for k in knowledge.news if _tellable(k, to, knowledge) and to not in k.actors), key=news_first)
    if not question and fresh and (told_news or not relevant):
        # a remark: news of its own the listener lacks in return ("That is news to me; and Pia told me that …")
        return Speech(act="tell", to=to, carries=tuple(fresh[:1]), heard=told_news, echo=echo if told_news else "")
    if not relevant:
        return Speech(act="unknown", to=to) if question else Speech(act="react", to=to, echo=echo) if told_news else None
    best = relevant[0]
    # what they lack, near the best; else the best even if they hold it ("you know it as well as I do"), unless
    # the speaker told it lately (then "as I said, …"); a remark gets only what they lack
    # (whoever told it does not lack it, though the store keeps their own record of it apart: the player's words)
    lacking = [k for k in relevant if k.score >= best.score - ANSWER_MARGIN and _tellable(k, to, knowledge, asked=question)
               and _not_theirs(k, to)]
    if lacking:
        # (a remark that told it something is taken in first: "You saw Dan carry the rope down to the keels? That
        # is news to me; and …", never answered as if it had not been said)
        return _answered(world, speaker, to, lacking[0], wanted, addressed) if question else \
            Speech(act="answer", to=to, carries=(lacking[0],), heard=told_news, echo=echo if told_news else "")
    if not question:
        return Speech(act="react", to=to, echo=echo) if told_news else None  # a remark with nothing to say back: unsaid
    # the closest ones they hold already: the next one that bears on the question and they lack, before
    # "you know as much as I do"
    further = next((k for k in relevant if _tellable(k, to, knowledge, asked=True) and _not_theirs(k, to)), None)
    if further is not None:
        return _answered(world, speaker, to, further, wanted, addressed)
    held = next((k for k in relevant if _tellable(k, None, knowledge, asked=True)), None)
    if held is not None and _loose(world, held, wanted, addressed) and to in held.holders:
        # what the asker holds already and is not what they asked after: no answer at all
        return Speech(act="unknown", to=to)
    if held is not None:
        # asked again what it told lately: the answer again, as such ("As I said, …"), not "that is all I know"
        return _answered(world, speaker, to, held, wanted, addressed, again=held.record_id in knowledge.told)
    return Speech(act="unknown", to=to, told_all=True)


def _own_story(world: World, speaker: str, knowledge: Knowledge, candidates: Sequence[Known],
               matter: set[str]) -> Known | None:
    """Its own word on a matter it keeps (what it said itself, on the matter): the one nearest what it means to hide
    or have believed first (`Knowledge.covers`: "I said the new rope was cut", not "I said the keelmen pay for
    rope"), else the nearest to the line."""
    own = [k for k in candidates if k.said_by == speaker and k.record_id not in knowledge.secrets
           and _shares(world, k, matter)]
    rank = {r: i for i, r in enumerate(knowledge.covers)}
    return min(own, key=lambda k: rank.get(k.record_id, len(rank)), default=None)


def _not_theirs(known: Known, listener: str | None) -> bool:
    """Whether a holding is not the listener's own telling (whoever told it does not lack it)."""
    return listener is None or (listener != known.source and listener not in known.tellers)


# "Which man …?", "Which of them …?": a who-question by its determiner
# (a noun that names a kind of person, by WordNet: "which man", "which carter")
_WHICH_PERSON = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?which\s+(?P<noun>[a-z]+)\s+(?P<verb>[a-z]+)\b", re.IGNORECASE)
_WHO_DID = re.compile(r"^\s*(?:[A-Z][\w' ]*,\s*)?who\s+(?P<verb>[a-z]+)\b", re.IGNORECASE)
_NOT_DEEDS = frozenset("told tells tell said says say heard hears knew knows know".split())  # who told: a source


def _names_someone(world: World, known: Known, beside: set[str] | frozenset[str] = frozenset(), *,
                   teller: bool = False) -> bool:
    """Whether a holding tells of a person beside its teller and those the question names (`beside`) ("Florian
    said the water soaked the roof" does not; "Florian said he went down alone" and "Tamsin saw Odo at the barn"
    do): what a who-question wants. `teller`: asked who told or pointed, its teller is such a person; so is the
    teller of what is said of one the question names ("Who put it into your head that Ferdinand is in a London
    nursery's pocket?": "Pieter said Ferdinand …")."""
    found = set(render.names_in(world, known.text))
    named = found - ({known.said_by} if not (teller or beside & found) else set()) - beside
    teller_did = known.said_by is not None and _TELLER_DID.search(known.text) is not None
    return bool(named) or teller_did


_TELLER_DID = re.compile(r"\b(?:said|says|told\s+\w+(?:\s+\w+)?)\s+(?:that\s+)?(?:he|she|they)\b", re.IGNORECASE)


def asks_who(text: str) -> bool:
    """Whether a question asks who (did, was, is something, or told someone else), not who told it (a source
    question is read apart)."""
    found = _WHO_DID.match(text)
    return found is not None and (found["verb"].lower() not in _NOT_DEEDS or questions.told_whom_asked(text))


def asked_deed(text: str) -> str | None:
    """The verb a who-question asks the doer of ("Who opened the pantry window?" -> "opened"); None for one that
    asks who is, was or did something else ("Who was in the lane?", "Who did you see?") or who told it."""
    found = _WHO_DID.match(text)
    if found is None:
        return None
    verb = found["verb"].lower()
    if verb in guard._AUXILIARIES or verb in _NOT_DEEDS or "VERB" not in getAllLemmas(verb):
        return None
    return verb


def _does(text: str, verb: str) -> bool:
    """Whether a holding's text tells the deed of `verb`: one of its verbs of the same concept or WordNet sense."""
    wanted = set(getAllLemmas(verb).get("VERB", (verb,)))
    if lexicon.concept(verb) in guard.deeds(text):
        return True
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in guard._AUXILIARIES:
            continue  # "was" is no standing: a copula or auxiliary tells no deed of its own
        lemmas = getAllLemmas(word).get("VERB", ())
        if any(wordnet.one_deed(a, b, DEED_SENSES) for a in wanted for b in lemmas):
            return True
    return False


DEED_SENSES = 5  # a who-question's verb and a holding's name one deed within their commonest senses (wordnet.one_deed)


def _things(world: World, text: str) -> set[str]:
    """The keys of the words of a text that can name a thing (a noun reading), people's names and question words
    left out: what a question asks after, beside its verbs ("where the silver spoon went": spoon, silver)."""
    return {lexicon.key(w) for w in lines.words(text) if "NOUN" in getAllLemmas(w)} - _people_keys(world) - QUESTION_WORDS


def _doers(world: World, known: Known) -> set[str]:
    """Who a holding says did it: its typed actors, else (a record from before they were typed) whom it names."""
    return set(known.actors) or set(render.names_in(world, known.text))


def _answered(world: World, speaker: str, to: str | None, known: Known, wanted: set[str], addressed: ThreadLine,
              again: bool = False) -> Speech:
    """A question's answer carrying one holding: "yes" or "no" first when it settles a yes-or-no question of fact,
    else said as near the question only (`_loose`) when no word of it is on it."""
    verdict = _verdict(world, questions.as_statement(world, addressed.text, addressed.speaker, speaker), known)
    return Speech(act="answer", to=to, carries=(known,), again=again, verdict=verdict,
                  loose="" if verdict else _loose(world, known, wanted, addressed))


def _verdict(world: World, statement: str | None, known: Known) -> Literal["", "yes", "no"]:
    """Whether a holding settles the statement a yes-or-no question asks after, by the merge guard's own reading:
    "yes" when it says all of it (and maybe more) with nothing swapped; "no" when it says the same of the same
    matter but for a contradiction (a negation, an opposite, another place, time, number or person); else "".
    A sight ("Bettany saw Odo drag the sacks") settles what was seen ("Did Odo drag the sacks?")."""
    if statement is None or known.status != "believed" or known.mechanical:
        return ""
    seen = _PERCEIVED.match(known.text)
    held = [known.text]
    if seen and list(render.names_in(world, seen.group("who"))):
        held.append(render.sentence(render.deed_seen(world, seen.group("what"))))
    for text in held:
        verdict = guard.check(statement, text)
        if verdict.ok and frames.covers(text, statement):
            return "yes"
        if not verdict.ok and verdict.contradiction and frames.similarity(statement, text) >= VERDICT_SAME:
            return "no"
    return ""


_PERCEIVED = re.compile(r"^(?P<who>[A-Z][\w' -]*?)\s+(?:saw|watched|noticed|spotted|heard)\s+(?P<what>.+?)\.?$")


MATTER_WORDS = 2  # words of a matter (all, when it has fewer) a holding shares to answer what to do about it
VERDICT_SAME = 0.5  # frame overlap at which a holding that contradicts a yes-or-no question is on its matter


def _loose(world: World, known: Known, wanted: set[str], addressed: ThreadLine
           ) -> Literal["", "unsure", "unknown", "only"]:
    """How an answer that is near the question only in meaning is said (see `Speech.loose`); "" when it is on it."""
    if _shares(world, known, wanted):
        return ""
    if questions.is_polar(addressed.text):
        return "unsure"
    return "unknown" if "?" in addressed.text else "only"


def _shares(world: World, known: Known, wanted: set[str], *, wide: bool = False) -> bool:
    """Whether a holding has a word of substance of the question (beyond people's names), or the question has none;
    `wide`: words of time, seeing and telling count too (see `_substance`)."""
    substance = _substance(world, wanted, wide=wide)
    return not substance or bool(substance & keys(known.text))


def _substance(world: World, wanted: set[str], *, wide: bool = False) -> set[str]:
    """A question's words of substance: neither people's names nor the prepositions that join them ("into" in
    common is no answer to a question about moss), nor, beside others, its words of time ("a candle in the
    scriptorium on Tuesday night" is on the candle: a lantern seen another night is no answer to it) or of seeing and
    telling ("Did you see him in the machine room?" is on the machine room, not on whatever else was seen).
    `wide` keeps those: what one keeps is guarded against any question near it ("Did you unlock the gate at night?"
    is on the wagons let over the bridge at night)."""
    substance = wanted - _people_keys(world) - frames.PREPOSITIONS
    if wide:
        return substance
    return substance - SPEECH_WORDS - lexicon.TIME_WORDS or substance - SPEECH_WORDS or substance


def _bears(world: World, known: Known, wanted: set[str], *, wide: bool = False) -> bool:
    """Whether a holding bears on what a question asks: a word of substance in common, or near it in meaning
    (`BEARS`); a question that asks after nothing but people ("What do you know of Fen?") is borne on only by
    what names them, did by them or was told by them. `wide`: see `_substance`."""
    people = _people_keys(world)
    substance = _substance(world, wanted, wide=wide)
    text = keys(known.text)
    if substance:
        # a move or a look around is near many questions in meaning and answers none of them by nearness alone
        return bool(substance & text) or (known.score >= BEARS and not known.mechanical)
    by = {w for a in (known.source, *known.actors) if a in world.agents for w in keys(world.agents[a].name)}
    return bool(wanted & (text | by))


def _follow_up(to: str | None, knowledge: Knowledge, asked_words: set[str],
               matter: frozenset[str] | set[str] = frozenset(), things: set[str] | frozenset[str] = frozenset()) -> Speech:
    """A shaped question's answer from typed fields: where the last answer came from, when it happened, what the
    one named told, where the one asked after was last known to be; else "I do not know"."""
    asked = knowledge.asked
    if asked.kind in ("source", "when"):
        # what the last answer rested on; else what the question, with the line before it, recalls surely
        # (a question that names what it asks the source of, "Who told you somebody went down the lane with a
        # light?", is on the holding that names those things, not on whatever came nearest)
        # (or one that says two of the question's words of substance, nearer than an answer needs: "Who told you
        # that Ferdinand is in the pay of a London nursery?" is on "… taking money from a London nursery")
        named = [k for k in knowledge.heard if (k.score >= BEARS or k.score >= ANSWER_MIN and len(matter & keys(k.text)) >= 2)
                 and (not things or things & keys(k.text))]
        # of those, the one that says most of what was named ("…dragged sacks out of the barn": the dragging)
        # (what it says before whom it names: "Who told you Anton left the props short?" is on the props cut short,
        # not on Anton's word about the props)
        named.sort(key=lambda k: (-len(matter & keys(k.text)), -len(asked_words & keys(k.text))))
        # the last answer, unless the question names more of what another holding is on ("Who told you the hasp was
        # rusted through?" after an answer on the town council is on the hasp)
        # (or more of what it says: "Who told you Anton left the props short?" after an answer with Anton's word that
        # he measured every prop is on the one that says the props were cut short)
        prior = knowledge.previous[:1]
        if prior and named and any(len(words & keys(named[0].text)) > len(words & keys(prior[0].text))
                                   for words in (things, matter) if words):
            prior = ()
        earlier = prior or tuple(named[:1])
        if not earlier:
            return Speech(act="unknown", to=to)
        # "Who told you that Tobiah was at the wagon?" names its matter: the answer says it back with its source
        return Speech(act="answer", to=to, carries=earlier, focus=asked.kind,
                      restate=bool(asked_words & keys(earlier[0].text)))
    found = [k for k in knowledge.pointed if k.record_id not in knowledge.secrets or to in knowledge.secrets[k.record_id]]
    if not found:
        return Speech(act="unknown", to=to)
    if asked.kind == "said_by":  # everything the one named told, in the order it was told (up to three)
        if matter:  # "What did Desmond say Golden Sheaf would do?": only what they told of that
            found = [k for k in found if matter & keys(k.text)]
            if not found:
                return Speech(act="unknown", to=to)
        told = sorted(found[:SAID_MAX], key=lambda k: (k.since_round, k.record_id))
        return Speech(act="answer", to=to, carries=tuple(told))
    if asked.kind == "where_now":  # the line places the one asked after, not whoever else the record names
        return Speech(act="answer", to=to, carries=tuple(found[:1]), focus="where", about=asked.people[0])
    return Speech(act="answer", to=to, carries=tuple(found[:1]))


def topics(world: World, speaker: str, listener: str | None, knowledge: Knowledge,
           present: tuple[str, ...] = ()) -> list[str]:
    """Whom a question may be about: people named in what bears on the beat or the moment (so the asker
    knows of them), not the asker, not the one asked, nobody standing here; the most relevant first."""
    found: dict[str, None] = {}
    seen: set[str] = set()
    for known in (*knowledge.beat, *knowledge.moment):
        if known.score < TELL_MIN:
            continue
        for span in render.find_names(world, known.text):
            # by the name the speaker knows them by ("Doctor Lisle", not the persona's "Anselm Lisle")
            if span.agent not in (speaker, listener) and span.agent not in present and span.agent not in seen:
                seen.add(span.agent)
                found[render.inline(known.text[span.start:span.end])] = None
    return list(found)
