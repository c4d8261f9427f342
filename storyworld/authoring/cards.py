"""Character cards (Character Card V1/V2/V3, JSON, PNG or CHARX) -> an agent with canon lines and lorebook facts.

A PNG card carries the card JSON base64-encoded in a `tEXt` chunk keyed `chara` (V3 may use
`ccv3`, preferred when both are there); a CHARX card is a zip with `card.json` at its root. Nothing
here runs code from the card: it is decoded as JSON and read field by field; a bad card is a
UserError naming the field. A lorebook entry scoped by `characterFilter` to other characters is
not this character's to know, and is left out.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import os
import re
import struct
import zipfile
import zlib
from pathlib import Path

import msgspec

from storyworld.authoring.assemble import PlaceDraft, StartDraft, assemble_world, assign_ids
from storyworld.authoring.common import slugify, trim_text
from storyworld.errors import UserError
from storyworld.world.schema import Agent, Event, WorldFile, WorldInfo

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZIP_SIGNATURE = b"PK\x03\x04"
PLAYER_WORD = "the player"
MAX_CARD_BYTES = 16 << 20  # a card's JSON, however it was packed (a zTXt chunk can inflate 1,000-fold)


class Card(msgspec.Struct, frozen=True, kw_only=True):
    """What storyworld uses of a character card."""

    name: str
    description: str = ""
    personality: str = ""
    scenario: str = ""
    first_mes: str = ""
    lore: list[tuple[list[str], str]] = msgspec.field(default_factory=list)  # (keys, content) of enabled entries
    spec: str = "v1"


def png_text_chunks(data: bytes, where: str = "card") -> dict[str, bytes]:
    """The `tEXt` (and uncompressed `iTXt`/`zTXt`) chunks of a PNG: keyword -> raw text bytes."""
    if not data.startswith(PNG_SIGNATURE):
        raise UserError(f"{where}: not a PNG file")
    chunks: dict[str, bytes] = {}
    position = len(PNG_SIGNATURE)
    while position + 8 <= len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if len(body) < length:
            raise UserError(f"{where}: PNG chunk {kind.decode('latin-1', 'replace')} is cut short")
        if kind == b"tEXt" and b"\x00" in body:
            keyword, _, text = body.partition(b"\x00")
            chunks[keyword.decode("latin-1")] = text
        elif kind == b"zTXt" and b"\x00" in body:
            keyword, _, rest = body.partition(b"\x00")
            try:
                chunks[keyword.decode("latin-1")] = _inflate(rest[1:], where, keyword)
            except zlib.error:
                pass  # a damaged compressed chunk is not the card: the card chunks are tEXt
        elif kind == b"iTXt" and b"\x00" in body:
            keyword, _, rest = body.partition(b"\x00")
            compressed = rest[:1] == b"\x01"
            rest = rest[2:]
            _, _, rest = rest.partition(b"\x00")  # language tag
            _, _, text = rest.partition(b"\x00")  # translated keyword
            try:
                chunks[keyword.decode("latin-1")] = _inflate(text, where, keyword) if compressed else text
            except zlib.error:
                pass
        if kind == b"IEND":
            break
        position += 12 + length
    return chunks


def _inflate(data: bytes, where: str, keyword: bytes) -> bytes:
    """A compressed chunk's text, refused (UserError) past MAX_CARD_BYTES instead of inflated into memory."""
    inflater = zlib.decompressobj()
    text = inflater.decompress(data, MAX_CARD_BYTES)
    if inflater.unconsumed_tail:
        raise UserError(f"{where}: the compressed `{keyword.decode('latin-1', 'replace')}` chunk inflates past "
                        f"{MAX_CARD_BYTES >> 20} MB; not a character card")
    return text


def read_card(path: str | os.PathLike[str]) -> Card:
    """The card in a JSON or PNG file; UserError naming the file and field when it is not a usable card."""
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"{where}: cannot read: {exc.strerror or exc}") from None
    if data.startswith(PNG_SIGNATURE):
        chunks = png_text_chunks(data, where)
        keyword = "ccv3" if "ccv3" in chunks else "chara" if "chara" in chunks else None
        if keyword is None:
            raise UserError(f"{where}: no character card in this PNG (no `chara` or `ccv3` text chunk)")
        try:
            data = base64.b64decode(chunks[keyword], validate=False)
        except (binascii.Error, ValueError):
            raise UserError(f"{where}: the `{keyword}` chunk is not base64") from None
        where = f"{where} ({keyword})"
    elif data.startswith(ZIP_SIGNATURE):
        data = charx_card_json(data, where)
        where = f"{where} (card.json)"
    if len(data) > MAX_CARD_BYTES:
        raise UserError(f"{where}: {len(data) >> 20} MB is too big for a character card (at most {MAX_CARD_BYTES >> 20} MB)")
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{where}: not a JSON character card ({exc.__class__.__name__}: {str(exc)[:80]})") from None
    except RecursionError:  # JSON nested thousands of levels deep
        raise UserError(f"{where}: not a character card (its JSON is nested too deeply)") from None
    try:
        return card_from_json(raw, where)
    except RecursionError:
        raise UserError(f"{where}: not a character card (its JSON is nested too deeply)") from None


def charx_card_json(data: bytes, where: str = "card") -> bytes:
    """The `card.json` of a CHARX zip, refused (UserError) past MAX_CARD_BYTES before it is inflated."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            try:
                info = archive.getinfo("card.json")
            except KeyError:
                raise UserError(f"{where}: no character card in this zip (no `card.json` at its root)") from None
            if info.file_size > MAX_CARD_BYTES:
                raise UserError(f"{where}: card.json is {info.file_size >> 20} MB, too big for a character card")
            with archive.open(info) as member:
                body = member.read(MAX_CARD_BYTES + 1)  # the header's size can lie; the read cannot
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as exc:
        raise UserError(f"{where}: not a readable CHARX zip ({exc})") from None
    if len(body) > MAX_CARD_BYTES:
        raise UserError(f"{where}: card.json inflates past {MAX_CARD_BYTES >> 20} MB; not a character card")
    return body


def _text(obj: dict[str, object], field: str, where: str, prefix: str) -> str:
    value = obj.get(field, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise UserError(f"{where}: {prefix}{field}: must be text, not {type(value).__name__}")
    return value


def card_from_json(raw: object, where: str = "card") -> Card:
    """A Card from decoded card JSON (V1 bare fields, or V2/V3 with `data`)."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: a character card is a JSON object, not {type(raw).__name__}")
    spec = raw.get("spec")
    if spec is None and isinstance(raw.get("data"), dict) and "name" not in raw:
        spec = "chara_card_v2"  # some exporters leave `spec` out of a V2 card
    if spec is not None:
        if spec not in {"chara_card_v2", "chara_card_v3"}:
            raise UserError(f"{where}: spec: unknown card spec {spec!r} (chara_card_v2 or chara_card_v3)")
        data = raw.get("data")
        if not isinstance(data, dict):
            raise UserError(f"{where}: data: missing or not an object")
        prefix = "data."
        version = "v3" if spec == "chara_card_v3" else "v2"
    else:
        data, prefix, version = raw, "", "v1"
    name = _text(data, "name", where, prefix).strip()
    if not name:
        raise UserError(f"{where}: {prefix}name: missing or empty")
    fields = {field: _text(data, field, where, prefix) for field in ("description", "personality", "scenario", "first_mes")}
    lore: list[tuple[list[str], str]] = []
    book = data.get("character_book")
    if book is not None:
        if not isinstance(book, dict):
            raise UserError(f"{where}: {prefix}character_book: must be an object")
        entries = book.get("entries", [])
        if not isinstance(entries, list):
            raise UserError(f"{where}: {prefix}character_book.entries: must be a list")
        for index, entry in enumerate(entries):
            path = f"{prefix}character_book.entries[{index}]"
            if not isinstance(entry, dict):
                raise UserError(f"{where}: {path}: must be an object")
            content = entry.get("content")
            if not isinstance(content, str):
                raise UserError(f"{where}: {path}.content: missing or not text")
            keys = entry.get("keys", [])
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise UserError(f"{where}: {path}.keys: must be a list of text")
            if entry.get("enabled", True) is False or not content.strip() or not _meant_for(entry, name):
                continue
            lore.append((list(keys), content))
    return Card(name=name, spec=version, lore=lore, **fields)


def _meant_for(entry: dict[str, object], name: str) -> bool:
    """Whether a lorebook entry's SillyTavern `characterFilter` (on the entry or in its extensions) admits `name`."""
    extensions = entry.get("extensions")
    scope = entry.get("characterFilter")
    if scope is None and isinstance(extensions, dict):
        scope = extensions.get("characterFilter")
    if not isinstance(scope, dict) or not isinstance(scope.get("names"), list) or not scope["names"]:
        return True  # no names: the entry is everyone's
    named = name in scope["names"]
    return not named if scope.get("isExclude") is True else named


def _fill(text: str, name: str) -> str:
    text = re.sub(r"\{\{\s*char\s*\}\}|<BOT>", name, text, flags=re.I)
    return re.sub(r"\{\{\s*user\s*\}\}|<USER>", PLAYER_WORD, text, flags=re.I)


def import_card(card: Card, world: WorldFile | None = None, *, world_id: str | None = None) -> WorldFile:
    """`world` with the card's character added as an agent, its first message and lorebook as canon it holds."""
    if world is None:
        world = assemble_world(
            WorldInfo(id=world_id or slugify(card.name, "card"), title=card.name, default_start="beginning",
                      description="A world made from a character card."),
            places=[PlaceDraft(key="meeting-place", id="meeting-place", name="The meeting place",
                               description=_fill(card.scenario, card.name)[:400])],
            agents=[], events=[], starts=[StartDraft(id="beginning", round=0, description="Where the card's scenario begins.")],
        )
    taken = {a.id for a in world.agent} | {p.id for p in world.place} | {o.id for o in world.object}
    agent_id = assign_ids([("card", card.name)], "character", taken)["card"]
    home = world.place[0].id if world.place else "meeting-place"
    description = _fill(card.description, card.name).strip()
    if card.personality.strip():
        description = f"{description}\nPersonality: {_fill(card.personality, card.name).strip()}".strip()
    goals = [trim_text(_fill(card.scenario, card.name), 200)] if card.scenario.strip() else []
    agent = Agent(id=agent_id, name=card.name, description=trim_text(description, 1200), home=home, goals=goals)
    rounds = [e.round for e in world.event] + [s.round for s in world.start]
    canon_round = (min(rounds) - 1) if rounds else -1
    canon: list[Event] = []
    prefix = f"card-{agent_id}"
    if card.first_mes.strip():
        line = _fill(card.first_mes, card.name)
        canon.append(Event(id=f"{prefix}-first", round=canon_round, place=home, actors=[agent_id], witnesses=[agent_id],
                           kind="say", text=trim_text(line), statements=[trim_text(line, 300)]))
    for index, (keys, content) in enumerate(card.lore, 1):
        fact = _fill(content, card.name)
        canon.append(Event(id=f"{prefix}-lore-{index}", round=canon_round, place=home, actors=[agent_id],
                           witnesses=[agent_id], kind="observe", text=trim_text(fact),
                           statements=[trim_text(fact, 300)],
                           flags=[f"lorebook keys: {', '.join(keys)}"] if keys else []))
    return msgspec.structs.replace(world, agent=[*world.agent, agent], event=[*canon, *world.event])
