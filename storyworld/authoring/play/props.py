"""Props: objects that change hands or are read in the stage directions and speeches become world objects.

`Gives him a letter`, `Reads`, `Here is my dagger`: the reader tells the tracker what each
direction and speech shows; when the play is read, the tracker's `seen()` props (in agent and place
keys) become `WorldObject`s held by whoever first held them, else lying where they were first seen.
"""

from __future__ import annotations

import re

import msgspec

from storyworld.authoring.common import slugify, trim_text, unique_id
from storyworld.world.schema import WorldObject

PROP_NOUNS = (
    "letter", "letters", "dagger", "sword", "rapier", "foil", "poison", "cup", "chalice", "vial", "potion", "ring",
    "handkerchief", "paper", "papers", "scroll", "purse", "crown", "book", "skull", "key", "jewel", "casket", "seal",
    "warrant", "commission", "torch", "taper", "bond", "pearl", "picture", "locket", "token", "will", "document",
    "note", "map", "gun", "pistol", "knife",
)
PROP_RE = re.compile(r"\b(?P<det>a|an|the|his|her|their|my|thy|your|this|that|these|those|its)\s+(?:[a-z]+\s+)?(?P<noun>" + "|".join(PROP_NOUNS) + r")\b", re.I)
GIVE_RE = re.compile(r"\b(gives?|hands?|delivers?|passes?|throws?)\b", re.I)
READ_RE = re.compile(r"\b(reads?|reading|opens?)\b", re.I)
TAKE_RE = re.compile(r"\b(takes?|draws?|snatches|seizes?|drinks?|picks? up|holds?|with|pours?|brings?|shows?)\b", re.I)
SPEECH_PROP_RE = re.compile(r"\b(?:here is|here's|here’s|take|read|behold)\s+(?:my|this|the|thy)\s+(?P<noun>" + "|".join(PROP_NOUNS) + r")\b", re.I)


class Prop(msgspec.Struct, frozen=True, kw_only=True):
    """A prop as the play leaves it: who first held it and where it was first seen (keys), how it was handled."""

    noun: str
    first_holder: str = ""
    place: str = ""
    handled: tuple[str, ...] = ()
    read_by: tuple[str, ...] = ()
    text: str = ""


class _Prop(msgspec.Struct, kw_only=True):
    """A prop while the play is read: who first held it, who holds it now, what reading it tells."""

    noun: str
    first_holder: str = ""
    holder: str = ""
    place: str = ""
    first_event: int = 0
    handled: list[str] = msgspec.field(default_factory=list)  # how it changed hands, for its description
    read_by: list[str] = msgspec.field(default_factory=list)
    text: str = ""  # what it says, when someone reads it out
    read_scene: int = -1


class PropTracker:
    """Objects that change hands or are read, from stage directions (`Gives him a letter`, `Reads`)."""

    def __init__(self) -> None:
        self.props: list[_Prop] = []

    def _current(self, noun: str, det: str, holder: str) -> _Prop | None:
        singular = noun.rstrip("s") if noun.endswith("s") and noun not in {"papers", "letters"} else noun
        if det.lower() in {"a", "an"}:
            # "Enter Maro, with a letter": the letter he was given earlier, if he holds one.
            return next((p for p in reversed(self.props) if p.noun == singular and holder and p.holder == holder), None)
        for prop in reversed(self.props):
            if prop.noun == singular and (not holder or prop.holder in {holder, ""} or det.lower() in {"the", "this", "that"}):
                return prop
        return None

    def direction(self, clause: str, actors: list[str], named: list[str], last_speakers: list[str], place: str,
                  event_index: int) -> None:
        """Note the props a stage direction shows, and who ends up holding them."""
        matches = list(PROP_RE.finditer(clause))
        doer = actors[0] if actors else (last_speakers[0] if last_speakers else "")
        reading = READ_RE.search(clause)
        if not matches and reading and doer:
            # A bare "Reads.": the letter (or paper) the reader holds or was last given.
            prop = next((p for p in reversed(self.props) if p.holder == doer and p.noun in {"letter", "paper", "letters", "scroll"}), None)
            if prop is not None and doer not in prop.read_by:
                prop.read_by.append(doer)
            return
        for match in matches:
            noun, det = match.group("noun").lower(), match.group("det")
            singular = noun[:-1] if noun.endswith("s") and noun not in {"papers", "letters"} else noun
            prop = self._current(noun, det, doer)
            if prop is None:
                prop = _Prop(noun=singular, place=place, first_event=event_index)
                self.props.append(prop)
            receiver = ""
            if GIVE_RE.search(clause[: match.start()] or clause):
                others = [k for k in named if k != doer] or [k for k in last_speakers if k != doer]  # the one spoken to
                receiver = others[0] if others else ""
            if not prop.first_holder:
                prop.first_holder = doer or receiver
            if receiver:
                prop.holder = receiver
                prop.handled.append(f"{clause}")
            elif doer and (TAKE_RE.search(clause) or reading):
                prop.holder = doer
                prop.handled.append(clause)
            if reading and doer and doer not in prop.read_by:
                prop.read_by.append(doer)

    def read_aloud(self, reader: str, text: str, place: str, event_index: int, scene: int) -> None:
        """A speaker reads out a letter: the one they hold (else a new one), carrying the words read."""
        # A letter read out in an earlier scene is not the one read now (Claudius's paper of 2.2 is not
        # Hamlet's letter of 4.7); one read in bits within a scene is one letter (Polonius in 2.2).
        prop = next((p for p in reversed(self.props)
                     if p.holder == reader and p.noun in {"letter", "paper", "scroll"}
                     and (not p.text or p.read_scene == scene)), None)
        if prop is None:
            prop = _Prop(noun="letter", first_holder=reader, holder=reader, place=place, first_event=event_index,
                         handled=["Reads a letter aloud"])
            self.props.append(prop)
        if reader not in prop.read_by:
            prop.read_by.append(reader)
        prop.text = trim_text(f"{prop.text} {text}".strip(), 300)
        prop.read_scene = scene

    def speech(self, text: str, speaker: str, place: str, event_index: int) -> None:
        """`Here is my dagger`, `Read this letter`: a prop the speaker holds, when none of its kind is known yet."""
        for match in SPEECH_PROP_RE.finditer(text):
            noun = match.group("noun").lower()
            if any(p.noun == noun and p.holder == speaker for p in self.props):
                continue
            self.props.append(_Prop(noun=noun, first_holder=speaker, holder=speaker, place=place,
                                    first_event=event_index, handled=[trim_text(match.group(0), 80)]))

    def seen(self) -> list[Prop]:
        """The props as the play leaves them, in the order they were first seen."""
        return [Prop(noun=p.noun, first_holder=p.first_holder, place=p.place, handled=tuple(p.handled),
                     read_by=tuple(p.read_by), text=p.text) for p in self.props]


def world_objects(props: list[Prop], agent_ids: dict[str, str], place_ids: dict[str, str]) -> list[WorldObject]:
    """World objects: each held by whoever first held it, else lying where it was first seen (or the first place)."""
    out: list[WorldObject] = []
    taken: set[str] = set()
    for prop in props:
        holder = agent_ids.get(prop.first_holder)
        place = None if holder else place_ids.get(prop.place, next(iter(place_ids.values()), None))
        if holder is None and place is None:
            continue
        readers = ", ".join(agent_ids.get(r, r) for r in prop.read_by)
        description = "; ".join(prop.handled[:3]) or "Seen on stage."
        out.append(WorldObject(
            id=unique_id(slugify(prop.noun, "object"), taken), name=prop.noun[:1].upper() + prop.noun[1:],
            description=trim_text(description, 240), holder=holder, place=place,
            carries=prop.text or (f"Read by {readers} in the play." if readers else ""),
        ))
    return out
