"""What makes a spoken line acceptable: sentence endings, and the checks that reject garbage."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

_WORD = re.compile(r"[\w']+", re.UNICODE)
# an initial or a title is no sentence's end ("J. Marr", "Dr. Salt")
_NOT_ENDS = (r"[A-Z]", "Mr", "Mrs", "Ms", "Dr", "St")
_NOT_AN_END = "".join(rf"(?<!\b{word})" for word in _NOT_ENDS)
_SENTENCE_END = re.compile(_NOT_AN_END + r"[.!?…][\"')\]]*(?=\s|$)")
SENTENCE_BREAK = re.compile(r"(?<=[.!?])" + "".join(rf"(?<!\b{word}\.)" for word in _NOT_ENDS) + r"\s+")
# words from prompts and schemas that a weak model copies into its reply
FIELD_WORDS = frozenset({
    "json", "action", "act_on", "read_thread", "observe", "wait", "verb", "target", "schema", "exits", "round",
    "assistant", "user", "system", "prompt", "reply", "line", "choose", "option", "options",
})
ROBOT_PHRASES = ("as an ai", "language model", "i'm sorry, but", "i cannot", "here is", "here's a", "sure!",
                 "in character", "your line", "the line", "next line")
MIN_WORDS = 3
# the dialogue prompt's own phrasing: a line that says these is reading the prompt back
SCAFFOLD = ("has just said", "in the story, next", "write what")
SPEAKER_WORDS = frozenset({"i", "me", "my", "mine", "we", "us", "our", "you", "your", "yours", "thou", "thee", "thy",
                           "ye", "let's", "i'm", "i'll", "i've", "you're", "we're", "i'd", "you'll", "we'll"})
NARRATOR_WORDS = frozenset({"he", "his", "him", "she", "her", "they", "their"})


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return [w.lower() for w in _WORD.findall(text)]


def end_at_sentence(text: str, limit: int) -> str:
    """The text cut to at most `limit` characters at its last sentence end; "" when no sentence ends in it.

    A line cut off mid-sentence ends instead at its last clause (";", ":" or "," after five words or
    more), closed with a full stop; shorter remains are no line at all.
    """
    text = " ".join(text.split()).strip().strip('"').strip()
    window = text[: limit + 1]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if ends:
        return window[: ends[-1]].strip()
    clauses = [m.start() for m in re.finditer(r"[;:,—]", window)]
    for cut in reversed(clauses):
        head = window[:cut].strip()
        if len(words(head)) >= 5:
            return head + "."
    return ""


def clip(text: str, limit: int) -> str:
    """Text with its whitespace folded, cut at a word boundary to `limit` characters (an ellipsis marks the cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def first_sentences(raw: str, limit: int, *, longest: int = 2) -> str:
    """Whole sentences from the start up to `limit` characters (at least the first, up to `longest` times the
    limit); else a closed clause."""
    text = " ".join(raw.split()).strip().strip('"').strip()
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    fitting = [e for e in ends if e <= limit]
    if fitting:
        return text[: fitting[-1]].strip()
    if ends and ends[0] <= longest * limit:
        return text[: ends[0]].strip()
    return end_at_sentence(text, limit)


def similarity(a: str, b: str) -> float:
    """Word-set overlap (Jaccard) of two lines, 0..1."""
    wa, wb = set(words(a)), set(words(b))
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def _ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def problems(line: str, *, names: Iterable[str] = (), prompt: str = "", earlier: Iterable[str] = (),
             heard: str | Iterable[str] = "", speaker: str = "", addressee: str = "",
             overheard: Iterable[str] = ()) -> list[str]:
    """Why a line is not fit to be spoken (empty list: fit). Used by the mind and by `bench play`.

    `names` are the world's names (a line made of them is a list, not speech); `prompt` is the text the
    model was shown (long copied runs are echoes); `earlier` are the speaker's own earlier lines; `heard`
    is the line it answers (parroting it back is not an answer); `overheard`, other talk nearby (only a
    near copy of it counts).
    """
    found: list[str] = []
    tokens = words(line)
    if len(tokens) < MIN_WORDS:
        return ["fragment"]
    lowered = line.lower()
    if _only_names(line, names):
        found.append("list of names")
    if any(t in FIELD_WORDS for t in tokens) and ("{" in line or "_" in line or sum(t in FIELD_WORDS for t in tokens) >= 2):
        found.append("field names")
    if any(c in line for c in "{}[]<>|\\") or "http" in lowered:
        found.append("markup")
    if any(p in lowered for p in ROBOT_PHRASES):
        found.append("out of character")
    if any(phrase in lowered for phrase in SCAFFOLD):
        found.append("echo of the prompt")
    if prompt:
        echoed = _ngrams(tokens, 6) & _ngrams(words(prompt), 6)
        if echoed:
            found.append("echo of the prompt")
    name_words = {w for name in names for w in words(name)}
    if _stutters(tokens, name_words):
        found.append("stutter")
    if not SPEAKER_WORDS & set(tokens) and NARRATOR_WORDS & set(tokens):
        found.append("narration, not speech")
    if speaker and _names_in(speaker, tokens):
        found.append("speaker names themself")
    if addressee and _names_in(addressee, tokens, skip_vocative=True):
        found.append("talks about the addressee")
    if any(similarity(line, old) >= 0.7 for old in earlier):
        found.append("repeat")
    heard_lines = [heard] if isinstance(heard, str) else list(heard)
    if any(h and similarity(line, h) >= 0.75 for h in heard_lines) or any(
            h and similarity(line, h) >= 0.9 for h in overheard):
        found.append("parrot")
    return found


_GLUE = frozenset({"and", "the", "to", "of", "a", "an", "in", "see", "with", "at", "on"})


def _only_names(line: str, names: Iterable[str]) -> bool:
    """Whether the line is names strung together: with every name taken out, under two other words remain."""
    rest = f" {line.lower()} "
    for name in sorted({n.lower() for n in names if n.strip()}, key=len, reverse=True):
        rest = rest.replace(name, " ")
        bare = re.sub(r"^(the|a|an)\s+", "", name)
        if len(bare) > 2:
            rest = rest.replace(bare, " ")
    return len([w for w in words(rest) if w not in _GLUE]) < 2


def _names_in(name: str, tokens: list[str], *, skip_vocative: bool = False) -> bool:
    """Whether a person's distinctive name word occurs in the tokens (after the opening vocative, if asked)."""
    own = [w for w in words(name) if len(w) > 2 and w not in {"the", "first", "second", "lord", "lady", "king", "queen"}]
    body = tokens
    if skip_vocative:
        start = 0
        while start < len(body) and body[start] in words(name):
            start += 1
        body = body[start:]
    body = [w[:-2] if w.endswith("'s") else w for w in body]
    return any(w in body for w in own)


def _stutters(tokens: list[str], name_words: Collection[str] = frozenset()) -> bool:
    """A word three times running, or a phrase of 1-4 words said twice in a row, or one word as a third of the line."""
    for i in range(len(tokens) - 2):
        if tokens[i] == tokens[i + 1] == tokens[i + 2]:
            return True
    for size in (2, 3, 4):
        for i in range(len(tokens) - 2 * size + 1):
            if tokens[i : i + size] == tokens[i + size : i + 2 * size]:
                return True
    # a name said twice ("to Zhuo county … to Zhuo county") is emphasis, not a stutter
    grams = [g for g in (tuple(tokens[i : i + 3]) for i in range(len(tokens) - 2))
             if sum(t in name_words for t in g) < 2]
    if len(grams) != len(set(grams)):
        return True  # "a true friend, and the only true friend, and a true friend"
    if len(tokens) >= 9:
        counts: dict[str, int] = {}
        for t in tokens:
            if len(t) > 3:
                counts[t] = counts.get(t, 0) + 1
        if counts and max(counts.values()) * 3 > len(tokens):
            return True
    return False


def proper_words(text: str) -> list[str]:
    """Capitalised words that do not open a sentence (in English: names). A word after a comma is no sentence's
    opening: "Dorotea Vask, Maraconez, asked me" names a Maraconez."""
    found: list[str] = []
    for part in re.split(r"(?<=[.!?;:])\s+", text):
        tokens = re.findall(r"[\w']+", part)
        found.extend(w for w in tokens[1:] if w[:1].isupper() and w not in ("I", "I'm", "I'll", "I've", "I'd"))
    return found


def parrots(line: str, others: Iterable[str], share: float = 0.5) -> bool:
    """Whether at least `share` of a line's word trigrams were said by others (this round or the last)."""
    grams = _ngrams(words(line), 3)
    if not grams:
        return False
    theirs: set[tuple[str, ...]] = set()
    for other in others:
        theirs |= _ngrams(words(other), 3)
    return len(grams & theirs) >= share * len(grams)


DEGENERATE = frozenset({"fragment", "list of names", "echo of the prompt", "field names", "markup", "stutter"})


def degenerate(line: str, *, names: Iterable[str] = (), prompt: str = "") -> bool:
    """The `bench play` test for a degenerate line: fragment, name list, echo, field names, stutter."""
    return bool(set(problems(line, names=names, prompt=prompt)) & DEGENERATE)
