"""The chapters stage of the prose pipeline: chapters by their headings, paragraphs, sentences and chunks."""

from __future__ import annotations

import re

from storyworld.authoring.prose.cjk import sentences as cjk_sentences
from storyworld.authoring.prose.cjk import split_chapters as split_cjk_chapters
from storyworld.authoring.prose.parts import Chapter, Chunk
from storyworld.authoring.prose.script import HAN_RE, is_cjk

MAX_CHUNK_CHARS = 500  # short paragraphs are joined up to this; long ones split at sentences


SENTENCE_RE = re.compile(r"(?<=[.!?”\"])\s+(?=[“\"A-Z])")
CHAPTER_RE = re.compile(r"^\s*(?:chapter|book|part)\s+(?P<num>\d+|[IVXLC]+|[a-z]+)\b[.:]?\s*(?P<title>.*)$", re.I)


CJK_CHUNK_CHARS = 220  # Chinese says in 220 characters about what English says in 500


def split_chapters(text: str) -> list[Chapter]:
    """Chapters by `Chapter N: title` headings (one chapter when there are none); paragraphs by blank lines."""
    text = text.replace("\r\n", "\n").replace("\ufeff", "")
    if is_cjk(text):
        return split_cjk_chapters(text)
    chapters: list[Chapter] = []
    number, title, paragraphs = 0, "", []
    current: list[str] = []

    def end_paragraph() -> None:
        if current:
            paragraphs.append(re.sub(r"\s+", " ", " ".join(current)).strip())
            current.clear()

    for line in text.split("\n"):
        heading = CHAPTER_RE.match(line) if len(line) < 200 else None
        if heading:
            end_paragraph()
            if paragraphs or number:
                chapters.append(Chapter(number=number or 1, title=title, paragraphs=list(paragraphs)))
            number = _chapter_number(heading.group("num"), len(chapters) + 1)
            title = heading.group("title").strip()
            paragraphs = []
            continue
        if line.strip():
            current.append(line.strip())
        else:
            end_paragraph()
    end_paragraph()
    if paragraphs or not chapters:
        chapters.append(Chapter(number=number or 1, title=title, paragraphs=list(paragraphs)))
    return [c for c in chapters if c.paragraphs]


def _chapter_number(token: str, fallback: int) -> int:
    if token.isdigit():
        return int(token)
    roman = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
    if all(ch in roman for ch in token.lower()):
        total, prev = 0, 0
        for ch in reversed(token.lower()):
            value = roman[ch]
            total = total - value if value < prev else total + value
            prev = max(prev, value)
        return total
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
             "ten": 10, "eleven": 11, "twelve": 12}
    return words.get(token.lower(), fallback)


def chunk_chapters(chapters: list[Chapter], max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """Chunks of up to `max_chars`: short paragraphs joined, long ones split between sentences."""
    chunks: list[Chunk] = []
    han = bool(chapters) and is_cjk("".join(chapters[0].paragraphs[:5]))
    if han:
        max_chars = min(max_chars, CJK_CHUNK_CHARS)
    joiner = "" if han else " "
    for chapter in chapters:
        pieces: list[str] = []
        for paragraph in chapter.paragraphs:
            if len(paragraph) <= max_chars:
                pieces.append(paragraph)
                continue
            sentence_group = ""
            for sentence in sentences(paragraph):
                if sentence_group and len(sentence_group) + len(sentence) + 1 > max_chars:
                    pieces.append(sentence_group)
                    sentence_group = ""
                sentence_group = f"{sentence_group}{joiner}{sentence}".strip()
            if sentence_group:
                pieces.append(sentence_group)
        index = 0
        buffer = ""
        for piece in pieces:
            if buffer and len(buffer) + len(piece) + 1 > max_chars:
                chunks.append(Chunk(chapter=chapter.number, index=index, text=buffer))
                index += 1
                buffer = ""
            buffer = f"{buffer}\n{piece}".strip()
        if buffer:
            chunks.append(Chunk(chapter=chapter.number, index=index, text=buffer))
    return chunks


def sentences(text: str) -> list[str]:
    """The sentences of a passage (a rough split that respects closing quotes)."""
    if HAN_RE.search(text[:200]) and is_cjk(text):
        return cjk_sentences(text)
    return [s.strip() for s in SENTENCE_RE.split(text.replace("\n", " ")) if s.strip()]
