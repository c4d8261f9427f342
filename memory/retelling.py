"""Two statements put in one wording before they are compared: what only the pair shows.

canonical.canonical words each statement alone. Some rewordings need the other statement to read:
one speaker's saying told to someone on one side only ("X told Y that S" / "X said that S"), a
comparison turned round ("B is older than A" / "A is younger than B"), a tie of kin or house told from the
other end ("Petra is the judge's niece" / "The judge is Petra's aunt"), two deeds in order told from
the other end ("A after B" / "B before A", where "after" may also take a noun: "fled after the
guard's death"), and a denied deed said by its opposite ("never left the cellar" / "stayed in the
cellar"), which WordNet's antonyms say.
"""

from __future__ import annotations

from functools import lru_cache

from lemminflect import getAllLemmas

from memory import canonical, frames, lexicon, verbs, wordnet


@lru_cache(maxsize=65536)
def pair(text_a: str, text_b: str) -> tuple[str, str]:
    """Both statements in canonical form with their names aligned (frames.align_names), one speaker's saying read
    through when both report it ("X told Y that S" / "X said that S"), a comparison turned round to the other's
    adjective, a denied deed said as its opposite where the other statement says that opposite ("never left" /
    "stayed"), a both-ways deed done together said as one's to the other, and sums of money in pence on both sides
    when one side reckons in pence."""
    said_a, said_b = frames.speech(text_a), frames.speech(text_b)
    if said_a and said_b and frames.same_person(said_a[0], said_b[0]) \
            and (not said_a[1] or not said_b[1] or frames.same_person(said_a[1], said_b[1])):
        # one speaker's one saying, to someone named on one side only: what was said is compared
        text_a, text_b = said_a[2], said_b[2]
    text_a, text_b = _own_saying(text_a, text_b), _own_saying(text_b, text_a)
    text_a, text_b = _each_other(text_a, text_b), _each_other(text_b, text_a)
    form_a, form_b = canonical.canonical(text_a), canonical.canonical(text_b)
    if _in_pence(form_a) != _in_pence(form_b):  # one reckons in pence: the other's pounds and crowns are money too
        form_a, form_b = canonical.canonical(text_a, True), canonical.canonical(text_b, True)
    a, b = frames.align_names(form_a, form_b)
    # "A after B" / "B before A" with clauses on both sides: turned only where the other says "before", since "fled
    # after the guard died" is also "fled after the guard's death", which has no clause to turn
    a, b = _ordered(a, b), _ordered(b, a)
    if _turned(frames.tokens(a), frames.tokens(b)):
        return a, a
    return _unnegated(a, b), _kin_as(_compared_as(_unnegated(b, a), a), a)


def _own_saying(text: str, other: str) -> str:
    """`text` as what was said when it is "X said that she S" and `other` quotes X in the first person: "Mrs Bolitho
    said that she would not sell her shares" against "'I shall not sell my shares,' said Mrs Bolitho" is one saying.
    Against a bare "Mrs Bolitho would not sell" it stays her word, not the deed."""
    own = frames.own_saying(text) if frames.quoted(other) else None
    if own is None:
        return text
    speaker, said = own
    doer = frames.tokens(canonical.canonical(other))[: len(speaker)]
    return frames.join(said) if _lowered(doer) == _lowered(speaker) else text


def _in_pence(text: str) -> bool:
    """Whether a canonical statement tells a sum of money in pence (canonical.money)."""
    return "pence" in frames.tokens(text.lower())


def _lowered(toks: list[str]) -> list[str]:
    return [t.lower() for t in toks]


def _find(toks: list[str], part: list[str], start: int) -> int | None:
    """Where `part` occurs in `toks` at or after `start` (case aside), else None."""
    low, want = _lowered(toks), _lowered(part)
    return next((k for k in range(start, len(toks) - len(part) + 1) if low[k : k + len(part)] == want), None)


def _turned(a: list[str], b: list[str]) -> bool:
    """Whether `b` tells `a` from its other end: "X <verb> ... Y" against "Y <verb> ... X", where what lies between is
    the same and ends in "with" (a deed done together: "quarrelled with", "corresponded with") or differs by one word
    WordNet makes the opposite of the other's ("downstream of" / "upstream of", "to the left of" / "to the right of",
    "beneath" / "above"), and the rest is the same."""
    for ia in range(1, len(a) - 2):
        ib = next((k for k in range(1, len(b)) if b[k].lower() == a[ia].lower()), None)
        if ib is None:
            continue
        subject_a, subject_b = a[:ia], b[:ib]
        if _lowered(subject_a) == _lowered(subject_b):
            continue
        pa, pb = _find(a, subject_b, ia + 1), _find(b, subject_a, ib + 1)
        if pa is None or pb is None:
            continue
        mid_a, mid_b = _lowered(a[ia + 1 : pa]), _lowered(b[ib + 1 : pb])
        if _lowered(a[pa + len(subject_b) :]) != _lowered(b[pb + len(subject_a) :]) or len(mid_a) != len(mid_b):
            return False
        if mid_a == mid_b:
            return _reciprocal(a[ia].lower(), mid_a)
        differ = [(x, y) for x, y in zip(mid_a, mid_b) if x != y]
        if len(differ) != 1:
            return False
        x, y = differ[0]
        return any(wordnet.opposed(x, y, pos, 3) for pos in ("adv", "adj"))
    return False


# Relations that hold both ways, so that "A <relation> B" is "B <relation> A": a place beside another, a tie ("married
# to", "related to"), and deeds that take two alike (one marries, meets or resembles the other). A deed done "with"
# someone is read from its last word.
_RECIPROCAL_WORDS = (("next", "to"), ("beside",), ("alongside",), ("opposite",), ("adjacent", "to"), ("across", "from"),
                     ("married", "to"), ("engaged", "to"), ("related", "to"))
_RECIPROCAL_DEEDS = frozenset(lexicon.key(w) for w in ("marry", "wed", "meet", "resemble", "divorce"))


def _each_other(text: str, other: str) -> str:
    """`text` with two named people who did a both-ways deed together said as one doing it to the other: "Silas Oakes
    and Nell Hathersage were married at Whitsun" -> "Silas Oakes married Nell Hathersage at Whitsun"; a deed the
    `other` statement says was done "with" someone likewise ("Ivo and Bram quarrelled" against "Bram quarrelled
    with Ivo")."""
    toks = frames.tokens(text)
    if "and" not in toks[1:4] or not toks[0][:1].isupper():
        return text
    cut = toks.index("and")
    end = cut + 1
    while end < len(toks) and toks[end][:1].isupper():
        end += 1
    if end == cut + 1 or not all(t[:1].isupper() for t in toks[:cut]):
        return text
    verb = end + (end < len(toks) and toks[end].lower() in ("were", "had", "have"))
    if verb >= len(toks):
        return text
    key = lexicon.key(toks[verb].lower())
    theirs = [t.lower() for t in frames.tokens(other)]
    together = any(lexicon.key(w) == key and nxt == "with" for w, nxt in zip(theirs, theirs[1:]))
    if key not in _RECIPROCAL_DEEDS and not together:
        return text
    said = canonical.inflected_like("did", key)  # done together, so in the past: "were married" is "married"
    return frames.join(toks[:cut] + [said] + (["with"] if key not in _RECIPROCAL_DEEDS else [])
                       + toks[cut + 1 : end] + toks[verb + 1 :])


def _reciprocal(verb: str, between: list[str]) -> bool:
    """Whether a verb and the words between it and its object name a relation that holds both ways ("quarrelled with",
    "stands next to", "married")."""
    if not between:
        return lexicon.key(verb) in _RECIPROCAL_DEEDS
    return between[-1] == "with" or any(tuple(between[-len(w):]) == w for w in _RECIPROCAL_WORDS)


def _ordered(text: str, other: str) -> str:
    """`text` with "S1 after S2" said "S2 before S1" when `other` says "before" and not "after"."""
    others = {t.lower() for t in frames.tokens(other)}
    if "before" not in others or "after" in others:
        return text
    return frames.join(canonical.before_first(frames.tokens(text), clauses=True))


_BE_FORMS = frozenset("is was are were".split())
_DEGREES = frozenset("more less".split())


def _comparison(toks: list[str]) -> tuple[int, int, int, int] | None:
    """(end of the subject, start of the comparative, "than", end of what it is compared with) of "A is younger
    than B" or "A was more careful than B", else None."""
    lows = [t.lower() for t in toks]
    if "than" not in lows:
        return None
    than = lows.index("than")
    at = than - 2 if than >= 2 and lows[than - 2] in _DEGREES else than - 1
    k = next((i for i, w in enumerate(lows[:at]) if w in _BE_FORMS), None)
    if k is None:
        k = 0
        while k < at and toks[k][0].isupper() and lows[k] not in canonical.DETERMINERS:
            k += 1
    end = than + 1
    while end < len(toks) and toks[end] not in frames.PUNCT and lows[end] not in canonical.STOPS:
        end += 1
    if k == 0 or at < k or end == than + 1:
        return None
    return k, at, than, end


def _adjective(toks: list[str], at: int, than: int) -> tuple[str, str | None]:
    """(the adjective's base form, "more"/"less" or None for "-er") of the comparative between `at` and "than"."""
    word = toks[than - 1].lower()
    if than - at == 2:
        return word, toks[at].lower()
    lemmas = getAllLemmas(word)
    base = (lemmas.get("ADJ") or lemmas.get("ADV") or (word,))[0]
    return base, None


def _compared_as(text: str, other: str) -> str:
    """`text` turned round where it compares the same two the other way ("B is older than A" against "A is younger
    than B", "B is less careful" against "A is more careful"), in `other`'s words."""
    toks, theirs = frames.tokens(text), frames.tokens(other)
    mine_at, their_at = _comparison(toks), _comparison(theirs)
    if mine_at is None or their_at is None:
        return text
    k, at, than, end = mine_at
    tk, t_at, t_than, _ = their_at
    (mine, degree), (their, their_degree) = _adjective(toks, at, than), _adjective(theirs, t_at, t_than)
    if mine == their and {degree, their_degree} == {"more", "less"}:
        pass  # "less careful" / "more careful"
    elif mine == their or not wordnet.opposed(mine, their, "adj", 3):
        return text
    subject, compared = toks[:k], toks[than + 1 : end]
    said = [canonical.case(compared[0], True)] + compared[1:] + toks[k:at] + theirs[t_at:t_than] + ["than", canonical.case(subject[0], False)] + subject[1:]
    return frames.join(said + toks[end:])


_NOT_AUX = frozenset("did does do would will".split())
_NOT_FUSED = frozenset("didn't doesn't don't wouldn't won't".split())
_DENIALS = frozenset("not never no nobody nothing none".split())
_OPPOSITE_DEPTH = 5  # "stay" is "remain behind", the opposite of "depart", in its fifth sense
_BEFORE_PLACE = frozenset("in at on inside within".split())


def _unnegated(text: str, other: str) -> str:
    """`text` with its denied deed ("did not leave", "never left", "would not allow") said as `other`'s main verb
    when WordNet makes the two opposites and `other` denies nothing: not leaving the cellar is staying in it."""
    toks, lows = frames.tokens(text), [t.lower() for t in frames.tokens(text)]
    others = frames.tokens(other)
    other_lows = [t.lower() for t in others]
    if any(w in _DENIALS or w.endswith("n't") for w in other_lows):
        return text
    for i, low in enumerate(lows):
        if (low in _NOT_AUX and lows[i + 1 : i + 2] == ["not"]) or (low == "refused" and lows[i + 1 : i + 2] == ["to"]):
            at = i + 2  # "refused to allow" is "forbade" too (canonical reads "would not" as "refused to")
        elif low in _NOT_FUSED or low == "never":
            at = i + 1
        else:
            continue
        if at >= len(lows) or toks[at][0].isupper():
            return text
        mine, theirs = lexicon.key(lows[at]), verbs.main_verb(other)
        if theirs is None or not wordnet.opposed(mine, theirs.split("_")[0], "verb", _OPPOSITE_DEPTH):
            return text
        j = next((k for k, w in enumerate(other_lows) if lexicon.key(w) == theirs.split("_")[0]), None)
        if j is None:
            return text
        said = [others[j]]
        # "stayed in the cellar" / "never left the cellar": the place keeps its preposition
        if j + 1 < len(others) and other_lows[j + 1] in _BEFORE_PLACE and at + 1 < len(lows) \
                and lows[at + 1] not in frames.PREPOSITIONS and toks[at + 1] not in frames.PUNCT:
            said.append(other_lows[j + 1])
        return frames.join(toks[:i] + said + toks[at + 1 :])
    return text


# A tie between two people by the word that names one end of it: (the tie, which end). "up" and "down" are its two
# ends ("aunt" / "niece"); "both" names either ("sister" / "brother": each is the other's sibling).
_TIES = {
    **{w: ("parent", "up") for w in ("father", "mother", "parent")},
    **{w: ("parent", "down") for w in ("son", "daughter", "child")},
    **{w: ("aunt", "up") for w in ("uncle", "aunt")},
    **{w: ("aunt", "down") for w in ("nephew", "niece")},
    **{w: ("grand", "up") for w in ("grandfather", "grandmother", "grandparent")},
    **{w: ("grand", "down") for w in ("grandson", "granddaughter", "grandchild")},
    **{w: ("sibling", "both") for w in ("brother", "sister", "sibling")},
    **{w: ("spouse", "both") for w in ("husband", "wife", "spouse")},
    **{w: ("in-law", "up") for w in ("father-in-law", "mother-in-law", "parent-in-law")},
    **{w: ("in-law", "down") for w in ("son-in-law", "daughter-in-law", "child-in-law")},
    **{w: ("sibling-in-law", "both") for w in ("brother-in-law", "sister-in-law")},
    **{w: ("cousin", "both") for w in ("cousin",)},
    **{w: ("employ", "up") for w in ("employer",)},
    **{w: ("employ", "down") for w in ("employee",)},
    **{w: ("let", "up") for w in ("landlord", "landlady")},
    **{w: ("let", "down") for w in ("tenant", "lodger")},
}
_OTHER_END = {"up": "down", "down": "up", "both": "both"}
# The age words a tie between equals takes, each with its converse ("older sister" / "younger brother").
_AGE = {"older": "younger", "elder": "younger", "younger": "older", "big": "little", "little": "big", None: None}


def _tie(toks: list[str]) -> tuple[list[str], str | None, str, list[str], int] | None:
    """(who, age word or None, tie word, to whom, where the rest starts) of "X is (the) [age] TIE of Y" or "X is Y's
    [age] TIE", else None."""
    lows = [t.lower() for t in toks]
    be = next((i for i, w in enumerate(lows) if w in _BE_FORMS), None)
    if be is None or be == 0 or not all(t[0].isupper() for t in toks[:be]):
        return None
    i = be + 1
    if i < len(lows) and lows[i] in ("the", "a", "an"):
        i += 1
    owner: list[str] = []
    if i < len(toks) and toks[i][0].isupper():  # "Y's [age] TIE"
        while i < len(toks) and toks[i][0].isupper() and not toks[i].endswith("'s"):
            owner.append(toks[i])
            i += 1
        if i >= len(toks) or not toks[i].endswith("'s"):
            return None
        owner.append(toks[i].removesuffix("'s"))
        i += 1
    age = lows[i] if i < len(lows) and lows[i] in _AGE else None
    i += age is not None
    if i >= len(lows) or lows[i] not in _TIES:
        return None
    word, i = lows[i], i + 1
    if not owner:  # "the [age] TIE of Y"
        if lows[i : i + 1] != ["of"]:
            return None
        i += 1
        while i < len(toks) and toks[i][0].isupper():
            owner.append(toks[i])
            i += 1
    if not owner:
        return None
    return toks[:be], age, word, owner, i


def _kin_as(text: str, other: str) -> str:
    """`text` said as `other` where both tell one tie between the same two, from either end: "Petra Lind is Judge
    Ashcombe's niece" against "Judge Ashcombe is Petra Lind's aunt". Each word says the sex of its own end only, so
    the two ends never disagree; the age words must turn round with the tie."""
    toks, theirs = frames.tokens(text), frames.tokens(other)
    mine, their = _tie(toks), _tie(theirs)
    if mine is None or their is None:
        return text
    who, age, word, whom, end = mine
    t_who, t_age, t_word, t_whom, t_end = their
    (kind, side), (t_kind, t_side) = _TIES[word], _TIES[t_word]
    if kind != t_kind or toks[end:] != theirs[t_end:]:
        return text
    if frames.same_person(tuple(who), tuple(t_who)) and frames.same_person(tuple(whom), tuple(t_whom)):
        # one end told twice, in two shapes ("the niece of Y" / "Y's niece")
        return other if word == t_word and age == t_age else text
    if frames.same_person(tuple(who), tuple(t_whom)) and frames.same_person(tuple(whom), tuple(t_who)) \
            and t_side == _OTHER_END[side] and t_age == _AGE.get(age, "?"):
        return other
    return text


def kin_turned(text_a: str, text_b: str) -> bool:
    """Whether two statements tell one tie between the same two people from ends that cannot both hold: "X is Y's
    grandson" / "X is Y's grandfather", or "X is Y's niece" / "Y is X's niece"."""
    mine, their = _tie(frames.tokens(text_a)), _tie(frames.tokens(text_b))
    if mine is None or their is None:
        return False
    who, _, word, whom, _ = mine
    t_who, _, t_word, t_whom, _ = their
    (kind, side), (t_kind, t_side) = _TIES[word], _TIES[t_word]
    if kind != t_kind or "both" in (side, t_side):
        return False
    same_way = frames.same_person(tuple(who), tuple(t_who)) and frames.same_person(tuple(whom), tuple(t_whom))
    other_way = frames.same_person(tuple(who), tuple(t_whom)) and frames.same_person(tuple(whom), tuple(t_who))
    return (same_way and side != t_side) or (other_way and side == t_side)
