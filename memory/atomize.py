"""Rule-based atomizer: split a deposit into sentence- and clause-sized statements."""

from __future__ import annotations

import re

# Abbreviations whose full stop does not end a sentence.
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "st", "sr", "jr", "prof", "gen", "capt", "lt", "col", "no", "vs", "etc", "mt"}
_SENTENCE_END = re.compile(r"([.!?]+[\"'\u201d\u2019)\]]*)\s+")
_CLAUSE_SPLIT = re.compile(r"(\s*(?:;|,\s*(?:and|but|while|whereupon|so|yet)\b|,?\s+and then\b|,\s*then\b)\s*)", re.I)
# A clause that can stand alone starts with something that can be a subject.
_SUBJECT_START = re.compile(
    r"^(?:[A-Z][\w'\-]*|he|she|they|it|we|i|you|his|her|their|the|a|an|this|that|these|those|no one|nobody|someone|everyone)\b"
)
_MIN_CLAUSE_WORDS = 3


def split_sentences(text: str) -> list[str]:
    """Sentences of a text, keeping their end punctuation; abbreviations do not split."""
    text = " ".join(text.split())
    if not text:
        return []
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end(1)
        before = text[start:end]
        last_word = re.findall(r"([A-Za-z]+)\.$", before)
        if last_word and (last_word[0].lower() in _ABBREVIATIONS or len(last_word[0]) == 1):
            continue
        following = text[match.end() :]
        # Only split when the next sentence plausibly begins (capital, digit or quote).
        if following and not re.match(r"[A-Z0-9\"'\u201c\u2018(]", following):
            continue
        pieces.append(before.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return [p for p in pieces if p]


def split_clauses(sentence: str) -> list[str]:
    """Independent clauses joined by ';' or ', and/but/...' when each half can stand alone."""
    parts = _CLAUSE_SPLIT.split(sentence)
    if len(parts) == 1:
        return [sentence]
    clauses: list[str] = [parts[0]]
    for i in range(1, len(parts), 2):
        separator, part = parts[i], parts[i + 1]
        standalone = (
            len(part.split()) >= _MIN_CLAUSE_WORDS
            and _SUBJECT_START.match(part.strip())
            and len(clauses[-1].split()) >= _MIN_CLAUSE_WORDS
        )
        if standalone:
            clauses.append(part)
        else:
            # Not a standalone clause (e.g. "and killed him"): glue it back as written.
            clauses[-1] = clauses[-1] + separator + part
    return [_finish(c) for c in clauses if c.strip(" ,;")]


def _finish(clause: str) -> str:
    """Capitalise the first letter and end with punctuation."""
    clause = clause.strip()
    if clause and clause[0].islower():
        clause = clause[0].upper() + clause[1:]
    if clause and clause[-1] not in ".!?\"'\u201d\u2019":
        clause += "."
    return clause


def atomize(text: str) -> list[str]:
    """Atomic statements of a deposit: sentences, then independent clauses."""
    atoms: list[str] = []
    for sentence in split_sentences(text):
        atoms.extend(split_clauses(sentence))
    return [a for a in atoms if a.strip(" .!?")]
