"""Normalised statement frames: what a statement asserts, independent of word order, voice and synonyms.

A frame is the set of content concepts (inflections folded, synonyms joined, function words,
auxiliaries and the passive "by" dropped), the polar axes it asserts with their signs times its
negation parity ("did not stay lit" and "went out" both assert light: off), and its temporal order
words and modal concepts ("could", "refused to"). Two retellings of one fact have (nearly) the same
frame; opposites differ in the sign of a shared axis even when they share every other word.

Before a frame is read, `core` reads through a neutral reporting frame ("According to the letter,
...", "Tobin told me that ...": where a statement came from is its holding's `via` and `source`)
and moves a fronted time or place phrase behind the main clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lemminflect import getAllLemmas

from memory import lexicon

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019\-]*|\d+(?:[.,:]\d+)*|[,;:.!?]")
_PUNCT = frozenset(",;:.!?")
PUNCT = _PUNCT
NEGATIONS = frozenset("not never no nobody nothing none neither nor nowhere cannot without unable fail".split())
_DETERMINERS = frozenset("the a an his her its their our my your this that these those some any every each".split())
_PRONOUNS = frozenset("he she it they we i you him them us me himself herself itself themselves someone somebody something anyone anybody one".split())
# Words with no content of their own: dropped from the concept set.
_FUNCTION = frozenset(
    """a an the this that these those his her its their our my your some any every each he she it they we i you
    him them us me himself herself itself themselves someone somebody something anyone anybody
    of by in on at with for about as to from into onto upon over under near beside behind across through
    toward towards within along around below between among inside outside there here
    and but or nor so yet then than also too very just only still again shortly quietly
    be have do get go come stay remain keep become seem will would shall should could might must can may
    who whom whose which what where why how when while that if because since until till although though
    o'clock""".split()
)
_LIGHT_VERBS = frozenset(lexicon.key(w) for w in "be have do get go come stay remain keep become seem".split())
_FUNCTION_KEYS = frozenset(lexicon.key(w) for w in _FUNCTION) | _LIGHT_VERBS
PREPOSITIONS = _PREPOSITIONS = frozenset(
    """in at on into onto upon of to from by with for about inside outside near beside under beneath behind above across
    through toward towards within along around over below between among during after before throughout until till
    since beyond against amid""".split()
)
_LEADING = _PREPOSITIONS | frozenset("when while after before during once as".split())
_OBJECT_START = _DETERMINERS | frozenset("him her them it me us".split())
# Two-word forms that mean one thing.
_PHRASES = {
    ("come", "back"): "come_back", ("go", "back"): "go_back", ("put", "back"): "put_back",
    ("out", "loud"): "out_loud", ("cry", "out"): "cry_out", ("call", "out"): "call_out",
    ("turn", "up"): "turn_up", ("no", "one"): "nobody",
    ("run", "away"): "flee", ("run", "off"): "flee",
    ("turn", "down"): "refuse",  # "turned down the request": refused it, on refusal's side of accepting
}
# Negated volition: "would not go", "did not want to go", "was unwilling to go" and "refused to go"
# are one concept (a refusal), read as "refused to". A conditional "would not have" / "would not be"
# is not a refusal and is left alone.
_NOT_WANT_AUX = frozenset("did does do".split())
_NOT_WANT_AUX_NT = frozenset("didn't doesn't don't".split())
_BE = frozenset("was were is are am".split())
# Modal concepts: what a statement says of its main verb besides that it happened. "Could not
# lift", "would not lift" and "did not lift" are three facts. Verbs count only before "to".
_MODAL_WORDS = {
    "can": "can", "could": "can", "cannot": "can", "able": "can", "unable": "can",
    "must": "must", "should": "must", "ought": "must", "willing": "want",
}
_MODAL_VERBS = {
    lexicon.key(w): concept for w, concept in (
        ("refuse", "refuse"), ("refused", "refuse"), ("decline", "refuse"), ("declined", "refuse"),
        ("want", "want"), ("wish", "want"), ("agree", "agree"), ("consent", "agree"),
        ("promise", "promise"), ("vow", "promise"), ("try", "try"), ("attempt", "try"),
        # "has to wear" is an obligation, "is allowed to wear" a permission: neither says it was worn
        ("have", "must"), ("need", "must"), ("require", "must"), ("oblige", "must"),
        ("allow", "may"), ("permit", "may"),
    )
}


def volition(toks: list[str]) -> list[str]:
    """Tokens with every negated-volition phrase rewritten as "refused to" (see _NOT_WANT_AUX)."""
    lows = [t.lower() for t in toks]
    n = len(lows)

    def at(j: int) -> str:
        return lows[j] if j < n else ""

    def verb_at(j: int) -> bool:
        return j < n and toks[j] not in _PUNCT and lows[j] not in ("have", "be", "'ve")

    out: list[str] = []
    i = 0
    while i < n:
        low = lows[i]
        if low == "would" and at(i + 1) == "not" and verb_at(i + 2):
            width = 2
        elif low == "wouldn't" and verb_at(i + 1):
            width = 1
        elif low in _NOT_WANT_AUX and at(i + 1) == "not" and at(i + 2) in ("want", "wish") and at(i + 3) == "to":
            width = 4
        elif low in _NOT_WANT_AUX_NT and at(i + 1) in ("want", "wish") and at(i + 2) == "to":
            width = 3
        elif low in _BE and at(i + 1) == "unwilling" and at(i + 2) == "to":
            width = 3
        elif low in _BE and at(i + 1) == "not" and at(i + 2) == "willing" and at(i + 3) == "to":
            width = 4
        else:
            out.append(toks[i])
            i += 1
            continue
        out += ["refused", "to"]
        i += width
    return out


_KEEP = frozenset("kept keep keeps keeping".split())
_PERSON_OBJECTS = frozenset("him her them me us".split())
OBJECT_PRONOUNS = _PERSON_OBJECTS | {"you"}  # whom a telling or a gift may go to, said as a pronoun


def kept_from(toks: list[str]) -> list[str]:
    """Tokens with "X kept Y from Z" (Z a person) rewritten as "X did not tell Z about Y": one concealment, two wordings."""
    lows = [t.lower() for t in toks]
    for i, low in enumerate(lows):
        if low not in _KEEP:
            continue
        j = i + 1
        while j < len(lows) and j - i <= 6 and lows[j] != "from" and toks[j] not in _PUNCT:
            j += 1
        if j >= len(lows) or lows[j] != "from" or j == i + 1:
            continue
        k = j + 1
        if k < len(lows) and lows[k] in _DETERMINERS:
            k += 1
        if k >= len(lows) or not (toks[k][0].isupper() or lows[k] in _PERSON_OBJECTS or lows[j + 1] in _DETERMINERS):
            continue
        end = k + 1
        while end < len(toks) and toks[end] not in _PUNCT and toks[end][0].isupper():
            end += 1  # "Theo Lang"
        return toks[:i] + ["did", "not", "tell"] + toks[j + 1 : end] + ["about"] + toks[i + 1 : j] + toks[end:]
    return toks


def canonical_tokens(text: str) -> list[str]:
    """Tokens with negated volition read as "refused to" and "kept Y from Z" as "did not tell Z about Y"."""
    return kept_from(volition(tokens(text)))


def _modal(low: str, k: str, nxt: str | None) -> str | None:
    """The modal concept of one word (see _MODAL_WORDS), or None."""
    if low in _MODAL_WORDS:
        return _MODAL_WORDS[low]
    if low in ("may", "might") and nxt is not None and nxt.isalpha() and nxt != "day":
        return "may"  # "might crack" is not "cracked"; "May 1908" is a month
    if nxt == "to" and k in _MODAL_VERBS:
        return _MODAL_VERBS[k]
    return None


def tokens(text: str) -> list[str]:
    """Words, numbers and clause punctuation of a text."""
    return [t.replace("\u2019", "'") for t in _TOKEN.findall(text)]


# Reporting frames. A retelling often says where it came from ("According to the letter, ...",
# "Tobin told me that ...", "I heard that ..."). Where a statement came from is the holding's
# `via` and `source`, not part of the fact, so the same-record test compares what is reported.
# Only frames that pass the statement on unchanged are read through: "denied that", "doubted
# that", "thought that" change or hedge it; those are compared whole. "X told Y that S" passes S on
# too: who heard it is the hearer's holding, not part of the fact (the held-out pairs' convention).
_REPORT_SAY = frozenset(lexicon.concept(w) for w in ("say", "write", "show", "record", "confirm", "explain", "insist", "swear", "admit"))  # say, state, report...
_REPORT_TELL = frozenset(lexicon.concept(w) for w in ("tell", "inform", "notify", "warn"))  # tell, inform: only to me / us
_REPORT_LEARN = frozenset(lexicon.key(w) for w in ("hear", "read", "learn", "learnt"))  # only I / we
_FIRST_PERSON = frozenset("i we".split())
_FIRST_OBJECT = frozenset("me us".split())
_REPORT_SUBJECT_PRONOUNS = frozenset("i we he she they".split())
_FINITE = frozenset("was were is are has have had did does do will would shall can could must may might".split())
_CLAUSE_START = _DETERMINERS | frozenset("it there".split())
_PERSON_WORDS = frozenset(
    "i me my mine myself we us our ours ourselves you your yours yourself he him his himself she her hers herself "
    "they them their theirs themselves".split()
)
_SUBORDINATE = frozenset("when while because if after before since until as that who whom which where".split())


def _capital(word: str) -> bool:
    return word[0].isupper() or word[0].isdigit()


def _is_report_verb(word: str) -> bool:
    concept = lexicon.concept(word)
    return concept in _REPORT_SAY or concept in _REPORT_TELL or lexicon.key(word) in _REPORT_LEARN


def _reporter_end(toks: list[str]) -> int:
    """Index of the reporting verb after a reporting subject at the start ("Tobin", "Sister Alba",
    "the reeve's letter", "she"), else 0."""
    if not toks:
        return 0
    first = toks[0].lower()
    if first in _REPORT_SUBJECT_PRONOUNS:
        return 1 if len(toks) > 1 and _is_report_verb(toks[1]) else 0
    capitals = first not in _DETERMINERS
    if capitals and not _capital(toks[0]):
        return 0
    for j in range(1, min(len(toks), 6)):
        word = toks[j]
        if word in _PUNCT:
            return 0
        if _is_report_verb(word) and not _capital(word):
            return j
        if capitals and not _capital(word) and not (word in ("and", "of") and j + 1 < len(toks) and _capital(toks[j + 1])):
            return 0
    return 0


def is_clause(toks: list[str], introduced: bool = False, persons: bool = False) -> bool:
    """Whether words read as a statement of their own that can stand without its reporter.

    A subject-like start (any word after "that") and a finite-looking verb before any subordinate
    clause ("the stolen horse" has none: a participle straight after a determiner is an adjective).
    A person word (I, you, he, his, they...) may mean the reporter, so such a clause is not freed of it, unless
    `persons` (a clause inside a statement, whose person words mean someone it names).
    """
    words = [t for t in toks if t not in _PUNCT]
    if len(words) < 2:
        return False
    lows = [w.lower() for w in words]
    if not persons and any(low in _PERSON_WORDS for low in lows):
        return False
    if not (introduced or _capital(words[0]) or lows[0] in _CLAUSE_START):
        return False
    for i in range(1, len(lows)):
        low = lows[i]
        if low in _SUBORDINATE:
            return False
        if low in _FINITE or low.endswith("n't"):
            return True
        if lows[i - 1] in _DETERMINERS:
            continue
        if (len(low) > 3 and low.endswith("ed")) or (lexicon.irregular_past(low) and lexicon.key(low) != low):
            return True
    return False


def _reported_after(toks: list[str], start: int, learn: bool, quoted: bool = False) -> list[str] | None:
    """The reported clause after a reporting verb at `start` ("(to me) (that) S" or "me (that) S"); with `quoted`,
    also the direct speech after a comma ("told the ringmaster, 'I fed the ponies'")."""
    j = start + 1
    verb = lexicon.concept(toks[start])
    if not learn:
        far = _far_that(toks, j)
        if far is not None:  # "said at the ringside that S", "told the boatmen waiting at the toll house that S"
            return far
    if verb in _REPORT_TELL:
        if j < len(toks) and toks[j].lower() in _FIRST_OBJECT:
            j += 1
        else:  # "told Agnes that S", "told the almoner that S": what is told, whoever heard it (the holding says who)
            hearer_end = _hearer_end(toks, j, quoted)
            if hearer_end is None:
                return None
            j = hearer_end
    elif verb in _REPORT_SAY and j + 1 < len(toks) and toks[j].lower() == "to":
        if toks[j + 1].lower() in _FIRST_OBJECT:
            j += 2
        else:
            hearer_end = _hearer_end(toks, j + 1, quoted)
            if hearer_end is None:
                return None
            j = hearer_end
    if learn and j < len(toks) and toks[j].lower() in ("from", "in"):
        # "I heard from the miller that ...", "we read in the letter that ...": a "that" must follow
        k = j + 1
        while k < len(toks) and k - j <= 5 and toks[k].lower() != "that" and toks[k] not in _PUNCT:
            k += 1
        if k >= len(toks) or toks[k].lower() != "that":
            return None
        j = k
    colon = j < len(toks) and toks[j] == ":"
    direct = j < len(toks) and toks[j] in (",", ":")
    if direct:
        j += 1
    if colon:  # "warned Kalani: if the arch is unsound, ..."
        rest = toks[j:]
        return rest if is_clause(rest, introduced=True) else _spoken_by(rest, toks[:start], quoted)
    if j < len(toks) and toks[j].lower() == "that":
        rest = toks[j + 1 :]
        return rest if is_clause(rest, introduced=True) else None
    rest = toks[j:]
    if is_clause(rest):
        return rest
    # "Rosa told the ringmaster, 'I fed the ponies'": in direct speech "I" is the one speaking
    return _spoken_by(rest, toks[:start], quoted) if direct and not learn else None


FAR_THAT_REACH = 12  # words between a reporting verb and its "that" across a hearer and where or when it was said


def _far_that(toks: list[str], j: int) -> list[str] | None:
    """What was said after a "that" some words past the reporting verb, across who heard it and where or when ("said
    at the ringside on Monday that S"), when nothing between is a finite verb (it would be a clause of its own) and
    what follows "that" starts as a subject does (after a noun, "the man that owned the boat" is a relative clause)."""
    for k in range(j + 2, min(len(toks), j + FAR_THAT_REACH)):
        low = toks[k].lower()
        if toks[k] in _PUNCT:
            return None
        if low != "that":
            if low in _FINITE or low.endswith("n't") or (len(low) > 3 and low.endswith("ed")) \
                    or (lexicon.irregular_past(low) and lexicon.key(low) != low):
                return None
            continue
        rest = toks[k + 1 :]
        first = rest[0].lower() if rest else ""
        if not (first in _DETERMINERS or first in _REPORT_SUBJECT_PRONOUNS or (rest and _capital(rest[0]))):
            return None
        return rest if is_clause(rest, introduced=True) else None
    return None


_FIRST_PERSON_SELF = frozenset("i me".split())
# An opening quotation mark: one before a word, at the start or after a space or clause punctuation.
_QUOTE_OPEN = re.compile(r"(?:^|[\s,:;(])['\"\u2018\u201c](?=\w)")


def quoted(text: str) -> bool:
    """Whether a text holds quotation marks opening someone's words."""
    return bool(_QUOTE_OPEN.search(text))


def owning(name: list[str]) -> list[str]:
    """A name's words as its owner's ("Loveday Bolitho" -> "Loveday Bolitho's")."""
    return [*name[:-1], name[-1] + "'s"]


# Told on, "I will" and "I shall" are "would": "'I shall not sell,' said Mrs Bolitho" is "she would not sell".
_BACKSHIFT = {"will": "would", "shall": "would", "won't": "wouldn't", "shan't": "wouldn't"}


def _spoken_by(said: list[str], speaker: list[str], quoted: bool, hearer: list[str] | None = None) -> list[str] | None:
    """Quoted direct speech told in the third person: the speaker for "I" and "me", the speaker's for "my", the
    emphatic "myself" dropped ("'I set it myself,' said Rudd" -> "Rudd set it"), a named `hearer` for "you" and the
    hearer's for "your", "will" and "shall" as "would"; None without quotation marks ("Tobin told me, I think, ..."),
    when the speaker is no one named ("he", "I"), when the words speak for a group ("we"), or when they do not stand
    as a clause (one that starts "I" does)."""
    words = [t for t in speaker if t not in _PUNCT]
    if not quoted or not words or words[0].lower() in _PERSON_WORDS or not (_capital(words[0]) or words[0].lower() == "the"):
        return None
    lows = [t.lower() for t in said]
    if not any(w in _FIRST_PERSON_SELF or w in ("my", "myself") for w in lows):
        return None
    heard = [t for t in hearer or [] if t not in _PUNCT]
    if heard and (heard[0].lower() in _PERSON_WORDS or not (_capital(heard[0]) or heard[0].lower() == "the")):
        heard = []  # "told him": no one named to put for "you"
    out: list[str] = []
    for tok, low in zip(said, lows):
        if low in _FIRST_PERSON_SELF:
            out += words
        elif low == "my":
            out += owning(words)
        elif low in ("myself", "yourself"):
            continue
        elif low == "you" and heard:
            out += heard
        elif low == "your" and heard:
            out += owning(heard)
        else:
            out.append(_BACKSHIFT.get(low, tok))
    return out if lows[0] == "i" or is_clause(out, introduced=True) else None


def _hearer_end(toks: list[str], j: int, quoted: bool = False) -> int | None:
    """Where a named hearer after "told" ("Agnes", "the almoner", "Sister Ellery") ends at the "that" of what was told
    (or, with `quoted`, at the comma before a quotation), else None: without the "that", "told Agnes the news" says
    what she was told, not a clause."""
    start = j
    while j < len(toks) and j - start < 4 and toks[j] not in _PUNCT and toks[j].lower() != "that" \
            and (_capital(toks[j]) or toks[j].lower() in _DETERMINERS or (j > start and toks[j - 1].lower() in _DETERMINERS)):
        j += 1
    if j == start or j >= len(toks) or toks[j].lower() not in (("that", ":", ",") if quoted else ("that", ":")):
        return None
    return j


def _strip_report_once(toks: list[str], quoted: bool = False) -> list[str] | None:
    """The statement inside one reporting frame at the start or the end, else None; `quoted`: the text has quotation
    marks, so a first person in the words said is their speaker."""
    lows = [t.lower() for t in toks]
    # "According to X, S."
    if len(lows) > 4 and lows[0] == "according" and lows[1] == "to" and "," in lows[2:10]:
        rest = toks[lows.index(",", 2) + 1 :]
        return rest if is_clause(rest, introduced=True) else None
    # "S, according to X."
    for i in range(2, len(lows) - 2):
        if lows[i] == "," and lows[i + 1] == "according" and lows[i + 2] == "to":
            body = toks[:i]
            return body if is_clause(body) else None
    # "S, Tamsin says." / "S, the letter said." / "S, Tobin told me."
    words = [t for t in toks if t not in _PUNCT or t == ","]
    if "," in words:
        cut = len(words) - 1 - words[::-1].index(",")
        body, tail = words[:cut], words[cut + 1 :]
        if [t.lower() for t in tail[:2]] == ["or", "so"]:
            tail = tail[2:]  # "S, or so the porter told the almoner"
        end = _reporter_end(tail)
        if end:
            verb = lexicon.concept(tail[end])
            after = [t.lower() for t in tail[end + 1 :]]
            if (verb in _REPORT_SAY and not after) or (verb in _REPORT_TELL and 1 <= len(after) <= 3):
                # "'I rowed the mail out,' Donald told the inquest": in direct speech "I" is the one speaking
                return body if is_clause(body) else _spoken_by(body, tail[:end], quoted, tail[end + 1 :])
        elif 2 <= len(tail) <= 5 and lexicon.concept(tail[0]) in _REPORT_SAY and (_capital(tail[1]) or tail[1].lower() == "the"):
            # "S, said Donald Macrae": the frame turned round
            return body if is_clause(body) else _spoken_by(body, tail[1:], quoted)
    # "Maren was told by Tobin that S.": a telling said from its hearer's side passes S on as well
    for i in range(1, min(len(toks) - 3, 6)):
        if lows[i] in ("was", "were") and lexicon.concept(toks[i + 1]) in _REPORT_TELL and not _capital(toks[i + 1]):
            j = i + 2
            if lows[j : j + 1] == ["by"]:
                j = _hearer_end(toks, j + 1) or 0
            if j and lows[j : j + 1] == ["that"]:
                rest = toks[j + 1 :]
                return rest if is_clause(rest, introduced=True) else None
            break
    # "Tobin says (that) S.", "Tobin told me (that) S.", "I heard (that) S."
    end = _reporter_end(toks)
    if not end:
        return None
    verb = lexicon.concept(toks[end])
    learn = lexicon.key(toks[end]) in _REPORT_LEARN
    if learn and not (end == 1 and lows[0] in _FIRST_PERSON) and lows[end + 1 : end + 2] != ["from"]:
        return None  # "Ada heard the news" is her deed; "Ada heard from Bo that S" passes S on
    if not (learn or verb in _REPORT_SAY or verb in _REPORT_TELL):
        return None
    return _reported_after(toks, end, learn, quoted)


_TITLE_WORDS = frozenset("mr mrs miss ms dr sir lady lord master mistress".split())


@lru_cache(maxsize=65536)
def speech(text: str) -> tuple[tuple[str, ...], tuple[str, ...], str] | None:
    """(who said it, to whom or (), what was said) of "X said (to Y) (that) S", "X told Y (that) S", "According to
    X, S" or "S, X said", names lower case; None for a statement that reports no one's words."""
    toks = tokens(text)
    lows = [t.lower() for t in toks]
    if len(lows) > 4 and lows[:2] == ["according", "to"] and "," in lows[3:10]:
        cut = lows.index(",", 2)
        rest = toks[cut + 1 :]
        if not rest or not is_clause(rest, introduced=True):
            return None
        return _words(toks[2:cut]), (), _sentence(rest)
    if "," in toks:  # "S, X said." / "S, X told Y.": the frame after what was said
        cut = len(toks) - 1 - toks[::-1].index(",")
        tail = [t for t in toks[cut + 1 :] if t not in ".!?"]
        at = _reporter_end(tail)
        body = toks[:cut]
        if at and is_clause(body):
            verb = lexicon.concept(tail[at])
            if verb in _REPORT_SAY or verb in _REPORT_TELL:
                told = tail[at + 1 :]
                if verb in _REPORT_SAY and told[:1] == ["to"]:
                    told = told[1:]
                if verb in _REPORT_TELL and not told or any(t in _PUNCT for t in told) or len(told) > 4:
                    return None
                return _words(tail[:at]), _words(told), join(body) + "."
    end = _reporter_end(toks)
    if not end:
        return None
    j = end + 1
    verb = lexicon.concept(toks[end])
    if verb in _REPORT_TELL or (verb in _REPORT_SAY and lows[j : j + 1] == ["to"]):
        j += verb not in _REPORT_TELL
        start = j
        while j < len(toks) and lows[j] != "that" and (_capital(toks[j]) or lows[j] in _DETERMINERS) \
                and toks[j] not in _PUNCT and j - start < 5:
            j += 1
        if j == start and j < len(toks) and lows[j] in OBJECT_PRONOUNS:
            j += 1
        if j == start or lows[j : j + 1] != ["that"]:
            return None
        to = _words(toks[start:j])
    elif verb in _REPORT_SAY:
        to = ()
    else:
        return None
    if lows[j : j + 1] == ["that"]:
        j += 1
    rest = toks[j:]
    if not rest or not is_clause(rest, introduced=True):
        return None
    return _words(toks[:end]), to, _sentence(rest)


_OWN_OF = {"he": "his", "she": "her", "they": "their"}


def own_saying(text: str) -> tuple[list[str], list[str]] | None:
    """(speaker, what was said with its subject pronoun and that pronoun's "her"/"his"/"their" put as the speaker) of
    "X said (that) she S" with a named X; None for any other statement. Whether the pronoun is X is for the caller:
    only another statement of X's deed says so."""
    toks = tokens(text)
    end = _reporter_end(toks)
    if not end or lexicon.concept(toks[end]) not in _REPORT_SAY or not _capital(toks[0]):
        return None
    j = end + 1 + (toks[end + 1 : end + 2] == ["that"])
    pronoun = toks[j].lower() if j < len(toks) else ""
    if pronoun not in _OWN_OF or not is_clause(toks[j:], introduced=True, persons=True):
        return None
    speaker = toks[:end]
    said = [*speaker]
    for tok in toks[j + 1 :]:
        low = tok.lower()
        if low == pronoun:
            said += speaker
        elif low == _OWN_OF[pronoun]:
            said += owning(speaker)
        else:
            said.append(tok)
    return speaker, said


def _sentence(toks: list[str]) -> str:
    """What was said, as a sentence of its own (its first word capitalised)."""
    return join([toks[0][:1].upper() + toks[0][1:], *toks[1:]])



def _words(toks: list[str]) -> tuple[str, ...]:
    """A person's words lower case, without determiners and titles ("the old reeve" -> ("old", "reeve"))."""
    return tuple(w for w in (t.lower() for t in toks if t not in _PUNCT) if w not in _DETERMINERS and w not in _TITLE_WORDS)


def same_person(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two ways of naming someone can name one person: one's words all in the other's ("Costa" / "Mirela
    Costa"), or the same last name."""
    if not a or not b:
        return False
    return set(a) <= set(b) or set(b) <= set(a) or a[-1] == b[-1]


@lru_cache(maxsize=65536)
def report_core(text: str) -> str:
    """The statement a neutral reporting frame passes on ("According to the log, the ship sank." -> "The ship sank.").

    Frames that deny, doubt or hedge are kept (they change what is asserted); a text without a
    frame comes back unchanged. Nested frames are read through up to three deep.
    """
    toks = tokens(text)
    quoted = bool(_QUOTE_OPEN.search(text))
    stripped = False
    for _ in range(3):
        inner = _strip_report_once(toks, quoted)
        if inner is None:
            break
        toks, stripped = inner, True
    if not stripped:
        return text
    words = [t for t in toks if t not in ".!?"]
    while words and words[-1] in _PUNCT:
        words.pop()
    if not words:
        return text
    words[0] = words[0][0].upper() + words[0][1:]
    return " ".join(words).replace(" ,", ",").replace(" ;", ";").replace(" :", ":") + "."


def _name_start(toks: list[str], first: int, j: int) -> int:
    """Where the subject ending in the name at `j` starts: back over its other names and "and", not a place after a preposition."""
    r = j
    while r - 1 > first and (_capital(toks[r - 1]) or (toks[r - 1].lower() == "and" and _capital(toks[r - 2]))):
        r -= 1
    if r < j and toks[r - 1].lower() in _PREPOSITIONS:
        r += 1  # "in Ashford Pia sold": Ashford is the place
    return r


def _verb_next(toks: list[str], j: int) -> bool:
    """Whether the word after `j` reads as a verb (a past form or a listed verb): a name before it is a subject."""
    from memory import verbs

    if j + 1 >= len(toks):
        return False
    word = toks[j + 1].lower()
    if word in ("was", "were", "had", "did", "would", "could", "refused"):
        return True
    return (len(word) > 3 and word.endswith("ed")) or (lexicon.irregular_past(word) and lexicon.key(word) != word) or verbs.known(lexicon.key(word))


@lru_cache(maxsize=65536)
def front_to_back(text: str) -> str:
    """Move a fronted adverbial ("In the Senate house, X was stabbed") behind the main clause.

    Role analysis reads the first participant as the actor; a leading place, time or clause
    would otherwise be taken for it.
    """
    toks = tokens(text)
    if len(toks) < 4:
        return text
    i = 0
    while i < len(toks) and toks[i].lower().endswith("ly") and len(toks[i]) > 4:
        i += 1
    if i >= len(toks):
        return text
    lead = toks[i].lower()
    if i == 0 and lead not in _LEADING and not (toks[0].lower().endswith("ly") and len(toks[0]) > 4):
        return text
    if i > 0 and toks[i] == ",":
        cut = i + 1
    elif lead in _LEADING or i > 0:
        if "," in toks[: min(len(toks), 12)]:
            cut = toks.index(",") + 1
        else:
            # "After the funeral the lawyer read the will": preposition, noun phrase, then the subject.
            j = i + 1
            words = 0
            while j < len(toks) and toks[j] not in _PUNCT:
                low = toks[j].lower()
                if words and (low in _DETERMINERS or low in _PRONOUNS) and toks[j - 1].lower() not in _PREPOSITIONS:
                    break  # the subject starts: "the lawyer", "she" (not "of the fire" inside "the day of the fire")
                if words and toks[j][0].isdigit() and toks[j - 1].lower() not in _PREPOSITIONS:
                    break  # "On the day of the fire 3,000 copies were sold"
                if words and _capital(toks[j]) and _verb_next(toks, j):
                    j = _name_start(toks, i + 1, j)  # "Oda counted", "Zhuge Liang borrowed", "Cassius and Brutus met"
                    break
                if low not in _DETERMINERS:
                    words += 1
                if words > 4:
                    return text
                j += 1
            if j >= len(toks) or toks[j] in _PUNCT:
                return text
            cut = j
    else:
        return text
    head = [t for t in toks[:cut] if t not in _PUNCT]
    rest = [t for t in toks[cut:] if t not in _PUNCT]
    if not rest or not head:
        return text
    first = rest[0]
    if not (first[0].isupper() or first.lower() in _DETERMINERS or first.lower() in _PRONOUNS or first[0].isdigit()):
        return text
    head[0] = head[0].lower()
    return " ".join(rest + head) + "."


@dataclass(frozen=True, slots=True)
class Frame:
    """What one statement asserts, as comparable sets."""

    concepts: frozenset[str]  # content concepts (no polar words)
    polar: tuple[tuple[str, int, str], ...]  # (axis, sign, word key) readings of polar words
    negations: int  # negation words, "un-" prefixes and negator verbs
    negators: tuple[str, ...]  # axes of negator verbs ("refuse": accept) counted in negations
    order: frozenset[int]  # before -1, during 0, after 1
    numbers: tuple[str, ...]
    modals: frozenset[str] = frozenset()  # modal concepts: can, must, want, refuse, agree, promise, try


def _un_prefixed(low: str) -> str | None:
    """The stem of an "un-" word that negates it ("unlocked" -> "locked"), else None."""
    if not low.startswith("un") or len(low) < 6:
        return None
    rest = low[2:]
    if lexicon.irregular_past(rest) or rest.endswith(("ed", "en", "wn", "able", "ible", "ful", "ing", "lit", "armed", "known", "seen")):
        return rest
    return None


@lru_cache(maxsize=65536)
def frame(text: str) -> Frame:
    """The frame of one statement (cached by text)."""
    toks = canonical_tokens(text)
    reading = _Reading()
    i = 0
    while i < len(toks):
        i += _read_token(toks, i, reading)
    return reading.frame()


class _Reading:
    """What the tokens read so far assert (the mutable side of a Frame)."""

    __slots__ = ("concepts", "polar", "negations", "negators", "order", "numbers", "modals")

    def __init__(self) -> None:
        self.concepts: set[str] = set()
        self.polar: list[tuple[str, int, str]] = []
        self.negations = 0
        self.negators: list[str] = []
        self.order: set[int] = set()
        self.numbers: list[str] = []
        self.modals: set[str] = set()

    def frame(self) -> Frame:
        """The frozen frame."""
        return Frame(
            concepts=frozenset(self.concepts),
            polar=tuple(self.polar),
            negations=self.negations,
            negators=tuple(self.negators),
            order=frozenset(self.order),
            numbers=tuple(sorted(self.numbers)),
            modals=frozenset(self.modals),
        )


def _read_token(toks: list[str], i: int, r: _Reading) -> int:
    """Read the token at `i` (with the ones it joins) into the reading; how many tokens it took."""
    raw = toks[i]
    if raw in _PUNCT:
        return 1
    low = raw.lower()
    nxt = toks[i + 1].lower() if i + 1 < len(toks) else None
    if low.endswith("n't"):
        r.negations += 1
        low = low[:-3] if low != "can't" and low != "won't" else ("can" if low == "can't" else "will")
    k = lexicon.key(low)
    modal = _modal(low, k, nxt)
    if modal is not None:
        r.modals.add(modal)
    taken = _read_phrase(toks, i, k, nxt, r)
    if taken:
        return taken
    if low in NEGATIONS or k in ("fail", "unabl"):
        r.negations += 1
        return 1
    if k in lexicon.NEGATOR_KEYS:
        r.negations += 1
        r.negators.extend(axis for axis, _ in lexicon.POLAR.get(k, ()))
    if low in lexicon.ORDER:
        r.order.add(lexicon.ORDER[low])
    if raw[0].isdigit():
        r.numbers.append(low.replace(",", ""))
    stem = _un_prefixed(low)
    if stem is not None:
        r.negations += 1
        low, k = stem, lexicon.key(stem)
    return _read_word(toks, i, low, k, nxt, r)


def _read_phrase(toks: list[str], i: int, k: str, nxt: str | None, r: _Reading) -> int:
    """A two-word phrase or "set fire to" at `i`: the tokens it took, else 0."""
    if not nxt:
        return 0
    pair = (k, lexicon.key(nxt))
    if pair in _PHRASES or (k, nxt) in _PHRASES:
        word = _PHRASES.get(pair) or _PHRASES[(k, nxt)]
        if word == "nobody":
            r.negations += 1
        else:
            _add_word(word, r.concepts, r.polar)
        return 2
    if k == "set" and nxt in ("fire", "on"):  # "set fire to", "set on fire": burned
        j = i + 1
        while j < len(toks) and toks[j].lower() in ("fire", "on", "to"):
            j += 1
        _add_word("burn", r.concepts, r.polar)
        return j - i
    return 0


def _read_word(toks: list[str], i: int, low: str, k: str, nxt: str | None, r: _Reading) -> int:
    """One word at `i`: a polar particle or preposition, a function word, or a content concept."""
    # Particles and directional prepositions carry polarity ("went out", "into", "to the").
    if low == "out":
        if nxt == "of":
            r.polar.append(("inout", -1, "out_of"))
            return 2
        for axis, sign in lexicon.POLAR["out_particle"]:
            r.polar.append((axis, sign, "out"))
        return 1
    if low in ("on", "off", "in") and (nxt is None or nxt in _PUNCT or nxt in _PREPOSITIONS or nxt in ("and", "but", "when", "as", "then")):
        for axis, sign in lexicon.POLAR[f"{low}_particle"]:
            r.polar.append((axis, sign, low))
        return 1
    if low == "to":
        if nxt is not None and (nxt in _OBJECT_START or toks[i + 1][0].isupper()):
            r.polar.append(("to", 1, "to"))
        return 1
    if low in _FUNCTION or k in _FUNCTION_KEYS:
        if low in lexicon.POLAR or k in lexicon.POLAR:  # "into", "inside", "up" are both
            _add_polar(k if k in lexicon.POLAR else low, r.polar)
        return 1
    _add_word(low, r.concepts, r.polar)
    return 1


def _add_polar(k: str, polar: list[tuple[str, int, str]]) -> None:
    for axis, sign in lexicon.POLAR.get(k, ()):
        polar.append((axis, sign, k))


def _add_word(word: str, concepts: set[str], polar: list[tuple[str, int, str]]) -> None:
    """A content word joins the polar readings when it has any, else the concepts."""
    k = word if "_" in word else lexicon.key(word)
    if k in lexicon.POLAR:
        _add_polar(k, polar)
        return
    if k in lexicon.ORDER or word in lexicon.ORDER:
        return
    concepts.add(lexicon.SYNONYMS.get(k, k))


def _axis_products(f: Frame, axes: set[str]) -> dict[str, int]:
    """Per axis, the product of the signs of its readings (what the words say before negation)."""
    products: dict[str, int] = {}
    for axis, sign, _ in f.polar:
        if axis in axes:
            products[axis] = products.get(axis, 1) * sign
    return products


def polarity_conflict(a: Frame, b: Frame) -> str | None:
    """"negation" or "opposite" when the two assert opposite things, "order" for before/after; else None."""
    if a.order and b.order and not (a.order & b.order):
        return "order"
    shared = {axis for axis, _, _ in a.polar} & {axis for axis, _, _ in b.polar}
    if shared:
        pa, pb = _axis_products(a, shared), _axis_products(b, shared)
        # A negator verb whose axis is shared is a polar word there, not an extra negation.
        neg_a = a.negations - sum(1 for axis in a.negators if axis in shared)
        neg_b = b.negations - sum(1 for axis in b.negators if axis in shared)
        flip_a = -1 if neg_a % 2 else 1
        flip_b = -1 if neg_b % 2 else 1
        for axis in sorted(shared):
            if pa[axis] * flip_a != pb[axis] * flip_b:
                return "negation" if pa[axis] == pb[axis] else "opposite"
        return None
    if a.negations % 2 != b.negations % 2:
        return "negation"
    return None


def _bag(f: Frame, other: Frame) -> set[str]:
    """Concepts plus signed axes, reading words on several axes only where the other side has them."""
    other_axes = {axis for axis, _, _ in other.polar}
    by_word: dict[str, list[tuple[str, int]]] = {}
    for axis, sign, word in f.polar:
        by_word.setdefault(word, []).append((axis, sign))
    neg = f.negations - sum(1 for axis in f.negators if axis in other_axes)
    flip = -1 if neg % 2 else 1
    bag = set(f.concepts)
    for word, readings in by_word.items():
        chosen = [r for r in readings if r[0] in other_axes] or readings[:1]
        for axis, sign in chosen:
            bag.add(f"{axis}{'+' if sign * flip > 0 else '-'}")
    if not f.polar and neg % 2:
        bag.add("NOT")
    return bag


@lru_cache(maxsize=65536)
def core(text: str) -> str:
    """A statement as the same-record test reads it: reporting frame read through, fronted adverbial moved back."""
    return front_to_back(report_core(text))


def _name_runs(toks: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each run of two or more capitalised words that is not a sentence-initial function word."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        if toks[i][0].isupper() and not (i == 0 and toks[i].lower() in _FUNCTION):
            j = i
            while j < len(toks) and toks[j][0].isupper():
                j += 1
            if j - i >= 2:
                runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


NICKNAME_MIN = 3  # letters a short form of a first name keeps ("Fen" for "Fennimore"; "Al" could be anyone)


def _short_form(word: str, bases: set[str]) -> str | None:
    """The other statement's short form of a capitalised name ("Fennimore" -> "Fen"), when it uses one."""
    if not word[:1].isupper() or word.lower() in _FUNCTION or getAllLemmas(word.lower()):
        return None  # a word of the language ("Tomorrow") is no long form of a name ("Tom")
    found = [b for b in bases if b[:1].isupper() and NICKNAME_MIN <= len(b) < len(word) and word.startswith(b)
             and b.lower() not in _FUNCTION]
    return max(found, key=len) if len(found) == 1 else None


def _shorten_names(toks: list[str], other_toks: list[str]) -> list[str]:
    """`toks` with each full name cut to the part of it the other statement uses ("Margery Dunn" -> "Margery"),
    a first name given in full on one side and short on the other in its short form ("Fennimore Tallis" / "Fen").
    A part the other statement uses inside a name of its own with another word ("Lady Day" / "Midsummer Day",
    "Margery Dunn" / "Margery Voss") is another name, not a short one."""
    other = set(other_toks)
    out, bases = list(toks), {t.removesuffix("'s") for t in other}
    for i, tok in enumerate(toks):
        short = _short_form(tok.removesuffix("'s"), bases)
        if short is not None and tok.removesuffix("'s") not in bases:
            out[i] = short + ("'s" if tok.endswith("'s") else "")
    toks = list(out)
    their_runs = [[t.removesuffix("'s") for t in other_toks[i:j]] for i, j in _name_runs(other_toks)]
    for start, end in reversed(_name_runs(toks)):
        mine = {t.removesuffix("'s") for t in toks[start:end]}
        # a title ("Brother Cassian", "Sergeant Harrow") is no other name
        if any(set(run) & mine and not {w for w in run if not _a_person(w.lower())} <= mine for run in their_runs):
            continue
        kept = [t.removesuffix("'s") for t in toks[start:end] if t.removesuffix("'s") in bases]
        if kept and len(kept) < end - start:  # a possessive stays on the name's end: "Benedikta Sorrel's" -> "Benedikta's"
            out[start:end] = kept[:-1] + [kept[-1] + ("'s" if toks[end - 1].endswith("'s") else "")]
    return out


# A title's short form, read as the post it names ("Dr Salt" is the doctor).
_POST_OF = {"dr": "doctor", "capt": "captain", "sgt": "sergeant", "prof": "professor", "rev": "reverend",
            "gen": "general", "col": "colonel", "lt": "lieutenant", "insp": "inspector"}


def _posts_named(toks: list[str], other: list[str]) -> list[str]:
    """`toks` with a post ("the chief archivist") named as the other statement names its holder, by the title the
    name carries there ("Chief Archivist Hollis Grange"); a post no name carries stays."""
    out = list(toks)
    for start, end in _name_runs(other):
        run = [t.removesuffix("'s") for t in other[start:end]]
        if all(t in out for t in run):
            continue
        for k in range(end - start - 1, 0, -1):  # the longest title first: "Chief Archivist", then "Chief"
            title = [_POST_OF.get(w.lower(), w.lower()) for w in run[:k]]
            if any(w in _FUNCTION or w in _DETERMINERS for w in title):
                break
            n = len(title)
            at = next((i for i in range(len(out) - n) if out[i].lower() == "the"
                       and [w.lower().removesuffix("'s") for w in out[i + 1:i + 1 + n]] == title
                       and all(w.islower() for w in out[i + 1:i + 1 + n])), None)
            if at is None:
                continue
            owned = "'s" if out[at + n].endswith("'s") else ""
            out[at:at + 1 + n] = run[:-1] + [run[-1] + owned]
            break
    return out


POST_WORDS_MAX = 3  # words of a post after "the": "the first assistant keeper"


def _a_person(word: str) -> bool:
    """Whether a lower-case noun names a kind of person in one of its two commonest WordNet senses, a compound's last
    part standing for it ("sub-editor", "overman", "harbourmaster")."""
    from memory import wordnet

    head = lexicon.key(word)
    if wordnet.names_a_person(head, 2):
        return True
    if "-" in head:
        return _a_person(head.rsplit("-", 1)[1])
    for part in ("woman", "man"):
        if head.endswith(part) and len(head) >= len(part) + 3 and head != part:
            return wordnet.names_a_person(part)
    # a closed compound of a noun and a person ("harbourmaster", "lamplighter")
    return any(wordnet.senses(head[:cut], "noun") and wordnet.names_a_person(head[cut:])
               for cut in range(3, len(head) - 3))


def _posts(toks: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each one person spoken of by their post: "the" and up to three lower-case words, the last a
    kind of person ("the captain", "the elephant keeper", "the tent master's"); not a group ("the keepers")."""
    found: list[tuple[int, int]] = []
    for i, tok in enumerate(toks):
        if tok.lower() != "the":
            continue
        end = None
        for n in range(1, POST_WORDS_MAX + 1):
            if i + n >= len(toks):
                break
            word = toks[i + n]
            bare = word.removesuffix("'s")
            if not bare.islower() or bare in _FUNCTION or bare in _PREPOSITIONS:
                break  # (punctuation is not lower case)
            if lexicon.key(bare) != bare:
                break  # an inflected word ends the phrase: a verb ("the bailiff escorted") or a group ("the keepers")
            if _a_person(bare):
                end = i + n + 1
            if word.endswith("'s"):
                break
        if end is not None:
            found.append((i, end))
    return found


def _names(toks: list[str]) -> list[tuple[int, int]]:
    """Runs of two or more capitalised words that name a person: not a place after a preposition ("at Port
    Skerrow"), unless it owns something there ("to Samuel Pardoe's house") or a title starts it ("to Mrs Ada Gurney")."""
    return [(i, j) for i, j in _name_runs(toks)
            if not (i and toks[i - 1].lower() in _PREPOSITIONS and not toks[j - 1].endswith("'s")
                    and toks[i].lower() not in _TITLE_WORDS)]


def _post_for_name(toks: list[str], other: list[str]) -> list[str]:
    """`toks` with the one person it speaks of by their post ("the advance agent") named as the other statement names
    the one person it has that this one lacks ("Lionel Fitch"): a statement alone cannot say who holds a post, so
    one post against one name is read as one person. Two or more either way could pair any way, and stay."""
    own = {t.lower().removesuffix("'s") for t in toks}
    theirs = {t.lower().removesuffix("'s") for t in other}
    my_names, their_names = _names(toks), _names(other)
    posts = [(i, j) for i, j in _posts(toks) if not all(t.lower().removesuffix("'s") in theirs for t in toks[i + 1:j])]
    names = [(i, j) for i, j in their_names if not all(t.lower().removesuffix("'s") in own for t in other[i:j])]
    # (a statement naming as many people as the other could be naming the one the other has instead)
    if len(posts) != 1 or len(names) != 1 or my_names and len(my_names) >= len(their_names):
        return toks
    (start, end), (n_start, n_end) = posts[0], names[0]
    name = [t.removesuffix("'s") for t in other[n_start:n_end]]
    owned = "'s" if toks[end - 1].endswith("'s") else ""
    return toks[:start] + name[:-1] + [name[-1] + owned] + toks[end:]


def align_names(text_a: str, text_b: str) -> tuple[str, str]:
    """Both statements with a person named in full on one side and in part, or by the post the name's title gives,
    on the other named alike; one post against one name read as that person (_post_for_name)."""
    ta, tb = tokens(text_a), tokens(text_b)
    pa, pb = _posts_named(ta, tb), _posts_named(tb, ta)
    pa, pb = _post_for_name(pa, pb), _post_for_name(pb, pa)
    a, b = _shorten_names(pa, pb), _shorten_names(pb, pa)
    if a == ta and b == tb:
        return text_a, text_b
    return join(a), join(b)


def content_words(text: str) -> frozenset[str]:
    """The words of substance of a statement, lower case, a possessive's "'s" off (no function word, no light verb,
    no punctuation)."""
    words = (t.lower().replace("\u2019", "'").removesuffix("'s") for t in tokens(text) if t not in PUNCT)
    return frozenset(w for w in words if w and w.strip("'-") and w not in _FUNCTION and w not in _PREPOSITIONS
                     and lexicon.key(w) not in _FUNCTION_KEYS)


def join(toks: list[str]) -> str:
    """Tokens back into a sentence (no space before punctuation)."""
    return " ".join(toks).replace(" ,", ",").replace(" ;", ";").replace(" :", ":").replace(" .", ".").replace(" !", "!").replace(" ?", "?")


def _unify_deeds(a: set[str], b: set[str]) -> set[str]:
    """`b` with each concept that names the same deed as one only in `a` ("repair" / "mend") spelled as in `a`."""
    from memory import verbs

    only_a = a - b
    out = set()
    for concept in b:
        match = next((x for x in only_a if concept not in a and verbs.same_deed(x, concept)), None)
        out.add(match or concept)
    return out


def added_only(text_a: str, text_b: str) -> bool:
    """Whether one statement's frame holds all of the other's (one adds detail; nothing is swapped for something else)."""
    from memory import retelling, verbs

    text_a, text_b = retelling.pair(text_a, text_b)
    fa, fb = frame(core(text_a)), frame(core(text_b))
    a, b = _bag(fa, fb), _bag(fb, fa)
    b = verbs.unify_main(text_a, text_b, a, _unify_deeds(a, b))
    return a <= b or b <= a


def covers(held: str, asked: str) -> bool:
    """Whether a held statement's frame holds all of an asked one's: it says that and maybe more, nothing swapped."""
    from memory import retelling, verbs

    held, asked = retelling.pair(held, asked)
    fh, fa = frame(core(held)), frame(core(asked))
    h, a = _bag(fh, fa), _bag(fa, fh)
    a = verbs.unify_main(held, asked, h, _unify_deeds(h, a))
    return bool(a) and a <= h


def similarity(text_a: str, text_b: str) -> float:
    """Jaccard overlap of the two statements' frames (1.0: same concepts, same assertions), names and deeds aligned."""
    from memory import retelling, verbs

    text_a, text_b = retelling.pair(text_a, text_b)
    fa, fb = frame(core(text_a)), frame(core(text_b))
    a, b = _bag(fa, fb), _bag(fb, fa)
    b = verbs.unify_main(text_a, text_b, a, _unify_deeds(a, b))
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)
