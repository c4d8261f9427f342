"""Cards and lorebooks out: a character as a SillyTavern card (V2, V3, PNG, CHARX), a world as a lorebook.

A card carries the character's persona and its own memories as `character_book` entries, each scoped
to the character by a SillyTavern `characterFilter` (kept in the entry's `extensions`, where the specs
put an application's own data). A lorebook carries the world's people, places and objects. Field names
follow the published specs (chara_card_v2, chara_card_v3, lorebook_v3) and SillyTavern's world-info
files, which name an entry's keywords `key` where the card specs say `keys`. The picture of a PNG card
is re-encoded by Pillow, which writes the card as `tEXt` chunks (`ccv3`, and `chara` for V2 readers).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import zipfile
from typing import TYPE_CHECKING, Literal

import msgspec

from storyworld.errors import UserError
from storyworld.world import World

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

    from storyworld.jsondata import Document

CardFormat = Literal["v2", "v3", "png", "charx"]
LorebookFormat = Literal["st", "v3"]
CARD_FORMATS: tuple[str, ...] = CardFormat.__args__  # type: ignore[attr-defined]
LOREBOOK_FORMATS: tuple[str, ...] = LorebookFormat.__args__  # type: ignore[attr-defined]
SUFFIX = {"v2": ".json", "v3": ".json", "png": ".png", "charx": ".charx"}
ICON_PATH = "assets/icon/images/main.png"  # where the V3 spec says a CHARX keeps its icon
CREATOR = "storyworld"
PORTRAIT_SIZE = (400, 600)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # a CHARX's entries carry no wall-clock time: the same card gives the same bytes
# The V3 spec asks a V2 copy made from a V3 card to say so in its creator notes.
BACKFILL_NOTE = ("This card was written as Character Card V3; this `chara` copy is its Character Card V2 form "
                 "for readers that know only V2.")
# SillyTavern's defaults for a world-info entry (public/scripts/world-info.js, newWorldInfoEntryDefinition).
ST_ENTRY_DEFAULTS: dict[str, object] = {
    "keysecondary": [], "constant": False, "vectorized": False, "selective": True, "selectiveLogic": 0,
    "addMemo": True, "order": 100, "position": 0, "disable": False, "excludeRecursion": False,
    "preventRecursion": False, "delayUntilRecursion": 0, "probability": 100, "useProbability": True, "depth": 4,
    "group": "", "groupOverride": False, "groupWeight": 100, "scanDepth": None, "caseSensitive": None,
    "matchWholeWords": None, "useGroupScoring": None, "automationId": "", "role": 0, "sticky": None,
    "cooldown": None, "delay": None,
}


class Memory(msgspec.Struct, frozen=True, kw_only=True):
    """One record a character holds, as a lorebook entry: what it says, words that call it up, how it was learned."""

    ref: str  # the record id (`#12`) or canon event id it comes from
    text: str
    keys: tuple[str, ...] = ()
    provenance: str = ""  # "told by Barnardo r2": the character's own holding, nobody else's
    round: int = 0
    via: str = "witnessed"
    source: str | None = None
    since_round: int = 0
    confidence: float = 1.0
    status: str = "believed"


class Persona(msgspec.Struct, frozen=True, kw_only=True):
    """What a card says of a character apart from its memories."""

    agent_id: str
    name: str
    description: str
    scenario: str = ""
    first_mes: str = ""
    world_id: str
    world_title: str
    round: int | None = None  # the save's round; None for a world's start


class Lore(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of a world lorebook: a person, place or object."""

    ref: str  # "agent:hamlet", "place:battlements", "object:letter"
    name: str
    keys: tuple[str, ...]
    content: str


def persona(world: World, agent_id: str, *, scenario: str, first_mes: str = "", round_: int | None = None) -> Persona:
    """The card's persona: the agent's description, other names and goals as the world file has them."""
    agent = world.agents[agent_id]
    parts = [agent.description.strip()]
    others = [n for n in (*agent.aliases, agent.native_name) if n and n != agent.name]
    if others:
        parts.append("Also called " + ", ".join(others) + ".")
    if agent.goals:
        parts.append("Goals: " + "; ".join(g.strip().rstrip(".") for g in agent.goals) + ".")
    return Persona(agent_id=agent_id, name=agent.name, description="\n\n".join(p for p in parts if p),
                   scenario=scenario, first_mes=first_mes, world_id=world.id, world_title=world.title, round=round_)


def _book_entry(memory: Memory, index: int, name: str, spec: str) -> Document:
    """A character_book entry (V2 or V3 field set) for one memory, scoped to the character by characterFilter."""
    entry: Document = {
        "keys": list(memory.keys),
        "content": memory.text,
        "extensions": {
            "characterFilter": {"isExclude": False, "names": [name], "tags": []},
            "storyworld": {"ref": memory.ref, "round": memory.round, "via": memory.via, "source": memory.source,
                           "since_round": memory.since_round, "confidence": round(memory.confidence, 4),
                           "status": memory.status},
        },
        "enabled": True,
        "insertion_order": index,
        "case_sensitive": False,
        "name": f"{name}: {memory.ref}",
        "priority": round(memory.confidence * 100),  # a token budget drops the least sure memories first
        "id": index,
        "comment": memory.provenance,
        "selective": False,
        "secondary_keys": [],
        "constant": False,
        "position": "after_char",
    }
    if spec == "v3":
        entry["use_regex"] = False  # the keys are names, matched as text
    return entry


def card_json(who: Persona, memories: list[Memory], *, spec: Literal["v2", "v3"], now: int = 0,
              icon_uri: str | None = None) -> Document:
    """The card as the spec's JSON object (`spec`, `spec_version`, `data`), its memories as the character book."""
    where = f"round {who.round} of a storyworld save" if who.round is not None else "its world file"
    data: Document = {
        "name": who.name,
        "description": who.description,
        "personality": "",
        "scenario": who.scenario,
        "first_mes": who.first_mes,
        "mes_example": "",
        "creator_notes": f"{who.name} of {who.world_title}, exported by storyworld from {where}. "
                         f"The character book holds {who.name}'s own memories, each scoped to {who.name}.",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "character_book": {
            "name": f"{who.name}'s memories",
            "description": f"What {who.name} holds in {who.world_title}, and how each was learned.",
            "recursive_scanning": False,
            "extensions": {},
            "entries": [_book_entry(m, i, who.name, spec) for i, m in enumerate(memories)],
        },
        "tags": [who.world_title, CREATOR],
        "creator": CREATOR,
        "character_version": "",
        "extensions": {"storyworld": {"world": who.world_id, "agent": who.agent_id, "round": who.round}},
    }
    if spec == "v2":
        return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}
    data["group_only_greetings"] = []
    data["creation_date"] = now
    data["modification_date"] = now
    if icon_uri is not None:
        data["assets"] = [{"type": "icon", "uri": icon_uri, "name": "main", "ext": "png"}]
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": data}


def card_bytes(who: Persona, memories: list[Memory], fmt: CardFormat, *, now: int = 0,
               image: bytes | None = None, image_name: str = "--image") -> bytes:
    """The card file in one of the formats: V2 or V3 JSON, a PNG with `ccv3` and `chara` chunks, or a CHARX zip."""
    if fmt in ("v2", "v3"):
        return dump_json(card_json(who, memories, spec=fmt, now=now))
    picture = portrait(who, image, image_name)
    if fmt == "png":
        v3 = card_json(who, memories, spec="v3", now=now, icon_uri="ccdefault:")
        v2 = card_json(who, memories, spec="v2", now=now)
        v2["data"]["creator_notes"] = f"{v2['data']['creator_notes']}\n\n{BACKFILL_NOTE}"
        return png_bytes(picture, {"chara": _b64(v2), "ccv3": _b64(v3)})
    v3 = card_json(who, memories, spec="v3", now=now, icon_uri=f"embeded://{ICON_PATH}")  # the spec's spelling
    return charx_zip(v3, png_bytes(picture))


def dump_json(obj: object) -> bytes:
    """JSON as a card file holds it: UTF-8, names kept as written."""
    return json.dumps(obj, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"


def _b64(card: Document) -> str:
    return base64.b64encode(json.dumps(card, ensure_ascii=False).encode("utf-8")).decode("ascii")


def portrait(who: Persona, image: bytes | None = None, where: str = "--image") -> Picture:
    """The card's picture (a Pillow image): the image given, in any format Pillow reads, else a plain portrait."""
    from PIL import Image, ImageDraw, ImageFont, UnidentifiedImageError

    if image is not None:
        try:
            with Image.open(io.BytesIO(image)) as given:
                given.load()
                return given.convert("RGBA") if given.mode not in ("RGB", "RGBA") else given.copy()
        except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
            raise UserError(f"{where}: not a picture Pillow can read ({exc})") from None
    digest = hashlib.blake2b(who.agent_id.encode("utf-8"), digest_size=3).digest()
    colour = tuple(64 + b // 2 for b in digest)  # mid tones, so white initials always read
    picture = Image.new("RGB", PORTRAIT_SIZE, colour)
    # Pillow's bundled font is Latin only: other scripts would draw as empty boxes
    initials = "".join(word[0] for word in who.name.split()[:2] if ord(word[0]) < 0x250).upper()
    try:
        font = ImageFont.load_default(size=160)
    except (OSError, ImportError):  # Pillow without FreeType has only its small bitmap font, which cannot centre
        font = None
    if initials and isinstance(font, ImageFont.FreeTypeFont):
        ImageDraw.Draw(picture).text((PORTRAIT_SIZE[0] // 2, PORTRAIT_SIZE[1] // 2), initials, fill="white",
                                     font=font, anchor="mm")
    return picture


def png_bytes(picture: Picture, text: dict[str, str] | None = None) -> bytes:
    """The picture as a PNG file with these tEXt chunks (a picture's own earlier chunks are not carried over)."""
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    for keyword, value in (text or {}).items():
        info.add_text(keyword, value)  # ASCII (base64) and not zip: Pillow writes a tEXt chunk, as the specs ask
    out = io.BytesIO()
    picture.save(out, "PNG", pnginfo=info)
    return out.getvalue()



def charx_zip(card: Document, icon_png: bytes) -> bytes:
    """A CHARX file: `card.json` at the zip's root and the icon under assets/, ASCII paths, no encryption."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, body in (("card.json", dump_json(card)), (ICON_PATH, icon_png)):
            archive.writestr(zipfile.ZipInfo(path, date_time=ZIP_TIME), body, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


# ------------------------------------------------------------------------------------------------ lorebooks


def world_lore(world: World) -> list[Lore]:
    """The world's people, places and objects as lorebook entries, keyed by every name each goes by."""
    lore: list[Lore] = []
    for agent in world.file.agent:
        keys = tuple(dict.fromkeys(n for n in agent.all_names() if n.strip()))
        lore.append(Lore(ref=f"agent:{agent.id}", name=agent.name, keys=keys,
                         content=_sentence(agent.name, agent.description)))
    for place in world.file.place:
        exits = [world.places[e].name for e in place.exits if e in world.places]
        content = _sentence(place.name, place.description)
        if exits:
            content += f" From here one can go to {', '.join(exits)}."
        keys = tuple(dict.fromkeys(n for n in (place.name, place.native_name) if n.strip()))
        lore.append(Lore(ref=f"place:{place.id}", name=place.name, keys=keys, content=content))
    for thing in world.file.object:
        # what reading a carrier tells stays out: world info reaches every character, a letter only its reader
        lore.append(Lore(ref=f"object:{thing.id}", name=thing.name, keys=(thing.name,),
                         content=_sentence(thing.name, thing.description)))
    return lore


def _sentence(name: str, description: str) -> str:
    text = description.strip()
    return f"{name}: {text}" if text else name


def lorebook_json(world: World, fmt: LorebookFormat, memories: list[Memory] | None = None,
                  owner: str = "") -> Document:
    """A world lorebook: SillyTavern world info (`entries` by uid, keywords in `key`) or lorebook_v3 (`keys`).

    With `memories`, the owner's memories follow the world's entries, each scoped by `characterFilter` to
    the owner (the character's name, which SillyTavern matches against the card's file name).
    """
    lore = world_lore(world)
    memories = memories or []
    name = f"{world.title} (storyworld)" + (f", with {owner}'s memories" if memories else "")
    description = f"The people, places and objects of {world.title}, exported by storyworld." + (
        f" {owner}'s own memories are scoped to {owner}." if memories else "")
    if fmt == "st":
        entries = [_st_entry(item.keys, item.content, item.name, {"storyworld": {"ref": item.ref}}) for item in lore]
        for memory in memories:
            scoped = _book_entry(memory, 0, owner, "v3")["extensions"]
            own = {"storyworld": scoped["storyworld"]}
            entries.append({**_st_entry(memory.keys, memory.text, memory.provenance, own),
                            "characterFilter": scoped["characterFilter"]})  # world info has the field itself
        for uid, entry in enumerate(entries):
            entry.update(uid=uid, order=100 + uid, displayIndex=uid)
        return {"name": name, "description": description, "entries": {str(e["uid"]): e for e in entries}}
    items = [{"keys": list(item.keys), "content": item.content, "extensions": {"storyworld": {"ref": item.ref}},
              "enabled": True, "insertion_order": 0, "use_regex": False, "constant": False, "case_sensitive": False,
              "name": item.name, "id": 0, "comment": item.name, "selective": False, "secondary_keys": [],
              "position": "before_char"} for item in lore]
    items += [_book_entry(memory, 0, owner, "v3") for memory in memories]
    for uid, item in enumerate(items):
        item.update(insertion_order=uid, id=uid)
    book = {"name": name, "description": description, "recursive_scanning": False, "extensions": {}, "entries": items}
    return {"spec": "lorebook_v3", "data": book}


def _st_entry(keys: tuple[str, ...], content: str, comment: str, extensions: dict[str, object]) -> Document:
    """A SillyTavern world-info entry with its defaults; the caller numbers it (uid, order, displayIndex)."""
    return {"uid": 0, "key": list(keys), "comment": comment, "content": content, **ST_ENTRY_DEFAULTS,
            "extensions": extensions}
