"""One wording for statements that say one fact in different words, before the merge guard compares them.

A retelling may spell a number out ("three hundred and eighteen" / "318"), name the other side of
an exchange ("Ilario won twenty crowns from Dorotea" / "Dorotea lost twenty crowns to Ilario"), put
the deed in the passive ("The proof was handed to Osric by Agathe"), bound a count from above ("did
not pull more than one proof" / "pulled only one proof", "nobody but Ambrose" / "only Ambrose"),
attribute what it says ("According to Tobiah, he ..." / "Tobiah said he ...") or name a person in
part ("Margery" / "Margery Dunn", "Sergeant Harrow" / "Linnea Harrow"). The guard reads numbers,
names and who acts from the words, so both statements are first put in one form: numbers as digits,
an agent's passive in the active voice, "only" for an upper bound, an attribution the reading of
frames.report_core cannot read through as "X said", the converse of an exchange turned to its
giver's side, and names cut to what the two statements share.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from lemminflect import getAllInflections, getAllLemmas, getInflection

from memory import frames, lexicon, wordnet

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "single": 1,
}
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_NOT_COUNTING = frozenset("no any every some each which that this the".split())
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "dozen": 12}  # "a dozen", "two dozen"

# Converse exchanges: (verb key of the taker's side, preposition before the giver) -> the giver's verb.
# "B bought X from A" is "A sold X to B"; the taker's wording is turned to the giver's.
_CONVERSES = {
    (lexicon.key("buy"), "from"): "sold",
    (lexicon.key("purchase"), "from"): "sold",
    (lexicon.key("receive"), "from"): "gave",
    (lexicon.key("get"), "from"): "gave",
    (lexicon.key("win"), "from"): "lost",
    (lexicon.key("win"), "against"): "lost",  # "won the match against B": B lost it to the winner
    (lexicon.key("borrow"), "from"): "lent",
    (lexicon.key("inherit"), "from"): "left",
    (lexicon.key("learn"), "from"): "told",
    (lexicon.key("hear"), "from"): "told",
    (lexicon.key("rent"), "from"): "rented",  # "rented the room from the widow": she rented it to him
    (lexicon.key("lease"), "from"): "leased",
}
# One outdoing or following another told from the other side, or by a place in a rank: (verb key, the word after it,
# "" for none) -> (the outdoer's verb, whether the two are turned round). "B lost to A" is "A beat B"; "A ranks above
# B" is "A outranks B"; "B preceded A" is "A succeeded B".
_OUTDONE = {
    (lexicon.key("lose"), "to"): ("beat", True),
    (lexicon.key("rank"), "below"): ("outrank", True),
    (lexicon.key("rank"), "beneath"): ("outrank", True),
    (lexicon.key("rank"), "under"): ("outrank", True),
    (lexicon.key("rank"), "above"): ("outrank", False),
    (lexicon.key("precede"), ""): ("succeed", True),  # one after another in a post, or in time
}
STOPS = _STOPS = frozenset("in at on by with for during before after when while because and but".split())
_POSSESSIVE_OF = {"her": "her", "him": "his", "them": "their"}


def numbers_as_digits(toks: list[str]) -> list[str]:
    """Tokens with spelled-out cardinal numbers as digits ("three hundred and eighteen" -> "318", "a single" -> "1",
    "thirty-one" -> "31")."""
    toks = [part for tok in toks for part in _number_parts(tok)]
    toks = [tok.replace(",", "") if _THOUSANDS.fullmatch(tok) else tok for tok in toks]  # "3,000" is "3000"
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


_FRACTIONS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5, "fifths": 5,
              "tenth": 10, "tenths": 10}
# every span up to a fortnight in minutes, so that "four days", "ninety-six hours" and "5760 minutes" are one wording
_MINUTES_IN = {"hour": 60, "hours": 60, "day": 1440, "days": 1440, "week": 10080, "weeks": 10080,
               "fortnight": 20160, "fortnights": 20160}
_IN_MINUTES = _MINUTES_IN | {"minute": 1, "minutes": 1}
_YEARS_IN = {"decade": 10, "decades": 10}
_MONTHS_IN = {"year": 12, "years": 12}
_PART_OF: dict[tuple[str, ...], float] = {("and", "a", "half"): 0.5, ("and", "a", "quarter"): 0.25, ("and", "3", "quarters"): 0.75}
# Old money in pence: a sum told in shillings and pence, crowns or coins is one figure ("half a crown", "2 shillings
# and sixpence" and "30 pence" are one sum); a sum in pounds alone stays as it is.
_PENCE_IN = {"pound": 240, "pounds": 240, "sovereign": 240, "sovereigns": 240, "guinea": 252, "guineas": 252,
             "crown": 60, "crowns": 60, "florin": 24, "florins": 24, "shilling": 12, "shillings": 12, "penny": 1,
             "pence": 1, "pennies": 1}
# units reckoned in pence even alone ("a florin" is "2 shillings"); pounds and crowns alone may be any realm's
_RECKONED = frozenset("shilling shillings penny pence pennies florin florins guinea guineas".split())
_COINS = {"sixpence": 6, "threepence": 3, "fourpence": 4, "twopence": 2, "tuppence": 2}


def _money_term(lows: list[str], i: int, reckon: bool = False) -> tuple[int, int] | None:
    """(pence, tokens read) of one term of a sum at i: "half a crown", "2 shillings", "a shilling", "sixpence", and
    with `reckon` "a crown" and "4 and a half pounds"."""
    if lows[i : i + 3] == ["half", "a", "crown"]:
        return 30, 3
    if lows[i] in ("half-crown", "half-a-crown"):
        return 30, 1
    if lows[i] in _COINS:
        return _COINS[lows[i]], 1
    if reckon and lows[i].isdigit() and lows[i + 1 : i + 4] == ["and", "a", "half"] and i + 4 < len(lows) \
            and lows[i + 4] in _PENCE_IN:
        return int(lows[i]) * _PENCE_IN[lows[i + 4]] + _PENCE_IN[lows[i + 4]] // 2, 5
    unit = lows[i + 1] if i + 1 < len(lows) else ""
    if unit in _PENCE_IN and (lows[i].isdigit() or (lows[i] in ("a", "one") and not unit.endswith("s"))):
        if unit in ("crown", "crowns") and not lows[i].isdigit() and not reckon:
            return None  # "a crown" may be a king's
        return (int(lows[i]) if lows[i].isdigit() else 1) * _PENCE_IN[unit], 2
    return None


def money(toks: list[str], reckon: bool = False) -> list[str]:
    """Tokens with each sum of old money told in parts, or in shillings, pence, florins, guineas or a coin ("half a
    crown", "sixpence"), as "N pence" ("1 and sixpence" is a shilling and sixpence: 18 pence); with `reckon` (the other
    statement reckons in pence) pounds and crowns alone too. Numbers must be digits already."""
    lows = [t.lower() for t in toks]

    def read(i: int) -> tuple[list[str], int] | None:
        if lows[i].isdigit() and lows[i + 1 : i + 2] == ["and"] and i + 2 < len(lows) and lows[i + 2] in _COINS:
            return [str(int(lows[i]) * 12 + _COINS[lows[i + 2]]), "pence"], 3
        total, j, small, terms = 0, i, False, 0
        while j < len(lows):
            term = _money_term(lows, j, reckon)
            if term is None:
                break
            small = small or any(w in _COINS or w in _RECKONED or w.startswith("half") for w in lows[j : j + term[1]])
            total, j, terms = total + term[0], j + term[1], terms + 1
            if lows[j : j + 1] == ["and"] and j + 1 < len(lows) and _money_term(lows, j + 1, reckon) is not None:
                j += 1
        if j == i or not (small or terms > 1 or reckon):
            return None  # "20 crowns" or "30 pounds" alone may be another realm's coin
        return [str(total), "pence"], j - i

    return _rewritten(toks, read)
# The spans "a" counts one of ("for a month" is "for 1 month", so that "for 7 days" differs from it by its number).
_SPANS = frozenset("minute hour day week fortnight month year decade century".split())


def amounts(toks: list[str]) -> list[str]:
    """Tokens with an amount said one way: a share of a counted whole as a count ("two-thirds of the 18 plates" ->
    "12 of the 18 plates"), hours, days, weeks and fortnights as minutes ("half an hour" -> "30 minutes"), "a
    score of" as 20. Numbers must be digits already (numbers_as_digits)."""
    out, lows = list(toks), [t.lower() for t in toks]
    i = 0
    while i < len(out):
        lows = [t.lower() for t in out]
        share = _share(lows, i)
        if share is not None:
            parts, width = share
            # "two-thirds of the 18 plates": the whole is the next number after "of (the)"
            at = i + width
            if lows[at : at + 1] == ["of"]:
                k = at + 1 + (lows[at + 1 : at + 2] == ["the"])
                if k < len(out) and out[k].isdigit() and int(out[k]) * parts[0] % parts[1] == 0:
                    out[i:at] = [str(int(out[k]) * parts[0] // parts[1])]
                    i += 1
                    continue
            # "half an hour", "a quarter of an hour", "an hour and a half"
            rest = lows[at : at + 3]
            if rest[:2] in (["an", "hour"], ["a", "hour"]) or rest == ["of", "an", "hour"]:
                out[i : at + len(rest[:2]) + (rest[0] == "of")] = [str(60 * parts[0] // parts[1]), "minutes"]
                i += 2
                continue
        if lows[i] in ("a", "an", "one") and i + 1 < len(out) and lows[i + 1].removesuffix("'s") in _SPANS and \
                (i == 0 or lows[i - 1] not in ("every", "each", "per", "once", "twice", "that", "this", "last", "next")):
            out[i] = "1"  # "for an hour", "a fortnight": one of them (a rate, "once a week", stays)
            lows[i] = "1"
        if lows[i].isdigit() and i + 1 < len(out) and lows[i + 1] in _YEARS_IN:  # "2 decades" is "20 years"
            out[i : i + 2] = [str(int(lows[i]) * _YEARS_IN[lows[i + 1]]), "years"]
            lows = [t.lower() for t in out]
        if lows[i].isdigit() and lows[i + 1 : i + 4] == ["and", "a", "half"] and i + 4 < len(out) \
                and lows[i + 4] in _MINUTES_IN.keys() | _MONTHS_IN.keys():  # "3 and a half hours" is "3 hours and a half"
            out[i : i + 5] = [out[i], out[i + 4], "and", "a", "half"]
            lows = [t.lower() for t in out]
        unit = lows[i + 1].removesuffix("'s") if i + 1 < len(out) else ""
        part = _PART_OF.get(tuple(lows[i + 2 : i + 5]))  # "an hour and a half", "2 hours and a quarter"
        # (years only with a part: "a year and a half" is "18 months", "20 years" stays)
        if lows[i].isdigit() and (unit in _MINUTES_IN or unit in _MONTHS_IN and part is not None):
            n, owned = int(lows[i]), lows[i + 1].endswith("'s")  # "a week's leave" is "7 days' leave"
            width, part = (2, 0.0) if part is None else (5, part)
            if unit in _MINUTES_IN:
                amount, name = n * _MINUTES_IN[unit] + int(_MINUTES_IN[unit] * part), "minutes"
                if width == 2 and lows[i + 2 : i + 3] == ["and"] and lows[i + 3 : i + 4] and lows[i + 3].isdigit() \
                        and i + 4 < len(lows) and lows[i + 4] in _IN_MINUTES:
                    # "3 hours and 30 minutes", "2 days and 3 hours"
                    amount, width = amount + int(lows[i + 3]) * _IN_MINUTES[lows[i + 4]], 5
            else:
                amount, name = n * _MONTHS_IN[unit] + int(_MONTHS_IN[unit] * part), "months"
            out[i : i + width] = [str(amount), name + "'" if owned else name]
            i += 2
            continue
        if lows[i : i + 3] == ["a", "score", "of"]:
            out[i : i + 3] = ["20"]
        if lows[i : i + 3] == ["a", "gross", "of"]:
            out[i : i + 3] = ["144"]
        i += 1
    return out


def _share(lows: list[str], i: int) -> tuple[tuple[int, int], int] | None:
    """((numerator, denominator), tokens read) of a fraction at i ("half", "a third", "2 thirds", "two-thirds",
    "3 quarters"), else None."""
    word = lows[i]
    if "-" in word:  # "two-thirds", "three-quarters"
        top, _, bottom = word.partition("-")
        if top in _UNITS and bottom in _FRACTIONS:
            return (_UNITS[top], _FRACTIONS[bottom]), 1
        return None
    if word == "half" and (i == 0 or lows[i - 1] not in ("a", "one")):
        return (1, 2), 1
    if word in ("a", "one") and i + 1 < len(lows) and lows[i + 1] in _FRACTIONS:
        return (1, _FRACTIONS[lows[i + 1]]), 2
    if word.isdigit() and i + 1 < len(lows) and lows[i + 1] in _FRACTIONS and lows[i + 1].endswith("s"):
        return (int(word), _FRACTIONS[lows[i + 1]]), 2
    return None


_AT_HOUR = frozenset("at by until till before after since from around about".split())
# the half of the day as a word the guard reads as a time ("am" would read as "I am")
_HALF_DAY = {"a": "morning", "p": "evening"}
_PART_OF_DAY = {("in", "the", "morning"): "morning", ("in", "the", "afternoon"): "evening",
                ("in", "the", "evening"): "evening", ("at", "night"): "evening"}
_CLOCK = re.compile(r"(\d{1,2})[:.](\d{2})")


def clock(toks: list[str]) -> list[str]:
    """Tokens with each time of day as "H:MM", "morning" or "evening" after it where the statement says which half:
    "a quarter past 4", "4.15" and "4:15" are one time, "6 a.m." and "6 in the morning" another ("noon" and
    "midnight" stay words, which the guard reads as times).
    Numbers are digits already (numbers_as_digits)."""
    lows = [t.lower() for t in toks]

    def read(i: int) -> tuple[list[str], int] | None:
        hour, minute, width = _time_at(lows, i)
        if hour is None:
            return None
        half, span = _half_of_day(lows, i + width)
        if half is None and lows[i + width - 1] in ("noon", "midnight") and width > 1:
            # the named hour says the half: a quarter to midnight is in the evening, a quarter past it in the morning
            before = lows[i + width - 2] in ("to", "before")
            half = "evening" if (lows[i + width - 1] == "midnight") == before else "morning"
        whole = _CLOCK.fullmatch(lows[i])
        if half is None and whole is not None and (hour == 0 or hour >= 13 or lows[i].startswith("0")):
            # the 24-hour clock says the half itself: "02:00" is 2 in the morning, "16:15" a quarter past 4 p.m.
            hour %= 24
            half = "morning" if hour < 12 else "evening"
            hour = hour - 12 if hour > 12 else hour or 12
            if hour == 12 and minute == 0:
                return ["midnight" if half == "morning" else "noon"], width
        if hour == 12 and minute == 0 and half:
            # "twelve at night" is midnight, "12 p.m." noon: the named hours the guard reads
            return ["midnight" if half == "morning" or lows[i + width : i + width + span] == ["at", "night"] else "noon"], \
                width + span
        return [f"{hour}:{minute:02d}", *([half] if half else [])], width + span

    return _rewritten(toks, read)


def _rewritten(toks: list[str], read: Callable[[int], tuple[list[str], int] | None]) -> list[str]:
    """Tokens with each span `read` recognises at a position (its words, the tokens it took) put in its place."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        found = read(i)
        if found is None:
            out.append(toks[i])
            i += 1
            continue
        out += found[0]
        i += found[1]
    return out


def _time_at(lows: list[str], i: int) -> tuple[int | None, int, int]:
    """(hour, minute, tokens read) of a time of day starting at token i, or (None, 0, 0)."""
    word = lows[i]
    match = _CLOCK.fullmatch(word)
    if match and int(match.group(1)) <= 24 and int(match.group(2)) < 60:
        return int(match.group(1)), int(match.group(2)), 1
    start = i + 1 if word == "a" and lows[i + 1 : i + 2] == ["quarter"] else i
    nxt = lows[start : start + 4]
    minutes: int | None = {"half": 30, "quarter": 15}.get(nxt[0]) if nxt else None
    width = start - i + 1
    if minutes is None and nxt and nxt[0].isdigit() and int(nxt[0]) < 60:
        minutes = int(nxt[0])
        if nxt[1:2] in (["minutes"], ["minute"]):
            width += 1
    if minutes is not None and len(lows) > i + width + 1 and lows[i + width] in ("past", "after", "to", "before"):
        hour_word = lows[i + width + 1]
        named = hour_word in ("noon", "midnight")  # "a quarter to midnight": the named hour is 12
        if (named or hour_word.isdigit() and 1 <= int(hour_word) <= 12) and not (nxt[0].isdigit() and lows[i + width] in ("after", "before")):
            hour = 12 if named else int(hour_word)
            if lows[i + width] in ("to", "before"):
                hour, minutes = (hour - 2) % 12 + 1, 60 - minutes
            return hour, minutes, width + 2
    # a bare hour: "at 6", "6 o'clock", "6 pm"
    if word.isdigit() and 1 <= int(word) <= 12:
        after = lows[i + 1 : i + 2]
        if after == ["o'clock"]:
            return int(word), 0, 2
        if after and after[0] in ("noon", "midnight"):
            return int(word), 0, 1  # "12 noon": the word after says the half
        # (an hour after "at" ends its phrase: "rung at 9 by the verger", "came at 3 on Monday", not "at 9 bells")
        if _half_of_day(lows, i + 1)[0] or (i > 0 and lows[i - 1] in _AT_HOUR
                                            and (not after or after[0] in frames.PUNCT or after[0] in _STOPS)):
            return int(word), 0, 1
    return None, 0, 0


def _half_of_day(lows: list[str], i: int) -> tuple[str | None, int]:
    """("morning" or "evening", tokens read) when the words at i say which half of the day a time is in, else
    (None, 0)."""
    if lows[i : i + 1] in (["am"], ["pm"]):
        return _HALF_DAY[lows[i][0]], 1
    if lows[i : i + 1] in (["noon"], ["midnight"]):
        return ("evening" if lows[i] == "noon" else "morning"), 1
    if len(lows) > i + 2 and lows[i] in _HALF_DAY and lows[i + 1] == "." and lows[i + 2] == "m":
        # the last full stop of "6 a.m." at the end ends the sentence too
        return _HALF_DAY[lows[i]], 4 if lows[i + 3 : i + 4] == ["."] and i + 4 < len(lows) else 3
    for words, half in _PART_OF_DAY.items():
        if tuple(lows[i : i + len(words)]) == words:
            return half, len(words)
    return None, 0


def _number_parts(tok: str) -> list[str]:
    """A hyphenated number word in its parts ("thirty-one" -> "thirty", "one"); any other token as it is."""
    parts = tok.split("-")
    if len(parts) > 1 and all(p.lower() in _UNITS or p.lower() in _SCALES for p in parts):
        return parts
    return [tok]


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
            if k == _TAKE and lows[j] == "from" and lows[i + 1 : j] == ["over"]:
                # "Agnes took over from Clem": Clem handed over to Agnes
                end = j + 1
                while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS:
                    end += 1
                if end > j + 1:
                    giver, taker = toks[j + 1 : end], toks[:i]
                    return [case(giver[0], True)] + giver[1:] + ["handed", "over", "to", case(taker[0], False)] + taker[1:] + toks[end:]
            outdone = _OUTDONE.get((k, lows[j])) if j == i + 1 else None
            start = j + 1
            if j == i + 1 and outdone is None and (k, "") in _OUTDONE and toks[j][:1].isupper():
                outdone, start = _OUTDONE[(k, "")], j  # "Groves preceded Prynne as cashier": Prynne succeeded him
            if outdone is not None:
                # "Beatrice lost to Marjorie": Marjorie beat Beatrice; "Silas ranks below Reuben": Reuben outranks him
                end = start
                while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS and lows[end] != "as":
                    end += 1
                if end > start:
                    base, turned = outdone
                    first, second = (toks[start:end], toks[:i]) if turned else (toks[:i], toks[start:end])
                    return [case(first[0], True)] + first[1:] + [inflected_like(lows[i], base), case(second[0], False)] \
                        + second[1:] + toks[end:]
            verb = _CONVERSES.get((k, "from" if lows[j] == "off" and k in _FROM_THE_OWNER else lows[j]))
            if verb is None:
                continue
            end = j + 1
            while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS and lows[end] != "that" \
                    and not (end > j + 1 and lows[end] in _WH_STARTS):
                end += 1  # the giver ends before "how to ...": "learned from Perdita how to fall"
            if end == j + 1:
                break
            if verb == "told" and lows[end : end + 1] == ["that"] and not toks[i + 1 : j]:
                # "Mayor Denholm heard from Rufus that the bell had cracked": Rufus told her that it had
                giver, taker = toks[j + 1 : end], toks[:i]
                return [case(giver[0], True)] + giver[1:] + ["told", case(taker[0], False)] + taker[1:] + toks[end:]
            giver, taker, thing = toks[j + 1 : end], toks[:i], toks[i + 1 : j]
            owner = next((m for m, t in enumerate(thing) if t.endswith("'s")), None)
            if len(giver) == 1 and lows[j + 1] in _POSSESSIVE_OF and owner is not None \
                    and all(t[0].isupper() for t in thing[: owner + 1]):
                # "borrowed Mirela's lantern from her": the owner is the one "her" gives it
                giver = thing[:owner] + [thing[owner].removesuffix("'s")]
                thing = [_POSSESSIVE_OF[lows[j + 1]]] + thing[owner + 1 :]
            if len(giver) == 1 and lows[j + 1] in _OBJECT_PRONOUNS:
                giver = [_OBJECT_PRONOUNS[lows[j + 1]].capitalize()]  # "bought it from him": he sold it
            if verb == "told" and not thing and lows[end : end + 1] and lows[end] in _WH_STARTS:
                # "Kit learned from Perdita how to fall": Perdita taught Kit how to fall
                return [case(giver[0], True)] + giver[1:] + ["taught", case(taker[0], False)] + taker[1:] + toks[end:]
            if thing and thing[0].lower() == "to" and verb == "told":
                # "learned to juggle from Lucia": Lucia taught them to juggle
                return [case(giver[0], True)] + giver[1:] + ["taught", case(taker[0], False)] + taker[1:] + thing + toks[end:]
            return [case(giver[0], True)] + giver[1:] + [verb] + thing + ["to", case(taker[0], False)] + taker[1:] + toks[end:]
        owned = _owned_from(toks, i, k)
        if owned is not None:
            return owned
    return toks


_FROM_THE_OWNER = frozenset(lexicon.key(w) for w in ("borrow", "buy", "purchase", "rent"))
_TAKE = lexicon.key("take")
_WH_STARTS = frozenset("how what why where which whom".split())


def _owned_from(toks: list[str], i: int, k: str) -> list[str] | None:
    """"Kit borrowed Ines's pass card" as "Ines lent the pass card to Kit": the owner named before the thing is the
    giver (the exchanges `_CONVERSES` knows, told without "from")."""
    # only where the owner gives it: "received Benedikta's story" may have come from anyone, "borrowed Ines's card"
    # came from Ines
    verb = _CONVERSES.get((k, "from")) if k in _FROM_THE_OWNER else None
    if verb is None or i + 2 >= len(toks) or not toks[i + 1][0].isupper():
        return None
    end = i + 1
    while end < len(toks) and toks[end][0].isupper() and not toks[end].endswith("'s"):
        end += 1
    if end >= len(toks) or not toks[end].endswith("'s") or not toks[end][0].isupper():
        return None
    stop = end + 1
    while stop < len(toks) and toks[stop] not in frames.PUNCT and toks[stop].lower() not in _STOPS:
        stop += 1
    if stop == end + 1:
        return None
    giver = toks[i + 1 : end] + [toks[end].removesuffix("'s")]
    return giver + [verb, "the"] + toks[end + 1 : stop] + ["to", case(toks[0], False)] + toks[1:i] + toks[stop:]


def _verb_places(toks: list[str], lows: list[str], room: int, within: int) -> Iterator[int]:
    """Where the verb after a short subject may stand: positions 1 up to `within` (less `room` from the end), until
    the subject ends in punctuation or a clause word ("that", "who", "because", …)."""
    for i in range(1, min(len(toks) - room, within)):
        if toks[i] in frames.PUNCT or lows[i] in _SUBJECT_STOPS:
            return
        yield i


DETERMINERS = _DETERMINERS = frozenset("the a an his her their its our my your".split())
PRONOUNS = _PRONOUNS = frozenset("he she it they we you".split())


def case(word: str, first: bool) -> str:
    """A word moved to or from the start of the sentence: only a leading article changes case."""
    if word.lower() in _DETERMINERS or word.lower() in _PRONOUNS:
        return word.capitalize() if first else word.lower()
    return word


@lru_cache(maxsize=65536)
def canonical(text: str, reckon: bool = False) -> str:
    """The statement with its reporting frame read through (or attributed with "said"), a fronted adverbial moved
    back, an upper bound read as "only", numbers as digits, an agent's passive made active and a converse exchange
    turned to its giver's side; with `reckon`, every sum of money in pence (money)."""
    text = _cleft(_ABBREVIATION.sub(r"\1", _money_signs(text)))
    core = frames.core(text)
    if core != text:
        core = _cleft(core)  # "After X, it was Silas who pulled her out": the cleft shows once the phrase is back
    toks = _attributed(frames.tokens(core)) if core == text else frames.tokens(core)
    toks = _refused(frames.volition(_phrases(dates(money(amounts(numbers_as_digits(only(_failed(_apposition(_where_done(_there_were(toks))))))), reckon)))))
    toks = _converse(_belonged(_paid_for(_cost(active(_light_verb(_nominal(_had_done(_burned(clock(toks))))))))))
    toks = _made_by(_employed(_let_to(_spent(toks))))
    return frames.join(before_first(_dative(_because(_not_yet(_named_is(toks))))))


# Old money in its signs ("£4 10s.", "7s. 6d.", "6d."), said in words before the tokens drop the signs. A sign's full
# stop is read with it only where the sentence runs on.
_POUNDS_SIGN = re.compile(r"£\s?(\d+)")
_SHILLINGS_AND_PENCE = re.compile(r"\b(\d{1,2})s\.?\s*(\d{1,2})d\b(?:\.(?=\s+[a-z\d]))?")
_ONE_SIGN = re.compile(r"\b(\d{1,2})([sd])\b(\.(?=\s+[a-z\d]))?")


def _money_signs(text: str) -> str:
    """`text` with sums written in signs said in words: "£4 10s." -> "4 pounds 10 shillings"."""
    if not any(c.isdigit() for c in text):
        return text
    text = _SHILLINGS_AND_PENCE.sub(r"\1 shillings and \2 pence", _POUNDS_SIGN.sub(r"\1 pounds", text))
    return _ONE_SIGN.sub(lambda m: m.group(1) + (" shillings" if m.group(2) == "s" else " pence"), text)


# A title's full stop ends no sentence ("Dr. Mirela Vance"): read without it.
_ABBREVIATION = re.compile(r"\b(Dr|Mr|Mrs|Ms|Mt|St|Capt|Col|Gen|Lt|Sgt|Prof|Rev|Fr|Sr|Jr)\.(?=\s+[A-Z])")
# "It was at 2:15 that Senna saw the comet", "It was Senna who saw the comet": the fact without the stress.
_CLEFT = re.compile(r"^\s*It\s+(?:was|is)\s+(?P<stressed>.+?)\s+(?:that|who)\s+(?P<rest>.+?)(?P<end>[.!?]?)\s*$")


# "The one who missed the train was Kit Morrow": the person named last did what the clause says.
_PSEUDO_CLEFT = re.compile(r"^\s*The\s+(?:one|person|man|woman|people|ones)\s+(?:who|that)\s+(?P<deed>[a-z].+?)\s+(?:was|were|is|are)"
                           r"\s+(?P<who>[A-Z][\w'\u2019-]*(?:\s+(?:[A-Z][\w'\u2019-]*|and|of))*)(?P<end>[.!?]?)\s*$")


def _cleft(text: str) -> str:
    """A cleft sentence as the plain one: the stressed part back in its place (a person who did it first, a time or
    place after the rest)."""
    pseudo = _PSEUDO_CLEFT.match(text)
    if pseudo is not None:
        return f"{pseudo['who']} {pseudo['deed']}{pseudo['end']}"
    found = _CLEFT.match(text)
    if found is None or len(found["stressed"].split()) > 6:
        return text
    stressed, rest = found["stressed"], found["rest"]
    first = stressed.split()[0].lower()
    if first in frames.PREPOSITIONS or first in ("when", "where"):
        return f"{rest[:1].upper()}{rest[1:]} {stressed}{found['end']}"
    if stressed[:1].isupper() and rest.split()[0].islower():  # "It was Senna who saw it"
        return f"{stressed} {rest}{found['end']}"
    return text


# Words and phrases of one meaning in one wording (what numbers, clocks and order read): a time of day, a count of
# times, and the comparisons of order.
_SAME_WORDS = {"daybreak": "dawn", "sunrise": "dawn", "nightfall": "dusk", "sunset": "dusk", "midday": "noon",
               "twice": "2 times", "thrice": "3 times"}
_SAME_PHRASES: dict[tuple[str, ...], str] = {("took", "into", "custody"): "arrested", ("taken", "into", "custody"): "arrested",
                 ("went", "aground"): "ran aground",
                 ("went", "out", "of"): "left", ("came", "back"): "returned", ("got", "back"): "returned",
                 ("set", "off", "for"): "left for", ("set", "out", "for"): "left for", ("caught", "sight", "of"): "spotted",
                 ("came", "to", "rest"): "settled",
                 ("ahead", "of"): "before", ("prior", "to"): "before", ("earlier", "than"): "before",
                 ("later", "than"): "after", ("in", "advance", "of"): "before",
                 # an attempt said in other words is still only an attempt ("did his best to catch" is no catch)
                 **{(do, whose, "best", "to"): "tried to" for do in ("did", "does", "do")
                    for whose in ("his", "her", "their", "my", "our", "its", "your")},
                 ("made", "an", "effort", "to"): "tried to", ("makes", "an", "effort", "to"): "tried to",
                 ("made", "every", "effort", "to"): "tried to", ("sought", "to"): "tried to",
                 # being somewhere or not, said by an adjective ("was absent from the rehearsal": did not attend it)
                 **{(be, "absent", "from"): "did not attend" for be in ("was", "were")},
                 **{(be, "present", "at"): "attended" for be in ("was", "were")},
                 **{(be, "away", "from"): f"{be} not at" for be in ("was", "were", "is", "are")},
                 ("kept", "silent", "about"): "said nothing about", ("kept", "quiet", "about"): "said nothing about"}


def _phrases(toks: list[str]) -> list[str]:
    """Tokens with a word or phrase of one meaning in one wording ("daybreak" -> "dawn", "ahead of" -> "before",
    "later than" -> "after"), and "before X did" ending as "before X"."""
    out: list[str] = []
    i = 0
    while i < len(toks):
        low = toks[i].lower()
        phrase = next(((words, said) for words, said in _SAME_PHRASES.items()
                       if tuple(t.lower() for t in toks[i : i + len(words)]) == words), None)
        if phrase is not None:
            out.extend(phrase[1].split())
            i += len(phrase[0])
            continue
        if low in ("got", "called") and i + 1 < len(toks) and toks[i + 1].lower() == ("in" if low == "got" else "at") \
                and (low == "called" or i + 2 >= len(toks) or not (toks[i + 2].lower() in _DETERMINERS or toks[i + 2][0].isupper())) \
                and (low == "got" or (i + 2 < len(toks) and (toks[i + 2].lower() in _DETERMINERS or toks[i + 2][0].isupper())
                                      and not toks[i + 2][0].isdigit())):
            out.append("arrived" if low == "got" else "visited")  # "the timber got in late", "called at the inn"
            i += 2
            continue
        if low in ("got", "get", "gets") and i + 2 < len(toks) and toks[i + 1].lower() == "to" \
                and (toks[i + 2].lower() in _DETERMINERS or toks[i + 2][0].isupper()):
            out += ["arrived" if low == "got" else "arrive" + ("s" if low == "gets" else ""), "at"]
            i += 2  # "got to the gate": reached it ("got to go" stays)
            continue
        if low == "once" and out and i + 1 < len(toks) and toks[i + 1].lower() not in ("a", "an") \
                and (toks[i + 1].lower() in _DETERMINERS or toks[i + 1][0].isupper()):
            out.append("after")  # "once the operation was over": after it ("went once" and "Once, ..." stay)
        elif low in _SAME_WORDS:
            out.extend(_SAME_WORDS[low].split())
        elif low == "did" and out and out[-1][0].isupper() and (i + 1 == len(toks) or toks[i + 1] in frames.PUNCT) \
                and any(t.lower() in ("before", "after") for t in out):
            pass  # "before Hollis did.": the deed is the one already said
        else:
            out.append(toks[i])
        i += 1
    return out


_MONTHS = frozenset("january february march april may june july august september october november december".split())
_ORDINALS = {w: n for n, w in enumerate(
    """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth
    fifteenth sixteenth seventeenth eighteenth nineteenth twentieth""".split(), 1)}
_ORDINALS |= {"thirtieth": 30}
_SUFFIXES = frozenset("st nd rd th".split())


def dates(toks: list[str]) -> list[str]:
    """Tokens with a day of a month as "October 1" ("the first of October", "1st October", "October the 1st")."""
    def read(i: int) -> tuple[list[str], int] | None:
        day, width, month = _date_at(toks, i)
        return None if day is None else ([month, str(day)], width)

    return _rewritten(toks, read)


def _ordinal(toks: list[str], i: int) -> tuple[int | None, int]:
    """(day, tokens read) of an ordinal at i: "1st" (or "1" "st"), "first", "twenty-first"; else (None, 0)."""
    low = toks[i].lower() if i < len(toks) else ""
    if low.isdigit() and 1 <= int(low) <= 31:
        if i + 1 < len(toks) and toks[i + 1].lower() in _SUFFIXES:
            return int(low), 2
        return int(low), 1
    if low[:-2].isdigit() and low[-2:] in _SUFFIXES and 1 <= int(low[:-2]) <= 31:
        return int(low[:-2]), 1
    if low in _ORDINALS:
        return _ORDINALS[low], 1
    if low.startswith(("twenty-", "thirty-")) and low.split("-")[1] in _ORDINALS:
        return (20 if low.startswith("twenty") else 30) + _ORDINALS[low.split("-")[1]], 1
    return None, 0


def _date_at(toks: list[str], i: int) -> tuple[int | None, int, str]:
    """(day, tokens read, Month) of a date starting at i, else (None, 0, "")."""
    lows = [t.lower() for t in toks]
    if lows[i] in _MONTHS and toks[i][0].isupper():  # "October 1st", "October the first"
        j = i + 1 + (lows[i + 1 : i + 2] == ["the"])
        day, width = _ordinal(toks, j)
        if day is not None and (width == 2 or lows[j][-2:] in _SUFFIXES or lows[j] in _ORDINALS or lows[j].isdigit()):
            return day, j - i + width, toks[i]
        return None, 0, ""
    j = i + (lows[i] == "the")
    day, width = _ordinal(toks, j)
    if day is None or (width == 1 and lows[j].isdigit() and lows[j + 1 : j + 2] != ["of"]
                       and not (j + 1 < len(toks) and lows[j + 1] in _MONTHS)):
        return None, 0, ""  # a bare number is a date only beside a month
    k = j + width + (lows[j + width : j + width + 1] == ["of"])
    if k < len(toks) and lows[k] in _MONTHS and toks[k][0].isupper():
        if lows[j] in _ORDINALS and k == j + width:
            return None, 0, ""  # "the first October" may be a count of Octobers; a day has "of"
        return day, k - i + 1, toks[k]
    return None, 0, ""


def _had_done(toks: list[str]) -> list[str]:
    """"Oswin had his hand stitched up by Maud" as "Maud stitched up Oswin's hand", "had her trunk carried up to her
    room by the porter" as "the porter carried up her trunk to her room": what was done to one's own."""
    lows = [t.lower() for t in toks]
    for i in range(1, min(len(toks) - 4, 7)):
        if lows[i] not in ("had", "got", "has") or lows[i + 1] not in ("his", "her", "their"):
            continue
        j = i + 2
        while j < len(toks) and j - i <= 5 and _participle(lows[j]) is None:
            j += 1
        if j >= len(toks) or j == i + 2:
            return toks
        past = _participle(lows[j])
        k = j + 1
        particle = toks[k : k + 1] if k < len(lows) and lows[k] in _PARTICLE else []
        k += len(particle)
        # "had her trunk carried up to her room by the porter": where it went may come before who did it
        by = next((m for m in range(k, min(len(toks), k + 7)) if lows[m] == "by" or toks[m] in frames.PUNCT), None)
        if by is None or lows[by] != "by" or past is None:
            return toks
        end = _agent_end(toks, lows, by + 1)
        if end is None:
            return toks
        owner = [case(toks[0], False), *toks[1:i]]
        return ([case(toks[by + 1], True)] + toks[by + 2 : end] + [past] + particle + frames.owning(owner)
                + toks[i + 2 : j] + toks[k:by] + toks[end:])
    return toks


def _belonged(toks: list[str]) -> list[str]:
    """"3 workshops belonged to the guild" as "the guild owned 3 workshops": whose a thing is, the owner first."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 2, 8):
        if lexicon.key(lows[i]) != "belong" or lows[i + 1] != "to":
            continue
        end = i + 2
        while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS:
            end += 1
        if end == i + 2:
            return toks
        owner = toks[i + 2 : end]
        aux = 1 if lows[i - 1] in ("has", "have", "had") else 0  # "has belonged to her": she has owned it
        # in its own tense: "belongs to the shepherd" is "the shepherd owns", "belonged" "owned"
        owned = inflected_like(lows[i], "own")
        return [case(owner[0], True)] + owner[1:] + toks[i - aux : i] + [owned, case(toks[0], False)] + toks[1 : i - aux] + toks[end:]
    return toks


_THEME_LEADS = _DETERMINERS | frozenset("some every each all both".split())


def _dative(toks: list[str]) -> list[str]:
    """"Greta sold Father Dray a ticket" as "Greta sold a ticket to Father Dray": a verb WordNet gives the double
    object ("Somebody ----s somebody something") told with its recipient first."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 2, 8):
        if toks[i][0].isupper() or not wordnet.takes_frame(lexicon.key(lows[i]), wordnet.DOUBLE_OBJECT, 3):
            continue
        end = i + 1
        if lows[end] in frames.OBJECT_PRONOUNS:
            end += 1
        else:
            while end < len(toks) and toks[end][0].isupper() and not toks[end].endswith("'s"):
                end += 1
        bare = False  # the thing given with no article: "served 8 travellers supper"
        if end == i + 1 and (lows[end] in _THEME_LEADS or toks[end][0].isdigit()):
            # a recipient that is a kind of person after an article or a count: "the innkeeper served 8 travellers"
            person = next((j for j in range(end + 1, min(len(toks), end + 3))
                           if toks[j] not in frames.PUNCT and wordnet.names_a_person(lexicon.key(lows[j]))), None)
            if person is not None and person + 1 < len(toks) and toks[person + 1] not in frames.PUNCT \
                    and lows[person + 1] not in _STOPS and lows[person + 1] not in frames.PREPOSITIONS \
                    and not toks[person + 1][0].isupper():
                end, bare = person + 1, True
        if end == i + 1 or end >= len(toks) or not (bare or lows[end] in _THEME_LEADS or toks[end][0].isdigit()):
            return toks
        stop = end + 1
        while stop < len(toks) and toks[stop] not in frames.PUNCT and lows[stop] not in _STOPS:
            stop += 1
        return toks[: i + 1] + toks[end:stop] + ["to"] + toks[i + 1 : end] + toks[stop:]
    return toks


def before_first(toks: list[str], clauses: bool = False) -> list[str]:
    """"Ivo arrived after Nadia" as "Nadia arrived before Ivo", and "Voss left the mill after she bandaged the arm"
    as "Voss bandaged the arm before she left the mill" (with `clauses`): of two deeds in order, the first told first
    (a time or a thing after "after" stays)."""
    lows = [t.lower() for t in toks]
    if "after" not in lows[1:]:
        return toks
    i = lows.index("after", 1)
    end = i + 1
    while end < len(toks) and toks[end] not in frames.PUNCT:
        end += 1
    first, then = toks[:i], toks[i + 1 : end]
    if not then or any(w in lexicon.TIME_WORDS for w in lows[i + 1 : end]) or lows[0] in _SUBJECT_STOPS:
        return toks
    gap: list[str] = []
    if len(first) > 2 and first[-2][:1].isdigit() and first[-1].lower() in _DURATIONS:
        gap, first = first[-2:], first[:-2]  # "broke 60 minutes after X set off": X set off 60 minutes before it broke
    k = 0
    while k < len(first) and first[k][0].isupper() and lows[k] not in _DETERMINERS:
        k += 1
    if all(t[0].isupper() for t in then):  # "after Nadia": Nadia did the same deed first
        if k == 0:
            return toks
        return then + first[k:] + gap + ["before"] + first[:k] + toks[end:]
    # a person word may be in the clause ("after she bandaged it", "after the Dean had taken his stall"), which
    # is_clause declines where it may mean a reporter; here it means someone the sentence names
    if not clauses or not frames.is_clause(then, introduced=True, persons=True):
        return toks
    then = _simple_past(then)  # "after the Dean had taken his stall": turned round, he took it before
    if then[0].lower() in _PRONOUNS and k:  # "Voss left after she bandaged it": Voss bandaged it before she left
        return first[:k] + then[1:] + gap + ["before", then[0].lower()] + first[k:] + toks[end:]
    return [case(then[0], True)] + then[1:] + gap + ["before", case(first[0], False)] + first[1:] + toks[end:]


# A noun of doing told as its deed: "The decision to winter there was Hobb's" is "Hobb decided to winter there".
_HAPPENED = frozenset("took happened was came".split())  # "took place", "happened", "was held"
_RECEIVED = frozenset("received got won met".split())
_CARRIED = {("carried", "out"), ("made",), ("done",), ("given",)}


def _deed(noun: str) -> str | None:
    """The simple past of the deed a noun of doing names ("inspection" -> "inspected"), else None."""
    from memory import wordnet

    verb = wordnet.deed_of(noun.lower())
    return _past(verb) if verb else None


def _owner_end(toks: list[str], start: int) -> int | None:
    """Where an owner ending in "'s" ends ("Captain Arbuthnot's", "the engineer's"), up to five words from `start`."""
    for k in range(start, min(len(toks), start + 5)):
        if toks[k].endswith("'s"):
            return k + 1
        if toks[k] in frames.PUNCT:
            return None
    return None


def _nominal(toks: list[str]) -> list[str]:
    """Tokens with a noun of doing said as its deed by its doer: "The N to/of X was A's" -> "A <did> (to) X", "A's N
    of X took place on T" -> "A <did> X on T", "X received A's N" -> "A <did> X", "The N of X was carried out by A"
    -> "A <did> X"."""
    lows = [t.lower() for t in toks]
    if len(toks) < 5:
        return toks
    end = len(toks) - (toks[-1] in frames.PUNCT)
    did = _deed(lows[1]) if lows[0] == "the" and lows[2] in ("to", "of") else None
    if did is not None:
        keep = ["to"] if lows[2] == "to" else []
        # "The decision to scratch the mare was Captain Arbuthnot's."
        be = next((k for k in range(end - 1, 2, -1) if lows[k] in ("was", "is")), None)
        if be is not None and toks[end - 1].endswith("'s") and all(t[:1].isupper() or lows[i] == "the"
                                                                 for i, t in enumerate(toks[be + 1 : end], be + 1)):
            return _doer(toks[be + 1 : end]) + [did] + keep + toks[3:be] + toks[end:]
        # "The replacement of the prism was carried out by the superintendent."
        for k in range(3, end - 2):
            for words in _CARRIED:
                if lows[k] in ("was", "were") and tuple(lows[k + 1 : k + 1 + len(words)]) == words \
                        and lows[k + 1 + len(words) : k + 2 + len(words)] == ["by"]:
                    agent = k + 2 + len(words)
                    stop = _agent_end(toks, lows, agent)
                    if stop is None:
                        return toks
                    return [case(toks[agent], True)] + toks[agent + 1 : stop] + [did] + keep + toks[3:k] + toks[stop:]
    # "The engineer's inspection of the culvert took place on Thursday."
    owned = _owner_end(toks, 0)
    did = _deed(lows[owned]) if owned is not None and owned < end - 3 and lows[owned + 1] == "of" else None
    if owned is not None and did is not None:
        at = next((k for k in range(owned + 2, end) if lows[k] in _HAPPENED), None)
        if at is not None:
            width = 2 if lows[at] == "took" and lows[at + 1 : at + 2] == ["place"] else \
                2 if lows[at] == "was" and lows[at + 1 : at + 2] == ["held"] else 1 if lows[at] in ("happened", "came") else 0
            if width:
                return _doer(toks[:owned]) + [did] + toks[owned + 2 : at] + toks[at + width :]
    # "The purchase of a new lens received the director's approval."
    got = next((k for k in range(1, min(end, 12)) if lows[k] in _RECEIVED), None)
    if got is not None:
        owned = _owner_end(toks, got + 1)
        did = _deed(lows[owned]) if owned is not None and owned == end - 1 else None
        if owned is not None and did is not None:
            return _doer(toks[got + 1 : owned]) + [did] + [case(toks[0], False)] + toks[1:got] + toks[end:]
    return toks


# Light verbs: "made an apology to", "carried out an inspection of" say the noun's own deed. Only a noun made from its
# verb ("apology", "inspection"): one that is its verb too ("a letter", "a visit", "the train") may be a thing.
_LIGHT = frozenset({("made",), ("makes",), ("gave",), ("had",), ("carried", "out"), ("conducted",), ("performed",),
                    ("undertook",), ("offered",), ("paid",)})
_LIGHT_DETERMINERS = frozenset("a an the his her their its".split())


def _light_verb(toks: list[str]) -> list[str]:
    """Tokens with a light verb and its noun of doing said as the deed: "made an apology to" -> "apologised to",
    "carried out an inspection of the hoses" -> "inspected the hoses"."""
    lows = [t.lower() for t in toks]
    for k in range(1, len(toks) - 2):
        for words in _LIGHT:
            at = k + len(words)
            if tuple(lows[k:at]) != words or at + 1 >= len(toks) or lows[at] not in _LIGHT_DETERMINERS:
                continue
            noun = lows[at + 1]
            after = lows[at + 2] if at + 2 < len(lows) else "."
            if after.isalpha() and after not in frames.PREPOSITIONS:
                continue  # "made a carbon copy": the noun is not the phrase's head
            verb = wordnet.deed_of(noun) if noun.isalpha() else None
            if verb is None or verb == noun:
                continue
            did = _past(verb)
            if did is None:
                continue
            rest = at + 2 + (lows[at + 2 : at + 3] == ["of"])  # "an inspection of the hoses": the hoses inspected
            return toks[:k] + [did] + toks[rest:]
    return toks


def _named_is(toks: list[str]) -> list[str]:
    """"Nell Pry's cousin is Bram Tull" as "Bram Tull is Nell Pry's cousin": one's tie or post said first, then who
    holds it, turned so the holder is named first (the name must end the statement)."""
    lows = [t.lower() for t in toks]
    end = len(toks) - (bool(toks) and toks[-1] in frames.PUNCT)
    owned = _owner_end(toks, 0)
    if owned is None or not toks[0][:1].isupper():
        return toks
    be = next((k for k in range(owned, min(end, owned + 4)) if lows[k] in ("is", "was")), None)
    if be is None or be == owned or not all(t.isalpha() and t.islower() for t in toks[owned:be]):
        return toks
    name = toks[be + 1 : end]
    if not name or not all(t[:1].isupper() for t in name):
        return toks
    return name + [toks[be], case(toks[0], False)] + toks[1:be] + toks[end:]


def _doer(owner: list[str]) -> list[str]:
    """An owner ("the engineer's", "Captain Arbuthnot's") as the subject of the deed: its "'s" off, first word up."""
    said = [*owner[:-1], owner[-1].removesuffix("'s")]
    return [case(said[0], True), *said[1:]]


def _simple_past(toks: list[str]) -> list[str]:
    """Tokens with a pluperfect ("had taken") in the simple past ("took")."""
    lows = [t.lower() for t in toks]
    for i, low in enumerate(lows[:-1]):
        past = _participle(lows[i + 1]) if low == "had" else None
        if past is not None:
            return toks[:i] + [past] + toks[i + 2 :]
    return toks


_OBJECT_PRONOUNS = {"him": "he", "her": "she", "them": "they", "me": "I", "us": "we"}


def _cost(toks: list[str]) -> list[str]:
    """"X cost Y N" as "Y paid N for X": the price's two wordings, the payer first."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 2, 7):
        if lows[i] not in ("cost", "costs"):
            continue
        end = i + 1
        if lows[end] in _OBJECT_PRONOUNS:
            payer = [_OBJECT_PRONOUNS[lows[end]]]
            end += 1
        else:
            while end < len(toks) and toks[end][0].isupper():
                end += 1
            payer = toks[i + 1 : end]
        if not payer or end >= len(toks) or not toks[end][0].isdigit():
            return toks
        stop = end
        while stop < len(toks) and toks[stop] not in frames.PUNCT and lows[stop] not in _STOPS:
            stop += 1
        return [case(payer[0], True)] + payer[1:] + ["paid"] + toks[end:stop] + ["for", case(toks[0], False)] + toks[1:i] + toks[stop:]
    return toks


def _paid_for(toks: list[str]) -> list[str]:
    """"A paid B N for X" as "B sold X to A for N": a sale told from the buyer's purse, in the seller's wording (as
    "A bought X from B" is)."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 4, 8):
        if lexicon.key(lows[i]) != "pay" or not toks[i + 1][0].isupper():
            continue
        end = i + 1
        while end < len(toks) and toks[end][0].isupper():
            end += 1
        if end >= len(toks) or not toks[end][0].isdigit():
            return toks
        price = end
        while price < len(toks) and lows[price] != "for" and toks[price] not in frames.PUNCT:
            price += 1
        if price >= len(toks) or lows[price] != "for":
            return toks
        stop = price + 1
        while stop < len(toks) and toks[stop] not in frames.PUNCT and lows[stop] not in _STOPS:
            stop += 1
        if stop == price + 1:
            return toks
        seller, buyer = toks[i + 1 : end], toks[:i]
        return seller + ["sold"] + toks[price + 1 : stop] + ["to", case(buyer[0], False)] + buyer[1:] + ["for"] + \
            toks[end:price] + toks[stop:]
    return toks


def _apposition(toks: list[str]) -> list[str]:
    """A person named beside what they are, "the prioress, Aurelie Dusant" or "Aurelie Dusant, the prioress,", as
    the name alone: the name says who; the post said beside it adds nothing a retelling must keep."""
    lows = [t.lower() for t in toks]
    for i in range(len(toks) - 3):
        # "the prioress, Aurelie Dusant" (the name ends the clause)
        if lows[i] in _DETERMINERS and toks[i + 2] == "," and toks[i + 3][0].isupper() \
                and wordnet.names_a_person(lexicon.key(lows[i + 1])):
            end = i + 3
            while end < len(toks) and toks[end][0].isupper():
                end += 1
            if end == len(toks) or toks[end] in frames.PUNCT and toks[end] != ",":
                return toks[:i] + toks[i + 3 :]
            if toks[end] == "," and end + 1 < len(toks) and lows[end + 1] not in ("and", "or"):  # not a list
                return toks[:i] + toks[i + 3 : end] + toks[end + 1 :]
        # "Aurelie Dusant, the prioress," (set off on both sides)
        if toks[i][0].isupper() and toks[i + 1] == "," and lows[i + 2] in _DETERMINERS and i + 4 < len(toks) \
                and toks[i + 4] in frames.PUNCT and wordnet.names_a_person(lexicon.key(lows[i + 3])):
            return toks[: i + 1] + toks[i + 5 :] if toks[i + 4] == "," else toks[: i + 1] + toks[i + 4 :]
    return toks


_WHERE_AT = frozenset("in on under behind beside inside at near beneath among below above".split())


def _inflected(word: str) -> bool:
    """Whether a word is a verb in the past or the third person ("turned", "hangs"), not a base form or "-ing"."""
    lemmas = getAllLemmas(word.lower()).get("VERB", ())
    if lexicon.irregular_past(word.lower()):
        return True  # "found" is also a verb of its own
    return bool(lemmas) and word.lower() not in lemmas and not word.lower().endswith("ing")


def _where_done(toks: list[str]) -> list[str]:
    """"The ram turned up in Mara's barn, where Edric found it" as "Edric found the ram in Mara's barn": the deed
    done to a thing where it was, with that place (what the thing did there, "turned up", "hangs", adds nothing)."""
    lows = [t.lower() for t in toks]
    if "where" not in lows or lows[0] not in _DETERMINERS:
        return toks
    w = lows.index("where")
    end = len(toks)
    while end > w and toks[end - 1] in frames.PUNCT:
        end -= 1
    if w < 4 or toks[w - 1] != "," or end - w < 4 or lows[end - 1] not in ("it", "them") \
            or any(t in frames.PUNCT for t in toks[: w - 1] + toks[w + 1 : end]):
        return toks
    verb = next((k for k in range(1, w - 1) if _inflected(toks[k])), None)
    at = next((k for k in range(verb + 1, w - 1) if lows[k] in _WHERE_AT), None) if verb is not None else None
    if verb is None or at is None or not _inflected(toks[end - 2]):
        return toks
    doer = toks[w + 1 : end - 1]
    return [case(doer[0], True)] + doer[1:] + [case(toks[0], False)] + toks[1:verb] + toks[at : w - 1] + toks[end:]


_HOLDS = {"held": "were", "had": "were", "contained": "were", "housed": "were",
          "holds": "are", "has": "are", "contains": "are", "houses": "are"}


def _there_were(toks: list[str]) -> list[str]:
    """"The lower orchard held 40 hives" as "There were 40 hives in the lower orchard": what a place or a thing
    holds said as what is in it (never of a person: "the miller had 40 hives" is his, not in him)."""
    lows = [t.lower() for t in toks]
    verb = next((k for k, w in enumerate(lows) if w in _HOLDS), None)
    if verb is None or verb < 2 or lows[0] != "the" or any(not w.isalpha() or w in _STOPS for w in lows[1:verb]) \
            or wordnet.names_a_person(lexicon.key(lows[verb - 1])) or toks[1][0].isupper():
        return toks
    end = verb + 1
    while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS:
        end += 1
    held = toks[verb + 1 : end]
    if not held or held[0][0].isupper() or lows[verb + 1] in ("it", "them", "him", "her") \
            or not getAllLemmas(lows[verb + 1]).keys() <= {"NOUN", "ADJ", "NUM"} and lows[verb + 1] not in _DETERMINERS:
        # "had sailed", "has never left": a perfect, not what it holds
        return toks
    be = _HOLDS[lows[verb]]
    if lows[verb + 1] in ("a", "an", "1", "one") or not held[-1].lower().endswith("s"):
        be = "was" if be == "were" else "is"
    return ["There", be] + held + ["in", "the"] + toks[1:verb] + toks[end:]


_BURN_AS = frozenset("alight ablaze".split())


def _burned(toks: list[str]) -> list[str]:
    """"set fire to X", "set X on fire" and "set X alight" as "burned X" (frames reads them so; the verb table too)."""
    lows = [t.lower() for t in toks]
    for i, low in enumerate(lows):
        if lexicon.key(low) != "set" or i + 2 >= len(lows):
            continue
        if lows[i + 1 : i + 3] == ["fire", "to"]:
            return toks[:i] + ["burned"] + toks[i + 3 :]
        for j in range(i + 1, min(len(lows), i + 7)):  # "was set on fire": no object between
            if toks[j] in frames.PUNCT:
                break
            width = 2 if lows[j : j + 2] == ["on", "fire"] else 1 if lows[j] in _BURN_AS else 0
            if width:
                return toks[:i] + ["burned"] + toks[i + 1 : j] + toks[j + width :]
    return toks


def _attributed(toks: list[str]) -> list[str]:
    """"According to X, S" and "S, according to X" as "X said S" (report_core keeps them when S may mean X by "he")."""
    lows = [t.lower() for t in toks]
    if len(lows) > 4 and lows[:2] == ["according", "to"] and "," in lows[3:9]:
        cut = lows.index(",", 3)
        return [case(toks[2], True)] + toks[3:cut] + ["said"] + [case(toks[cut + 1], False)] + toks[cut + 2 :]
    for i in range(2, len(lows) - 3):
        if lows[i] == "," and lows[i + 1 : i + 3] == ["according", "to"]:
            end = i + 3
            while end < len(toks) and toks[end] not in frames.PUNCT:
                end += 1
            if end == i + 3:
                break
            return [case(toks[i + 3], True)] + toks[i + 4 : end] + ["said", case(toks[0], False)] + toks[1:i] + toks[end:]
    return toks


# "Nobody but X", "no one except X": X alone. The negation goes with the exception ("only X").
_ONLY_LEADS = ("nobody", "none", "no one")
_EXCEPT = frozenset("but except save".split())
_DO = frozenset("did does do".split())


def _failed(toks: list[str]) -> list[str]:
    """"failed to meet" as "did not meet": a deed not done, in the wording a denial has."""
    lows = [t.lower() for t in toks]
    for i in range(1, len(lows) - 2):
        if lows[i] == "failed" and lows[i + 1] == "to" and not toks[i + 2][0].isupper() and _past(lows[i + 2]):
            return toks[:i] + ["did", "not"] + toks[i + 2 :]
    return toks


def only(toks: list[str]) -> list[str]:
    """Tokens with an upper bound read as "only": "nobody but X" -> "only X", "no more than N" -> "only N",
    "did not pull more than N" -> "pulled only N"."""
    lows = [t.lower() for t in toks]
    for i, low in enumerate(lows):
        for lead in _ONLY_LEADS:
            width = len(lead.split())
            if " ".join(lows[i : i + width]) == lead and i + width < len(lows) and lows[i + width] in _EXCEPT:
                word = "Only" if toks[i][0].isupper() else "only"
                return toks[:i] + [word] + toks[i + width + 1 :]
        if low == "no" and lows[i + 1 : i + 3] == ["more", "than"]:
            return toks[:i] + ["only"] + toks[i + 3 :]
        if low in _DO and lows[i + 1 : i + 2] == ["not"] and lows[i + 3 : i + 5] == ["more", "than"]:
            past = _past(lows[i + 2]) if low == "did" else lows[i + 2]
            if past is not None:
                return toks[:i] + [past, "only"] + toks[i + 5 :]
    return toks


def inflected_like(word: str, base: str) -> str:
    """`base` (a verb's plain form) in the tense and person of the verb `word`: "ranks" -> "outranks", "lost" ->
    "beat", "belong" -> "own"."""
    if lexicon.key(word) == word:
        return base
    if word.endswith("s"):
        return (getInflection(base, "VBZ") or (base,))[0]
    return _past(base) or base


def _past(word: str) -> str | None:
    """The simple past of a verb's base form ("pull" -> "pulled"), else None."""
    lemmas = getAllLemmas(word).get("VERB")
    if not lemmas:
        return None
    form = getInflection(lemmas[0], "VBD")
    return str(form[0]) if form else None


def _participle(word: str) -> str | None:
    """The simple past of a past participle ("taken" -> "took", "handed" -> "handed"), else None."""
    for lemma in getAllLemmas(word).get("VERB", ()):
        forms = getAllInflections(lemma, "VERB")
        if word in (forms.get("VBN") or forms.get("VBD", ())):  # a regular verb lists its "-ed" form once, as VBD
            return _past(lemma)
    return None


_PASSIVE_BE = frozenset("was were is are".split())
_BARE_ADVERBS = frozenset("still already also just once often soon even".split())  # "is still owed" is a passive too
_PERFECT = frozenset("had has have".split())
_AGENT_STOPS = frames.PUNCT | _STOPS | frozenset(
    """to from of into onto upon about as that who which where because so if though although than inside outside near
    beside under beneath behind above across through toward towards within along around over below between among
    up down out off away back""".split())
_SUBJECT_STOPS = frozenset("that who which where when because if and but or said says told".split())
_PARTICLE = frozenset("on up out off down away back over".split())


def active(toks: list[str]) -> list[str]:
    """Tokens with "S was <participle> ... by A" made "A <past> S ...": who did it is named first in either voice.

    Only a sentence-initial subject of at most eight words ("the paddle gear of the bottom gate") and an agent that
    is a name or a noun phrase after a determiner are moved; "was not seen by A" becomes "A did not see S".
    """
    lows = [t.lower() for t in toks]
    for i in range(1, min(len(lows), 9)):
        if toks[i] in frames.PUNCT or lows[i] in _SUBJECT_STOPS:
            return toks
        if lows[i] in _PASSIVE_BE:
            j = i + 1
        elif lows[i] in _PERFECT and lows[i + 1 : i + 2] == ["been"]:
            j = i + 2
        else:
            continue
        return _made_active(toks, lows, i, j) or toks
    return toks


def _made_active(toks: list[str], lows: list[str], aux: int, j: int) -> list[str] | None:
    """The active form of a passive whose auxiliary is at `aux` and whose participle may start at `j`, else None."""
    negation = lows[j] if j < len(lows) and lows[j] in ("not", "never") else None
    j += negation is not None
    adverb = toks[j : j + 1] if j < len(lows) and (lows[j].endswith("ly") and len(lows[j]) > 4 or lows[j] in _BARE_ADVERBS) else []
    j += len(adverb)
    if j >= len(lows) or toks[j][0].isupper():
        return None
    past = _participle(lows[j])
    if past is None:
        return None
    if lows[aux] in ("is", "are") and negation is None:  # "is owed by A" is "A owes": the tense stays
        past = (getInflection(lexicon.key(lows[j]), "VBZ" if lows[aux] == "is" else "VBP") or (past,))[0]
    verb = {None: [past], "never": ["never", past], "not": ["did", "not", lexicon.key(lows[j])]}[negation]
    k = j + 1
    particle = toks[k : k + 1] if k < len(lows) and lows[k] in _PARTICLE else []
    k += len(particle)
    by = next((m for m in range(k, min(len(lows), k + 8)) if lows[m] == "by"), None)
    if by is None or any(toks[m] in frames.PUNCT or lows[m] in _SUBJECT_STOPS for m in range(k, by)):
        return None
    end = _agent_end(toks, lows, by + 1)
    if end is None:
        return None
    agent, subject = toks[by + 1 : end], toks[:aux]
    return ([case(agent[0], True)] + agent[1:] + adverb + verb + particle + [case(subject[0], False)] + subject[1:]
            + toks[k:by] + toks[end:])


def _agent_end(toks: list[str], lows: list[str], start: int) -> int | None:
    """Where the agent after "by" ends: a run of names ("Hesper Quayle", "Ambrose and Dorotea") or a determiner and
    up to three words ("the ringmaster"); None when neither starts there ("by the river" is taken as an agent too,
    as the guard takes it)."""
    if start >= len(toks):
        return None
    end = start
    if toks[start][0].isupper():
        while end < len(toks) and (toks[end][0].isupper() or (lows[end] == "and" and end + 1 < len(toks) and toks[end + 1][0].isupper())):
            end += 1
        return end
    if lows[start] not in _DETERMINERS:
        return None
    end = start + 1
    while end < len(toks) and end - start <= 3 and lows[end] not in _AGENT_STOPS and not lows[end].endswith("ing"):
        end += 1
    return end if end > start + 1 else None


_WORK_FOR = {"works": "employs", "work": "employ", "worked": "employed"}
_DURATIONS = frozenset("minute minutes hour hours day days night nights week weeks month months year years".split())


def _noun_phrase_end(toks: list[str], start: int) -> int:
    """Where a name or a determiner's noun phrase starting at `start` ends (start when none starts there)."""
    lows = [t.lower() for t in toks]
    end = start
    if end < len(toks) and lows[end] in _DETERMINERS:
        end += 1
        while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS and lows[end] not in ("as", "to", "that"):
            end += 1
        return end if end > start + 1 else start
    while end < len(toks) and toks[end][0].isupper() and toks[end] not in frames.PUNCT:
        end += 1
    return end


def _employed(toks: list[str]) -> list[str]:
    """"Benedikt works for Lucius" as "Lucius employs Benedikt": one relation, the employer's side."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 2, 6):
        if lows[i] in _WORK_FOR and lows[i + 1] == "for":
            end = _noun_phrase_end(toks, i + 2)
            if end == i + 2 or any(w.lower() in _DURATIONS or w[0].isdigit() for w in toks[i + 2 : end]):
                return toks  # "worked for a week" is no employer
            employer, employee = toks[i + 2 : end], toks[:i]
            return [case(employer[0], True)] + employer[1:] + [_WORK_FOR[lows[i]], case(employee[0], False)] + employee[1:] + toks[end:]
    return toks


def _let_to(toks: list[str]) -> list[str]:
    """"Tobias let the hall to the Players" as "Tobias rented the hall to the Players": letting a place is renting it
    out ("let him go" has no "to" after its object and stays)."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 3, 6):
        if lows[i] in ("let", "lets"):
            end = _noun_phrase_end(toks, i + 1)
            if end > i + 1 and lows[end : end + 1] == ["to"] and end + 1 < len(toks) \
                    and (toks[end + 1][0].isupper() or lows[end + 1] in _DETERMINERS):
                return toks[:i] + ["rented" if lows[i] == "let" else "rents"] + toks[i + 1 :]
            return toks
    return toks


def _made_by(toks: list[str]) -> list[str]:
    """"The Miller's Widow is by Horace Quaile" as "Horace Quaile wrote The Miller's Widow": a work said to be by
    someone named (the last words of the statement), told with its author first."""
    lows = [t.lower() for t in toks]
    words = [t for t in toks if t not in ".!?"]
    for i in range(1, min(len(words) - 2, 8)):
        if lows[i] in ("is", "was") and lows[i + 1] == "by" and all(w[0].isupper() for w in words[i + 2 :]) \
                and toks[0][0].isupper() and (lows[0] not in _DETERMINERS or toks[1][0].isupper()):
            return words[i + 2 :] + ["wrote"] + words[:i] + toks[len(words) :]
    return toks


_FRONTED_CLAUSES = frozenset("because if unless when whenever while although though since".split())


def _not_yet(toks: list[str]) -> list[str]:
    """"The bakery had not yet opened when Agatha delivered the flour" as "Agatha delivered the flour before the
    bakery opened"."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 4, 8):
        if lows[i : i + 3] in (["had", "not", "yet"], ["was", "not", "yet"], ["were", "not", "yet"]) and "when" in lows[i + 3 :]:
            at = lows.index("when", i + 3)
            stop = len(toks) - (toks[-1] in (".", "!", "?"))
            deed, then = toks[i + 3 : at], toks[at + 1 : stop]
            if not deed or not then:
                return toks
            verb = ["was"] if lows[i] in ("was", "were") else []
            return [case(then[0], True)] + then[1:] + ["before", case(toks[0], False)] + toks[1:i] + verb + deed + toks[stop:]
    return toks


def _because(toks: list[str]) -> list[str]:
    """"Because P, Q" and "P, and that is why Q" as "Q because P": the effect first, then its cause (and "If P, Q"
    as "Q if P", a fronted clause after its main one)."""
    lows = [t.lower() for t in toks]
    stop = toks[-1:] if toks and toks[-1] in (".", "!", "?") else []
    body = toks[: len(toks) - len(stop)]
    if lows[:1] and lows[0] in _FRONTED_CLAUSES and "," in body:
        # "If the arch is unsound, the county will shut it": the main clause first, the condition after
        cut = body.index(",")
        cause, effect = body[1:cut], body[cut + 1 :]
        if cause and effect:
            return [case(effect[0], True)] + effect[1:] + [lows[0], case(cause[0], False)] + cause[1:] + stop
    for phrase in (["and", "that's", "why"], ["and", "that", "is", "why"], ["which", "is", "why"], ["that's", "why"]):
        n = len(phrase)
        for at in range(1, len(body) - n):
            if [w.lower() for w in body[at : at + n]] == phrase:
                cause = body[:at]
                while cause and cause[-1] == ",":
                    cause = cause[:-1]
                effect = body[at + n :]
                if cause and effect:
                    return [case(effect[0], True)] + effect[1:] + ["because", case(cause[0], False)] + cause[1:] + stop
    return toks


def _spent(toks: list[str]) -> list[str]:
    """"Mrs Colley spent 21 days on the ward" as "Mrs Colley stayed on the ward for 21 days"."""
    lows = [t.lower() for t in toks]
    for i in _verb_places(toks, lows, 3, 6):
        if lows[i] in ("spent", "spends", "spend") and lows[i + 1][:1].isdigit() and lows[i + 2] in _DURATIONS \
                and lows[i + 3 : i + 4] and lows[i + 3] in ("in", "on", "at"):
            end = i + 4
            while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in _STOPS:
                end += 1
            verb = {"spent": "stayed", "spends": "stays", "spend": "stay"}[lows[i]]
            return toks[:i] + [verb] + toks[i + 3 : end] + ["for"] + toks[i + 1 : i + 3] + toks[end:]
    return toks


def _refused(toks: list[str]) -> list[str]:
    """"refused to take the beef tea" (and "wouldn't take it", read as that) as "refused the beef tea"."""
    lows = [t.lower() for t in toks]
    for i in range(len(toks) - 3):
        if lows[i] in ("refused", "refuses", "refuse") and lows[i + 1] == "to" and lows[i + 2] in _TAKE_WORDS:
            return toks[: i + 1] + toks[i + 3 :]
    return toks


_TAKE_WORDS = frozenset("take accept".split())
