"""One wording for statements that say one fact in different words, before the merge guard compares them.

A retelling may spell a number out ("three hundred and eighteen" / "318"), name the other side of
an exchange ("Ilario won twenty crowns from Dorotea" / "Dorotea lost twenty crowns to Ilario"), or
name a person in part ("Margery" / "Margery Dunn", "Sergeant Harrow" / "Linnea Harrow"). The guard
reads numbers, names and who acts from the words, so both statements are first put in one form:
numbers as digits, the converse of an exchange turned to its giver's side, and names cut to what
the two statements share.
"""

from __future__ import annotations

from functools import lru_cache

from memory import frames, lexicon

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "single": 1, "dozen": 12,
}
_NOT_COUNTING = frozenset("no any every some each which that this the".split())
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}

# Converse exchanges: (verb key of the taker's side, preposition before the giver) -> the giver's verb.
# "B bought X from A" is "A sold X to B"; the taker's wording is turned to the giver's.
_CONVERSES = {
    (lexicon.key("buy"), "from"): "sold",
    (lexicon.key("purchase"), "from"): "sold",
    (lexicon.key("receive"), "from"): "gave",
    (lexicon.key("get"), "from"): "gave",
    (lexicon.key("win"), "from"): "lost",
    (lexicon.key("borrow"), "from"): "lent",
    (lexicon.key("inherit"), "from"): "left",
    (lexicon.key("learn"), "from"): "told",
    (lexicon.key("hear"), "from"): "told",
}
_STOPS = frozenset("in at on by with for during before after when while because and but".split())


def numbers_as_digits(toks: list[str]) -> list[str]:
    """Tokens with spelled-out cardinal numbers as digits ("three hundred and eighteen" -> "318", "a single" -> "1")."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        low = toks[i].lower()
        if low == "one" and ((out and out[-1].lower() in _NOT_COUNTING) or (i + 1 < len(toks) and toks[i + 1].lower() in ("of", "another"))):
            out.append(toks[i])  # "no one", "one of them": not a count
            i += 1
            continue
        if low not in _UNITS and not (low in _SCALES and out and out[-1].lower() in ("a", "one")):
            out.append(toks[i])
            i += 1
            continue
        if low in _SCALES:  # "a hundred": the article was the number
            out.pop()
        total, current, j = 0, 0, i
        while j < len(toks):
            word = toks[j].lower()
            if word in _UNITS:
                current += _UNITS[word]
            elif word in _SCALES:
                current = max(current, 1) * _SCALES[word]
                if _SCALES[word] >= 1000:
                    total, current = total + current, 0
            elif word == "and" and j + 1 < len(toks) and toks[j + 1].lower() in _UNITS and j > i:
                pass
            else:
                break
            j += 1
        out.append(str(total + current))
        i = j
    return out


def _converse(toks: list[str]) -> list[str]:
    """Tokens with "B bought X from A" turned to "A sold X to B" (one exchange, the giver's side)."""
    lows = [t.lower() for t in toks]
    for i in range(1, len(lows)):
        if lows[i - 1] in ("was", "were", "is", "are", "be", "been", "to", "not", "never") or lows[i - 1].endswith("n't"):
            continue  # a passive or an infinitive keeps its own wording
        k = lexicon.key(lows[i])
        for j in range(i + 1, min(len(lows), i + 8)):
            if toks[j] in frames.PUNCT:
                break
            verb = _CONVERSES.get((k, lows[j]))
            if verb is None:
                continue
            end = j + 1
            while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS:
                end += 1
            if end == j + 1:
                break
            giver, taker, thing = toks[j + 1 : end], toks[:i], toks[i + 1 : j]
            return [_case(giver[0], True)] + giver[1:] + [verb] + thing + ["to", _case(taker[0], False)] + taker[1:] + toks[end:]
    return toks


def _case(word: str, first: bool) -> str:
    """A word moved to or from the start of the sentence: only a leading article changes case."""
    if word.lower() in ("the", "a", "an", "his", "her", "their", "its", "our", "my", "your"):
        return word.capitalize() if first else word.lower()
    return word


@lru_cache(maxsize=65536)
def canonical(text: str) -> str:
    """The statement with its reporting frame read through, a fronted adverbial moved back, numbers as digits and
    a converse exchange turned to its giver's side."""
    core = frames.core(text)
    toks = _converse(numbers_as_digits(frames.tokens(core)))
    return frames.join(toks)


def pair(text_a: str, text_b: str) -> tuple[str, str]:
    """Both statements in canonical form with their names aligned (frames.align_names)."""
    return frames.align_names(canonical(text_a), canonical(text_b))
