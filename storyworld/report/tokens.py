"""The scorers' own reading of words: a tokenizer, a stopword list, crude stems and the world's names.

Everything here is written for measuring and shares nothing with the code that produces lines
(`storyworld.minds`, memory's lexicon, guard and frames): a figure computed with the producer's own
word lists would agree with the producer by construction (DESIGN §4.2b, "Measured apart").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from storyworld.world import World

_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*|\d+")

# Function words, pronouns, auxiliaries, stock verbs of talk and greeting, question words: what a line can
# be made of without saying anything about the world.
STOPWORDS = frozenset("""
a an the and or but nor so yet if then than as at by for from in into of off on onto out over to up upon with
within without about above across after against along among around before behind below beneath beside between
beyond down during except inside near since through till toward towards under until via
i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers
herself it its itself they them their theirs themselves one ones someone somebody anyone anybody everyone
everybody nobody noone something anything everything nothing
this that these those there here where when why how what which who whom whose whoever whatever
am is are was were be been being do does did doing done have has had having will would shall should can could
may might must ought let lets let's
not no nor never none yes aye nay ay
all any both each either every few more most much many other others some such own same very too also just only
even still again ever once now soon already quite rather really perhaps maybe indeed well oh ah alas o
say says said saying tell tells told telling speak speaks spoke spoken ask asks asked hear heard hears know knows
knew known think thinks thought see seen saw look looks looked come comes came go goes went gone get got give gave
make made take took want wants like
greet greets greeted greeting welcome hello good morning day evening night friend fare farewell met meet
thank thanks sir madam lady lord master mistress please pray glad pleased
i'm i've i'll i'd you're you've you'll you'd he's she's it's we're we've they're they've that's there's
what's who's don't doesn't didn't won't wouldn't can't cannot couldn't shouldn't isn't aren't wasn't weren't
haven't hasn't hadn't
thing things way time while sure true right let
news tidings happen happens happened happening
""".split())

# How a reply says it does not know (the scorer's own list; a reply that says so is honest, not filler).
UNKNOWN_PHRASES = (
    "do not know", "don't know", "dont know", "did not know", "didn't know", "not know", "no idea",
    "cannot say", "can't say", "could not say", "cannot tell", "can't tell", "know nothing", "knew nothing",
    "never heard", "have not heard", "haven't heard", "heard nothing", "not heard", "not sure", "no notion",
    "nothing of", "i could not tell", "no one told me", "nobody told me", "not that i know",
    "beyond what i know", "beyond me", "no knowledge", "unknown to me", "wouldn't know", "would not know",
    "couldn't tell", "couldn't say", "have no word", "no word of", "nobody has told me", "no one has told me",
    "told me nothing", "not been told",
)

# Words that say when (the scorer's own list, for "When was that?" follow-ups).
TIME_WORDS = frozenset("""
round rounds today yesterday tonight morning evening night nights dawn dusk noon midnight hour hours day days
week weeks ago earlier later before after last first since then moment minute minutes while once just recently
monday tuesday wednesday thursday friday saturday sunday season winter summer spring autumn year years
""".split())


def fold(text: str) -> str:
    """Lowercase, width-folded text with curly apostrophes made straight."""
    return unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")


def tokens(text: str) -> list[str]:
    """The words of a text, lowercased, apostrophes kept inside words, numbers as their own tokens."""
    return _TOKEN.findall(fold(text))


def stem(word: str) -> str:
    """A crude stem, so "sailed"/"sails"/"sailing" meet: a possessive and one common ending dropped."""
    word = word.removesuffix("'s").removesuffix("'")
    for ending in ("ings", "ing", "edly", "ied", "ies", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            if ending in ("ied", "ies"):
                word += "y"
            break
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiousl":
        word = word[:-1]  # "stopped" -> "stopp" -> "stop"
    return word


def content_words(text: str, names: Iterable[str] = ()) -> set[str]:
    """Stems of a text's words that are neither stopwords, numbers, single letters nor words of `names`."""
    skip = set(names)
    return {stem(w) for w in tokens(text)
            if w not in STOPWORDS and w not in skip and not w.isdigit() and len(w) > 1 and stem(w) not in skip}


def stems(text: str) -> set[str]:
    """Stems of every word of a text (stopwords too)."""
    return {stem(w) for w in tokens(text)}


def is_question(text: str) -> bool:
    """A line that asks: it ends with a question mark."""
    return text.rstrip(" \"'\u201d)").endswith("?")


def says_unknown(text: str) -> bool:
    """Whether a line says its speaker does not know."""
    folded = " ".join(tokens(text))
    return any(phrase in folded for phrase in (" ".join(tokens(p)) for p in UNKNOWN_PHRASES))


def carries(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """Whether a text has a word (or phrase) of every group; stems are compared, so tense and plural do not matter."""
    if not groups:
        return False
    said = [stem(w) for w in tokens(text)]
    joined = f" {' '.join(said)} "
    for group in groups:
        if not any(f" {' '.join(stem(w) for w in tokens(option))} " in joined for option in group if tokens(option)):
            return False
    return True


class Names:
    """The world's names, read from its file: people (names, aliases, first names), places and objects."""

    def __init__(self, world: World) -> None:
        self.people: dict[str, tuple[str, ...]] = {}
        for agent in world.file.agent:
            forms = [agent.name, *agent.aliases]
            self.people[agent.id] = tuple(dict.fromkeys(f for f in forms if f.strip()))
        # the pronoun the world file gives each person ("he", "she", "they"), for questions that point back to them
        self.pronouns: dict[str, str] = {agent.id: agent.pronouns for agent in world.file.agent}
        self.places: dict[str, str] = {p.id: p.name for p in world.file.place}
        # words the world's own texts write in lower case: common words, not names ("the prior")
        texts = [a.description for a in world.agents.values()] + [e.text for e in world.events]
        self.lower_words = frozenset(w for t in texts for w in re.findall(r"\b[a-z][a-z']*\b", t))
        self.objects: dict[str, str] = {o.id: o.name for o in world.file.object}
        self.person_words = frozenset(stem(w) for forms in self.people.values() for f in forms for w in tokens(f)
                                      if w not in STOPWORDS)
        self.place_words = {pid: frozenset(stem(w) for w in tokens(name) if w not in STOPWORDS)
                            for pid, name in self.places.items()}
        # a character knows the places and things of its world by name
        self.geography = frozenset({w for ws in self.place_words.values() for w in ws} | {
            stem(w) for name in self.objects.values() for w in tokens(name) if w not in STOPWORDS})
        self.all_words = self.person_words | self.geography

    def words_of(self, agent: str) -> frozenset[str]:
        """The stems of one person's name, aliases and their first names (titles and articles left out)."""
        return frozenset(stem(w) for f in self.people.get(agent, ()) for w in tokens(f) if w not in STOPWORDS)

    def first_name(self, agent: str) -> str:
        """What a person is called for short: the first word of their name, unless that word is a title (it starts
        another person's name too, "Brother" of "Brother Osric" and "Brother Anselm", or the world's own texts
        write it in lower case, "Prior" of "Prior Geoffrey", or it is a form of address, "Master"); then the whole
        name, which names them alone."""
        forms = self.people.get(agent, ())
        if not forms or not forms[0].split():
            return agent
        name = forms[0]
        first = name.split()[0]
        if len(name.split()) == 1:
            return name
        shared = any(other != agent and f.split()[:1] == [first] for other, fs in self.people.items() for f in fs)
        return name if shared or first.lower() in STOPWORDS or first.lower() in self.lower_words else first

    def names(self, text: str, agent: str) -> bool:
        """Whether a text names the person: its full name, an alias, or the first word of either."""
        said = stems(text)
        for form in self.people.get(agent, ()):
            words = [stem(w) for w in tokens(form) if w not in STOPWORDS]
            if words and (set(words) <= said or words[0] in said):
                return True
        return False

    def people_named(self, text: str) -> list[str]:
        """Every person a text names."""
        return [agent for agent in self.people if self.names(text, agent)]

    def place_named(self, text: str) -> bool:
        """Whether a text names a place of the world (every content word of its name)."""
        said = stems(text)
        return any(words and words <= said for words in self.place_words.values())

    def resolve(self, wanted: str) -> str | None:
        """An agent id from an id, a name or an alias (case-insensitive), else None."""
        key = " ".join(fold(wanted).split())
        for agent, forms in self.people.items():
            if key == agent.casefold() or key in {" ".join(fold(f).split()) for f in forms}:
                return agent
        return None
