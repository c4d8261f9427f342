"""Chinese prose for the prose pipeline: chapters (第N回), sentences, and a cast in the source script.

Names come from what classical Chinese fiction itself says: `姓劉，名備，字玄德` (surname, given
name, courtesy name), and speech cues (`。玄德曰`); a name whose first character is a common
surname and which speaks, or is named often, is a person. English names and aliases come from the
language pack's name dictionary (`storyworld/world/lang/zh-names.toml`, made from the bundled Three
Kingdoms world) and from the names the author hands in (`storyworld author --names FILE`): 劉備, Liu Bei
and Xuande are then one agent. Names neither knows stay in the source script; no other world is read.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence

from storyworld.authoring.common import slugify, unique_id
from storyworld.authoring.prose.parts import Chapter, Person, ProseMentions
from storyworld.authoring.prose.script import HAN, HAN_RE, is_cjk
from storyworld.world.lang import NativeName, native_names, once

__all__ = ["Known", "han_cast", "chapter_number", "is_cjk", "known_names", "sentences", "split_chapters",
           "split_paragraphs"]

CHAPTER_RE = re.compile(rf"^\s*第(?P<num>[0-9一二三四五六七八九十百零〇两兩]+)[回章節卷]\s*[：:　 ]?\s*(?P<title>.*)$")
SENTENCE_RE = re.compile(r"(?<=[。！？!?])(?![」』”])|(?<=[。！？!?][」』”])")
PUNCT = "，。！？：；、「」『』（）《》〈〉—…　 \n"
SPEECH_CUE_RE = re.compile(rf"(?:^|(?<=[{re.escape(PUNCT)}]))(?P<name>[{HAN}]{{2,4}}?)(?:大怒|大喜|大驚|笑|問|答|歎|嘆|叱|謂|急|亦|乃|便|又)?曰")
STYLED_RE = re.compile(rf"姓(?P<sur>[{HAN}]{{1,2}})，?名(?P<given>[{HAN}]{{1,2}})(?:，?字(?P<style>[{HAN}]{{2}}))?")
PLACE_CUE_RE = re.compile(rf"(?:至|到|往|於|入|回|奔|屯|守|離|出|赴|過|取|攻|圍)(?P<name>[{HAN}]{{1,3}}(?:關|城|縣|州|郡|寨|宮|殿|亭|園|坡|橋|谷|津|原|陽|安|都))")
SURNAMES = set("劉關張曹孫周魯黃蔣蔡呂董王袁趙徐程甘荀郭龐何糜陳盧華李丁顏文許陶闞馬韓楊朱鄒崔段樊牛胡鮑孔喬伍閔鄭吳蒯紀沮田高宋嚴侯魏臧秦沈蘇潘史范溫祖翟左任姜唐謝羅梁鄧彭曾蕭葛賈賀毛于凌卞卓焦柳石俞方金武湯霍龔閻竇韋傅盛單蹇皇淳蒙呂伏鍾")
DOUBLE_SURNAMES = {"諸葛", "夏侯", "公孫", "司馬", "皇甫", "太史", "淳于", "令狐", "歐陽", "上官", "尉遲"}
NOT_NAMES = {"其人", "眾皆", "左右", "書略", "檄文", "有詩", "老人", "縣令", "後人", "二人", "三人", "眾人", "使者", "天子", "丞相"}
MIN_MENTIONS = 3



# A name known in the source script (kind "person" or "place", its id, English name, native name, aliases).
Known = NativeName


def chapter_number(token: str, fallback: int) -> int:
    """`十` -> 10, `二十三` -> 23, `7` -> 7."""
    if token.isdigit():
        return int(token)
    digits = {"零": 0, "〇": 0, "一": 1, "二": 2, "兩": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
    total, current = 0, 0
    for ch in token:
        if ch in digits:
            current = digits[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
    return (total + current) or fallback


def split_chapters(text: str) -> list[Chapter]:
    """Chapters by `第N回：title` headings; paragraphs of hard-wrapped lines joined without spaces."""
    chapters: list[Chapter] = []
    number, title, lines = 0, "", list[str]()
    for line in text.split("\n"):
        heading = CHAPTER_RE.match(line) if len(line) < 80 else None
        if heading:
            if lines or number:
                chapters.append(Chapter(number=number or 1, title=title, paragraphs=split_paragraphs(lines)))
            number = chapter_number(heading.group("num"), len(chapters) + 1)
            title = heading.group("title").strip()
            lines = []
            continue
        lines.append(line)
    chapters.append(Chapter(number=number or 1, title=title, paragraphs=split_paragraphs(lines)))
    return [c for c in chapters if c.paragraphs]


def split_paragraphs(lines: list[str]) -> list[str]:
    """Paragraphs of hard-wrapped CJK lines: joined without spaces, split at blank lines and indents."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if not line.strip():
            if current:
                paragraphs.append("".join(current))
                current = []
            continue
        if line.startswith(("　　", "  ")) and current:
            paragraphs.append("".join(current))
            current = []
        current.append(line.strip().replace("　", ""))
    if current:
        paragraphs.append("".join(current))
    return [p for p in paragraphs if p]


def sentences(text: str) -> list[str]:
    """Sentences of CJK text, ending at 。！？ (with a closing quote kept)."""
    return [s.strip() for s in SENTENCE_RE.split(text.replace("\n", "")) if s and s.strip()]


def known_names(extra: Sequence[Known] = ()) -> list[Known]:
    """The names handed in (`extra`, first: they win a native name both give), then the zh pack's dictionary."""
    return list(once([*extra, *native_names("zh")]))


VERB_CHARS = set("大怒喜驚笑問答歎嘆叱謂急亦乃便又曰日見聞視與謝拜泣告令至皆")


def _is_personal(name: str) -> bool:
    if name in NOT_NAMES or len(name) < 2 or any(ch in VERB_CHARS for ch in name[1:]):
        return False  # "卓大怒" is Dong Zhuo flying into a rage, not a man called 卓大怒
    if name[:2] in DOUBLE_SURNAMES:
        return 3 <= len(name) <= 4
    return name[0] in SURNAMES and len(name) <= 3


def _stable_id(name: str, taken: set[str], english: str = "") -> str:
    base = slugify(english) if english else f"person-{hashlib.blake2b(name.encode(), digest_size=3).hexdigest()}"
    return unique_id(base, taken)


def han_cast(chapters: list[Chapter], known: list[Known] | None = None, *,
               min_mentions: int = MIN_MENTIONS) -> ProseMentions:
    """ProseMentions for Chinese text: persons named in the source script, with courtesy and English aliases.

    `known`: the names to go by (default `known_names()`, the language pack's dictionary alone).
    """
    known = known_names() if known is None else known
    text = "\n".join(p for chapter in chapters for p in chapter.paragraphs)
    native_aliases = _native_aliases(known)
    cast = ProseMentions()
    taken: set[str] = set()
    people = _add_persons(cast, _full_names(text, native_aliases, min_mentions), native_aliases, text, min_mentions,
                          taken)
    _add_places(cast, known, native_aliases, text, people, taken)
    return cast


def _native_aliases(known: list[Known]) -> dict[str, Known]:
    """Native name (and native alias of a person) -> what an installed world knows by it."""
    native_aliases: dict[str, Known] = {}
    for entry in known:
        native_aliases[entry.native] = entry
        if entry.kind == "person":
            for alias in entry.aliases:
                if HAN_RE.search(alias) and len(alias) >= 2:
                    native_aliases.setdefault(alias, entry)
    return native_aliases


def _full_names(text: str, native_aliases: dict[str, Known], min_mentions: int) -> dict[str, set[str]]:
    """Full name -> native aliases: 姓X名Y字Z, speakers that look like names, and known native names that occur."""
    full_names: dict[str, set[str]] = {}
    for match in STYLED_RE.finditer(text):
        full = match.group("sur") + match.group("given")
        aliases = full_names.setdefault(full, set())
        if match.group("style"):
            aliases |= {match.group("style"), match.group("sur") + match.group("style")}
    speakers = Counter(m.group("name") for m in SPEECH_CUE_RE.finditer(text))
    for name, count in speakers.items():
        if count >= 2 and _is_personal(name) and text.count(name) >= min_mentions:
            full_names.setdefault(name, set())
    for surface, entry in native_aliases.items():
        if entry.kind == "person" and text.count(surface) >= 2:
            full_names.setdefault(entry.native, set())
    # One person per known entry: a courtesy name or a surname+courtesy form folds into the full name.
    for full in list(full_names):
        folded = native_aliases.get(full)
        if folded is not None and folded.native != full and folded.native in full_names:
            full_names[folded.native] |= {full} | full_names.pop(full)
    for full, aliases in list(full_names.items()):
        for alias in list(aliases):
            if alias in full_names and alias != full:
                aliases |= full_names.pop(alias)
    return full_names


def _add_persons(cast: ProseMentions, full_names: dict[str, set[str]], native_aliases: dict[str, Known], text: str,
                 min_mentions: int, taken: set[str]) -> list[Person]:
    """The persons named often enough, most mentioned first; an alias two of them share names neither."""
    by_entry: dict[str, str] = {}
    people: list[Person] = []
    for full, aliases in full_names.items():
        entry = native_aliases.get(full)
        english = entry.name if entry is not None and entry.kind == "person" else ""
        surfaces = sorted({*aliases, *(a for a in (entry.aliases if entry else ()) if HAN_RE.search(a))} - {full})
        mentions = text.count(full) + sum(text.count(a) for a in surfaces if len(a) >= 2)
        if mentions < min_mentions:
            continue
        english_aliases = [entry.name, *[a for a in entry.aliases if not HAN_RE.search(a)]] if english and entry else []
        first = next((s for s in sentences(text) if full in s), "")
        person = Person(id="", name=full, aliases=[*surfaces, *english_aliases], mentions=mentions,
                        first_sentence=first[:200])
        people.append(person)
        by_entry[full] = english
    claims: Counter[str] = Counter(a for p in people for a in {p.name, *p.aliases})
    for person in sorted(people, key=lambda p: (-p.mentions, p.name)):
        person.id = _stable_id(person.name, taken, by_entry.get(person.name, ""))
        person.aliases = [a for a in person.aliases if claims[a] == 1]
        cast.persons[person.id] = person
        for surface in [person.name, *person.aliases]:
            cast.surfaces.setdefault(surface, ("person", person.id))
    return people


def _add_places(cast: ProseMentions, known: list[Known], native_aliases: dict[str, Known], text: str,
                people: list[Person], taken: set[str]) -> None:
    """Places: known native place names, and cue + suffix forms (`至虎牢關`) named often enough."""
    place_counts: Counter[str] = Counter()
    for entry in known:
        if entry.kind == "place" and text.count(entry.native) >= 1:
            place_counts[entry.native] = text.count(entry.native)
    cued = Counter(m.group("name") for m in PLACE_CUE_RE.finditer(text))
    for name, count in cued.items():
        inside_known = any(known_place in name for known_place in place_counts)  # 長安城 is 長安
        if count >= 2 and not inside_known and name not in cast.surfaces and not any(name in p.name or p.name in name for p in people):
            place_counts[name] = max(place_counts[name], text.count(name))
    for name, count in sorted(place_counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count < 2 or name in cast.surfaces:
            continue
        place_entry = native_aliases.get(name)
        english = place_entry.name if place_entry is not None and place_entry.kind == "place" else ""
        place_id = unique_id(slugify(place_entry.id, "") if place_entry and place_entry.kind == "place" else
                             f"place-{hashlib.blake2b(name.encode(), digest_size=3).hexdigest()}", taken)
        cast.places[place_id] = name
        cast.place_mentions[place_id] = count
        cast.surfaces[name] = ("place", place_id)
        if english:
            cast.place_english[place_id] = english
