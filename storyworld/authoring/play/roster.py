"""The cast stage of the play pipeline: speech headings and names in directions resolved to agent keys.

A key is a speaker's folded display name (`first clown`); the roster learns every heading first
(longest first, so `HAMLET` is known before `HAM`), then the reader asks it who a heading or a
stage direction names. Keys stay keys until the world is built (`play.world`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from storyworld.authoring.common import fold
from storyworld.authoring.play.personae import Persona
from storyworld.authoring.play.text import ORDINAL_WORDS, ORDINALS, TITLE_WORDS, WORD_RE, name_key, singular, titlecase

CORPSE_WORDS = ("corpse of", "body of", "bodies of", "coffin of")
VOICE_MAX_SPEECHES = 8  # an unlisted speaker with fewer speeches is a voice in the canon, not an agent


class SpeakerRoster:
    """Resolves speech headings and names in directions to agent keys (folded display names)."""

    def __init__(self, personae: list[Persona], *, listed: bool = True) -> None:
        self.personae = personae
        self.listed = listed  # the personae are the edition's own list, not guessed from entrances
        self.display: dict[str, str] = {}  # key -> display name
        self.aliases: dict[str, set[str]] = defaultdict(set)  # key -> alias display forms
        self.description: dict[str, str] = {}
        self.named: dict[str, bool] = {}
        self.speeches: Counter[str] = Counter()
        self.groups: set[str] = set()  # keys that stand for a crowd ("Danes")
        self.together: dict[str, list[str]] = {}  # a heading naming two speakers without "and"
        self.lookup: dict[str, str] = {}  # folded phrase -> key
        self.synonym_of: dict[str, str] = {}  # folded role noun -> canonical folded noun
        self.persona_by_key: dict[str, Persona] = {}
        for persona in personae:
            key = name_key(persona.name)
            self.persona_by_key[key] = persona
            for synonym in persona.synonyms:
                self.synonym_of[name_key(synonym)] = key
        self._phrases: tuple[tuple[int, int, int], dict[str, tuple[str, str]]] | None = None
        self.title_lookup: dict[str, str] = {}
        for persona in personae:
            for title in persona.titles:
                self.title_lookup[name_key(title)] = name_key(persona.name)

    # -- building -------------------------------------------------------------------------

    def _ensure(self, key: str, display: str) -> str:
        if key not in self.display:
            persona = self.persona_by_key.get(key)
            self.display[key] = persona.name if persona else display
            self.description[key] = persona.description if persona else ""
            self.named[key] = bool(persona and persona.named)
            if persona:
                for title in persona.titles:
                    self.aliases[key].add(title)
            self.lookup.setdefault(key, key)
        return key

    def learn_labels(self, labels: Counter[str]) -> None:
        """Register every speech heading (longest first, so `HAMLET` is known before `HAM`)."""
        parts: Counter[str] = Counter()
        for label, count in labels.items():
            for part in split_label(label):
                parts[part] += count
        # "TITINIUS MESSALA" once or twice, each of them often alone: both speak the line.
        alone = Counter({name_key(part): count for part, count in parts.items()})
        for part, count in list(parts.items()):
            words = name_key(part).split()
            if (len(words) >= 2 and count <= 3 and name_key(part) not in self.persona_by_key
                    and self._ordinal_key(name_key(part)) is None and all(alone[w] >= 2 for w in words)):
                self.together[name_key(part)] = words
                del parts[part]
        # Singular names first, longest first; plurals ("LORDS") last, so they can be seen as groups.
        def order(part: str) -> tuple[bool, int, str]:
            return (name_key(singular(part)) != name_key(part), -len(part), part)

        for part in sorted(parts, key=order):
            key = self._resolve_label_part(part, create=True)
            if key:
                self.speeches[key] += parts[part]

    def _ordinal_key(self, norm: str) -> tuple[int, str] | None:
        match = re.match(r"^(first|second|third|fourth|fifth|sixth|[1-6](?:st|nd|rd|th)?)\s+(.+)$", norm)
        if not match:
            match_after = re.match(r"^(.+?)\s+([1-6])$", norm)
            if not match_after:
                return None
            return int(match_after.group(2)), match_after.group(1)
        return ORDINALS[match.group(1)], match.group(2)

    def _canonical_noun(self, noun: str) -> str:
        noun = name_key(singular(noun))
        if noun in self.synonym_of:
            return self.synonym_of[noun]
        for persona_key, persona in self.persona_by_key.items():
            if not persona.named and (persona_key.startswith(noun) or any(name_key(s).startswith(noun) for s in persona.synonyms)):
                return persona_key
        return noun

    def _resolve_label_part(self, part: str, create: bool) -> str | None:
        norm = name_key(part)
        if not norm:
            return None
        if norm in {"all", "both", "omnes", "all three"} or norm.split()[0] in {"both", "all"}:
            return None  # "Both Murderers": whoever of them is on stage, resolved per speech
        if norm in self.lookup:
            return self.lookup[norm]
        if norm in self.persona_by_key:
            key = self._ensure(norm, self.persona_by_key[norm].name)
            return key
        if norm in self.synonym_of and self.persona_by_key[self.synonym_of[norm]].count == 1:
            # "Son." heads the speeches of the one `BOY, Son to Macduff`
            key = self._ensure(self.synonym_of[norm], self.persona_by_key[self.synonym_of[norm]].name)
            self.lookup[norm] = key
            self.aliases[key].add(titlecase(part.rstrip(".")))
            return key
        if norm in self.title_lookup:
            key = self.title_lookup[norm]
            self._ensure(key, self.persona_by_key[key].name)
            self.lookup[norm] = key
            return key
        ordinal = self._ordinal_key(norm)
        if ordinal:
            return self._ordinal_speaker(part, norm, ordinal, create)
        abbreviated = self._abbreviated_speaker(part, norm)
        if abbreviated is not None:
            return abbreviated
        # A word of a fuller persona name: BRUTUS is Marcus Brutus, ANTONY is Marcus Antonius.
        if " " not in norm and len(norm) >= 4:
            by_word = self._persona_by_word(norm)
            if by_word is not None:
                self._ensure(by_word, self.persona_by_key[by_word].name)
                self.lookup[norm] = by_word
                self.aliases[by_word].add(titlecase(part.rstrip(".")))
                return by_word
        if not create:
            return None
        single = name_key(singular(part))
        role_words = {w for k in self.display for w in k.split()} | {k for k, p in self.persona_by_key.items() if not p.named}
        if single != norm and single in role_words:
            return None  # a plural of a role ("LORDS"): the group, resolved against the stage
        key = self._ensure(norm, titlecase(part.rstrip(".")))
        if norm.endswith("s") and not self.persona_by_key.get(norm):
            self.groups.add(key)
        return key

    def _ordinal_speaker(self, part: str, norm: str, ordinal: tuple[int, str], create: bool) -> str | None:
        """`First Clown`, `2 Citizen`: the numbered one of a kind (None when unknown and not creating)."""
        index, noun = ordinal
        canonical = self._canonical_noun(noun)
        if len(canonical.split()) > 2:
            canonical = name_key(singular(noun))  # "Servants to Cornwall" lists them; "First Servant" speaks
        key = f"{ORDINAL_WORDS.get(index, str(index)).lower()} {canonical}"
        if key not in self.display and not create:
            return None
        self._ensure(key, f"{ORDINAL_WORDS.get(index, str(index))} {titlecase(canonical)}")
        variant = titlecase(part.replace(".", "").strip())
        if name_key(variant) != key:
            self.aliases[key].add(variant)
        for persona in self.persona_by_key.values():
            if name_key(persona.name) == canonical:
                for synonym in persona.synonyms:
                    self.aliases[key].add(f"{ORDINAL_WORDS.get(index, str(index))} {titlecase(synonym.replace('-', ''))}")
        self.lookup[norm] = key
        return key

    def _abbreviated_speaker(self, part: str, norm: str) -> str | None:
        """An abbreviation: the one known name (or name word) that the heading begins, else None."""
        if " " in norm or len(norm) < 2:
            return None
        candidates = {
            key for phrase, key in {**self.lookup, **{k: k for k in self.persona_by_key if self.persona_by_key[k].named}}.items()
            if phrase.startswith(norm) and phrase != norm
        }
        if len(candidates) > 1:
            # `Cor.` begins Cordelia and `Corn.`, Cornwall's heading: it is Cordelia.
            claimed = {key for phrase, key in self.lookup.items() if phrase != key and phrase != norm}
            candidates = candidates - claimed or candidates
        if not candidates:
            # `Gent.`, `Phys.`: a kind of person the personae list, shortened
            candidates = {k for k in self.persona_by_key if k.startswith(norm) and len(k.split()) == 1}
        if not candidates and len(norm) >= 3:
            candidates = self._abbreviated_persona(norm)
        if len(candidates) != 1:
            return None
        key = candidates.pop()
        if key in self.persona_by_key:
            self._ensure(key, self.persona_by_key[key].name)
        self.lookup[norm] = key
        self.aliases[key].add(titlecase(part.rstrip(".")))
        return key

    def _abbreviated_persona(self, norm: str) -> set[str]:
        """Named personae a heading like `Alb.`, `Corn.` or `Glou.` shortens: a word of the name it begins.

        A letter may differ after the third (`Glou.` for Gloster); a persona another heading already
        shortens is not a candidate when others are (`Corn.` is Cornwall, so `Cor.` is Cordelia).
        """
        def shortens(word: str, slack: int, whole: bool) -> bool:
            if len(word) < len(norm) or (len(word) == len(norm) and not whole) or word in TITLE_WORDS:
                return False
            return word[:3] == norm[:3] and sum(a != b for a, b in zip(word, norm)) <= slack

        def words_of(key: str, persona: Persona) -> list[tuple[str, bool]]:
            # the name's words, and the domain a title gives, whole or shortened: "Thomas Beaufort,
            # Duke of Exeter" is `EXETER`, "Thomas Percy, Earl of Worcester" is `Wor.`
            domains = re.findall(r"\b(?:%s)\s+of\s+([A-Z][a-z]+)" % "|".join(TITLE_WORDS), persona.description, re.I)
            return [*((w, False) for w in key.split()), *((name_key(d), True) for d in domains)]

        found: set[str] = set()
        for slack in (0, 1 if len(norm) >= 4 else 0):  # an exact beginning first, then one letter off
            found = {key for key, persona in self.persona_by_key.items()
                     if persona.named and any(shortens(word, slack, whole) for word, whole in words_of(key, persona))}
            if found:
                break
        if len(found) > 1:
            claimed = {key for phrase, key in self.lookup.items() if phrase != key}
            found = found - claimed or found
        return found

    def _persona_by_word(self, norm: str) -> str | None:
        """The named persona a one-word heading names: by its last word, any word, then a shared stem.

        CAESAR, when both Julius and Octavius Caesar are listed, is the one listed first (the title
        role); a stem (`anton` of ANTONY and Antonius) must be five letters and name one persona.
        """
        named = [(key, key.split()) for key, persona in self.persona_by_key.items() if persona.named and " " in key]
        for test in (lambda words: words[-1] == norm, lambda words: norm in words):
            hits = [key for key, words in named if test(words)]
            if hits:
                return hits[0]
        stems = [key for key, words in named if any(len(w) >= 5 and w[:5] == norm[:5] for w in words)]
        return stems[0] if len(stems) == 1 and len(norm) >= 5 else None

    def voices(self) -> set[str]:
        """Keys the dramatis personae does not list and who say little: voices, not agents (none without a list)."""
        if not self.personae or not self.listed:
            return set()
        listed = listed_words(self.personae)
        return {key for key in self.display
                if not is_listed([self.display[key], *self.aliases.get(key, set())], listed)
                and self.speeches.get(key, 0) < VOICE_MAX_SPEECHES}

    # -- resolving --------------------------------------------------------------------------

    def resolve_label(self, label: str) -> tuple[list[str], str | None]:
        """(agent keys, special) for a speech heading; special is `all`/`both`/a group noun."""
        keys: list[str] = []
        special = None
        parts = [w for part in split_label(label) for w in self.together.get(name_key(part), [part])]
        for part in parts:
            norm = name_key(part)
            if norm in {"all", "omnes", "all three"}:
                special = "all"
                continue
            if norm == "both":
                special = "both"
                continue
            crowd = re.match(r"^(both|all)\s+(?P<noun>.+)$", norm)
            if crowd:
                special = name_key(singular(crowd.group("noun")))  # "Both Murderers": the murderers on stage
                continue
            key = self._resolve_label_part(part, create=False)
            if key:
                keys.append(key)
            else:
                special = name_key(singular(part))  # a plural role: its members on stage
        return keys, special

    def members(self, noun: str) -> list[str]:
        """Agent keys whose name contains a role noun (`player` -> First Player, Player King)."""
        noun = self.synonym_of.get(noun, noun)
        return [key for key in self.display if noun in key.split() and key not in self.groups]

    def phrases(self) -> dict[str, tuple[str, str]]:
        """Folded phrase -> (kind, target) for scanning directions: kind `agent`, `group` or `persona`."""
        version = (len(self.display), len(self.lookup), sum(len(a) for a in self.aliases.values()))
        if self._phrases is not None and self._phrases[0] == version:
            return self._phrases[1]
        table = self._build_phrases()
        self._phrases = (version, table)
        return table

    def _build_phrases(self) -> dict[str, tuple[str, str]]:
        table: dict[str, tuple[str, str]] = {}
        nouns = {word for key in self.display for word in key.split()}
        for noun in nouns:
            members = self.members(noun)
            if members and len(noun) > 2:
                table[noun + "s"] = ("group", noun)
                if noun.endswith("y"):
                    table[noun[:-1] + "ies"] = ("group", noun)
        for canonical, key in [(s, k) for s, k in self.synonym_of.items()]:
            table[canonical + "s"] = ("group", key)
        for phrase, key in self.lookup.items():
            if len(phrase) > 2 or phrase == key:
                table[phrase] = ("agent", key)
        for key in self.display:
            table[key] = ("agent", key)
            for alias in self.aliases[key]:
                table.setdefault(name_key(alias), ("agent", key))
        for persona_key, persona in self.persona_by_key.items():
            if persona.named:
                table.setdefault(persona_key, ("persona", persona_key))
        return table

    def mentions(self, text: str, *, on_stage: list[str] | None = None) -> list[str]:
        """Agent keys named in a stage direction, in order (groups expand to their members)."""
        table = self.phrases()
        tokens = [(m.group(0), m.start()) for m in WORD_RE.finditer(text)]
        words = [re.sub(r"['’]s?$", "", fold(tok)) for tok, _ in tokens]
        found: list[str] = []
        i = 0
        while i < len(tokens):
            matched = False
            for size in (3, 2, 1):
                if i + size > len(tokens):
                    continue
                phrase = " ".join(words[i : i + size]).replace("-", "")
                entry = table.get(phrase)
                if entry is None:
                    continue
                kind, target = entry
                original = tokens[i][0]
                before = words[i - 1] if i else ""
                before2 = " ".join(words[max(0, i - 2) : i])
                if kind != "group" and not original[:1].isupper():
                    continue
                if before in {"a", "an"} and kind == "agent" and phrase != target:
                    # "a King" is not the King: perhaps the Player King, else nobody we know.
                    others = [k for k in self.display if k != target and k.split()[-1] == phrase]
                    if len(others) == 1 and others[0] not in found:
                        found.append(others[0])
                    i += size
                    matched = True
                    break
                if before2 in CORPSE_WORDS:
                    i += size
                    matched = True
                    break
                if kind == "group":
                    for member in self.members(target):
                        if member not in found:
                            found.append(member)
                elif kind == "persona":
                    key = self._ensure(target, self.persona_by_key[target].name)
                    if key not in found:
                        found.append(key)
                elif target not in found:
                    found.append(target)
                i += size
                matched = True
                break
            if not matched:
                i += 1
        return found


def split_label(label: str) -> list[str]:
    """The speakers a heading joins with `and` or `&`."""
    return [p.strip() for p in re.split(r"\s+(?:and|&)\s+", label.strip().rstrip(".")) if p.strip()]


def words_of(text: str) -> set[str]:
    """Folded singular words of three letters or more: what names and roles are compared by."""
    return {name_key(singular(w)) for w in WORD_RE.findall(text) if len(w) >= 3} - {"the", "and", "her", "his"}


def listed_words(personae: list[Persona]) -> set[str]:
    """Folded words by which the dramatis personae lists someone: names, role nouns, synonyms."""
    words: set[str] = set()
    for persona in personae:
        # "REYNALDO, Servant to Polonius": the role noun of a description names a kind of person too.
        role = persona.description.split(",")[0].split(" to ")[0].split(" of ")[0]
        words |= words_of(persona.name) | words_of(role) | {name_key(singular(s)) for s in persona.synonyms}
    return words


def is_listed(names: list[str], listed: set[str]) -> bool:
    """Whether any word of these names is one the dramatis personae lists someone by."""
    return bool(words_of(" ".join(names)) & listed)
