"""`storyworld export`: character cards (V2, V3 JSON, PNG, CHARX) and lorebooks, read back by our importer and
checked against the published specs' required fields; a save's card holds only its character's records."""

from __future__ import annotations

import base64
import io
import json
import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from PIL import Image

from storyworld.authoring.cards import Card, card_from_json, import_card, png_text_chunks, read_card
from storyworld.cli import main
from storyworld.errors import UserError
from storyworld.world import load_world
from tests.support.paths import TINY

FORMATS = ("v2", "v3", "png", "charx")

# The required fields and their JSON types, written from the specs' text (chara_card_v2's TavernCardV2 and
# chara_card_v3's CharacterCardV3 and Lorebook interfaces), not from the exporter.
V2_DATA = {"name": str, "description": str, "personality": str, "scenario": str, "first_mes": str,
           "mes_example": str, "creator_notes": str, "system_prompt": str, "post_history_instructions": str,
           "alternate_greetings": list, "tags": list, "creator": str, "character_version": str, "extensions": dict}
V3_DATA = {**V2_DATA, "group_only_greetings": list}
BOOK = {"extensions": dict, "entries": list}
V2_ENTRY = {"keys": list, "content": str, "extensions": dict, "enabled": bool, "insertion_order": int}
V3_ENTRY = {**V2_ENTRY, "use_regex": bool}
# SillyTavern world info (public/scripts/world-info.js): an entry's keywords are `key`, its switch `disable`
ST_ENTRY = {"uid": int, "key": list, "keysecondary": list, "comment": str, "content": str, "constant": bool,
            "selective": bool, "order": int, "position": int, "disable": bool}


def _export(tmp_path, *argv, name: str = "out") -> Path:
    out = tmp_path / name
    assert main(["export", *argv, "-o", str(out)]) == 0
    return out


def _has(obj: dict, fields: dict, where: str) -> None:
    for field, kind in fields.items():
        assert field in obj, f"{where}.{field} missing"
        assert isinstance(obj[field], kind), f"{where}.{field} is {type(obj[field]).__name__}, not {kind.__name__}"


def _silas_canon() -> list[str]:
    """What Silas witnessed before the start, read from the world file here (not from the exporter)."""
    world = load_world(TINY)
    start = world.start().round
    return [e.text for e in world.file.event if e.round < start and "silas" in (e.witnesses or e.actors)]


def _card_json(path: Path, fmt: str) -> dict:
    """The card JSON a file holds (for png, the ccv3 chunk), read without our importer."""
    data = path.read_bytes()
    if fmt == "png":
        return json.loads(base64.b64decode(Image.open(path).text["ccv3"]))
    if fmt == "charx":
        return json.loads(zipfile.ZipFile(io.BytesIO(data)).read("card.json"))
    return json.loads(data)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_is_read_back_by_our_importer_as_exported(tmp_path, fmt):
    path = _export(tmp_path, str(TINY), "--card", "Silas", "--format", fmt)
    card = read_card(path)
    raw = _card_json(path, fmt)
    assert card == card_from_json(raw)  # what the file says is what our importer reads
    world = load_world(TINY)
    silas = world.agents["silas"]
    assert card.spec == ("v2" if fmt == "v2" else "v3")
    assert card.name == "Silas" and card.description.startswith(silas.description)
    assert all(goal.rstrip(".") in card.description for goal in silas.goals)
    assert [content for _, content in card.lore] == _silas_canon() and card.lore
    assert all(keys and "Silas" not in keys for keys, _ in card.lore)  # called up by others' names, not his own
    imported = import_card(card)
    agent = imported.agent[-1]
    assert agent.name == "Silas" and agent.description.startswith(silas.description)
    assert [e.text for e in imported.event if e.id.startswith(f"card-{agent.id}-lore")] == _silas_canon()


def test_all_four_formats_carry_the_same_card(tmp_path):
    cards = {fmt: read_card(_export(tmp_path / fmt, str(TINY), "--card", "silas", "--format", fmt)) for fmt in FORMATS}
    assert len({(c.name, c.description, c.scenario, c.first_mes, tuple((tuple(k), t) for k, t in c.lore))
                for c in cards.values()}) == 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_cards_have_the_specs_required_fields(tmp_path, fmt):
    raw = _card_json(_export(tmp_path, str(TINY), "--card", "tobin", "--format", fmt), fmt)
    v2 = fmt == "v2"
    assert (raw["spec"], raw["spec_version"]) == (("chara_card_v2", "2.0") if v2 else ("chara_card_v3", "3.0"))
    _has(raw["data"], V2_DATA if v2 else V3_DATA, "data")
    book = raw["data"]["character_book"]
    _has(book, BOOK, "data.character_book")
    assert book["entries"]
    for index, entry in enumerate(book["entries"]):
        _has(entry, V2_ENTRY if v2 else V3_ENTRY, f"entries[{index}]")
        assert "key" not in entry  # `key` is world info's name; a card's entries say `keys`
        assert entry["extensions"]["characterFilter"] == {"isExclude": False, "names": ["Tobin"], "tags": []}
    if fmt == "charx":
        assert raw["data"]["assets"] == [{"type": "icon", "uri": "embeded://assets/icon/images/main.png",
                                          "name": "main", "ext": "png"}]


def _chunks(data: bytes) -> list[tuple[bytes, bytes, int]]:
    """(type, body, stored CRC) of every chunk, walked by hand."""
    out, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        out.append((kind, body, crc))
        at += 12 + length
    return out


def test_png_card_chunks_read_back(tmp_path):
    path = _export(tmp_path, str(TINY), "--card", "maren", "--format", "png")
    data = path.read_bytes()
    chunks = _chunks(data)
    assert all(zlib.crc32(kind + body) == crc for kind, body, crc in chunks)  # every CRC is right
    text = {body.partition(b"\0")[0]: body.partition(b"\0")[2] for kind, body, _ in chunks if kind == b"tEXt"}
    assert set(text) == {b"chara", b"ccv3"}  # tEXt, as the specs ask (never zTXt)
    assert chunks[-1][0] == b"IEND"
    v2 = json.loads(base64.b64decode(text[b"chara"]))
    v3 = json.loads(base64.b64decode(text[b"ccv3"]))
    assert v2["spec"] == "chara_card_v2" and v3["spec"] == "chara_card_v3"
    assert v2["data"]["character_book"]["entries"] and "use_regex" not in v2["data"]["character_book"]["entries"][0]
    assert "Character Card V3" in v2["data"]["creator_notes"]  # the backfilled V2 copy says what it is
    assert png_text_chunks(data).keys() >= {"chara", "ccv3"}
    assert Image.open(path).size == (400, 600)
    assert card_from_json(v2).lore == card_from_json(v3).lore == read_card(path).lore


def test_png_card_on_a_picture_of_ones_own(tmp_path):
    picture = tmp_path / "face.jpg"
    Image.new("RGB", (64, 80), (200, 30, 30)).save(picture, "JPEG")
    path = _export(tmp_path, str(TINY), "--card", "ada", "--format", "png", "--image", str(picture))
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (64, 80) and set(image.text) == {"chara", "ccv3"}
    assert read_card(path).name == "Ada"


def test_charx_is_a_zip_with_card_json_and_its_icon(tmp_path):
    path = _export(tmp_path, str(TINY), "--card", "maren", "--format", "charx", name="maren.charx")
    archive = zipfile.ZipFile(path)
    assert archive.namelist() == ["card.json", "assets/icon/images/main.png"]
    assert all(info.flag_bits & 0x1 == 0 for info in archive.infolist())  # not encrypted
    assert Image.open(io.BytesIO(archive.read("assets/icon/images/main.png"))).format == "PNG"
    assert main(["author", str(path), "--headless", "--out", str(tmp_path / "w.toml")]) == 0  # .charx is a card
    assert load_world(tmp_path / "w.toml").agents["maren"].name == "Maren"


def test_a_bad_charx_is_one_line(tmp_path):
    path = tmp_path / "x.charx"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    path.write_bytes(buffer.getvalue())
    with pytest.raises(UserError, match="no `card.json`"):
        read_card(path)
    path.write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(UserError, match="not a readable CHARX"):
        read_card(path)


def test_import_leaves_out_entries_scoped_to_someone_else():
    entry = {"keys": ["x"], "enabled": True, "insertion_order": 0, "extensions": {}}
    raw = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Ilse", "character_book": {"entries": [
        {**entry, "content": "mine", "extensions": {"characterFilter": {"isExclude": False, "names": ["Ilse"]}}},
        {**entry, "content": "hers", "extensions": {"characterFilter": {"isExclude": False, "names": ["Greta"]}}},
        {**entry, "content": "not mine", "characterFilter": {"isExclude": True, "names": ["Ilse"], "tags": []}},
        {**entry, "content": "anyone's"},
    ]}}}
    assert card_from_json(raw) == Card(name="Ilse", spec="v2", lore=[(["x"], "mine"), (["x"], "anyone's")])


@pytest.mark.parametrize("fmt", ["st", "v3"])
def test_world_lorebook_has_people_places_and_objects(tmp_path, fmt):
    raw = json.loads(_export(tmp_path, str(TINY), "--lorebook", *(["--format", fmt] if fmt == "v3" else [])).read_text())
    world = load_world(TINY)
    if fmt == "st":  # SillyTavern world info: entries by uid, keywords in `key`
        entries = list(raw["entries"].values())
        assert list(raw["entries"]) == [str(e["uid"]) for e in entries]
        for entry in entries:
            _has(entry, ST_ENTRY, "entries")
            assert "keys" not in entry and "characterFilter" not in entry  # world lore is everyone's
        keys = [e["key"] for e in entries]
    else:  # lorebook_v3: a list, keywords in `keys`
        assert raw["spec"] == "lorebook_v3"
        _has(raw["data"], BOOK, "data")
        entries = raw["data"]["entries"]
        for entry in entries:
            _has(entry, V3_ENTRY, "entries")
            assert "key" not in entry
        keys = [e["keys"] for e in entries]
    assert len(entries) == len(world.agents) + len(world.places) + len(world.objects)
    assert ["Maren", "the keeper"] in keys and ["The Gull tavern"] in keys and ["A sealed letter"] in keys
    contents = " ".join(e["content"] for e in entries)
    assert "Stone quays" in contents and "Salt-stained paper" in contents
    assert world.objects["letter"].carries not in contents  # what reading it tells is its reader's, not world lore


@pytest.mark.parametrize("argv, message", [
    (["--card", "nobody"], "no character 'nobody' in tiny"),
    (["--card", "silas", "--format", "v4"], "--format 'v4': a card is written as one of v2, v3, png, charx"),
    (["--lorebook", "--format", "png"], "--format 'png': a lorebook is written as one of st, v3"),
    (["--card", "silas", "--format", "v3", "--image", "face.png"], "--image is for --format png or charx"),
])
def test_cli_refuses_bad_input_in_one_line(tmp_path, capsys, argv, message):
    assert main(["export", str(TINY), *argv, "-o", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "x").exists()


def test_cli_names_what_it_wrote(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["export", str(TINY), "--card", "maren", "--format", "v2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["file"] == "Maren.json" and (tmp_path / "Maren.json").is_file()  # named as SillyTavern names it
    assert summary["memories"] == 1 and summary["round"] is None
    assert main(["export", str(TINY)]) == 1  # neither --card nor --lorebook
    assert "--card AGENT (a character card) or --lorebook" in capsys.readouterr().err


@pytest.mark.real_model
@pytest.mark.real_embedder
def test_a_save_card_holds_only_its_characters_records(tmp_path):
    from storyworld.game import session

    save = tmp_path / "save"
    assert main(["run", str(TINY), "--rounds", "2", "--seed", "1", "--save", str(save)]) == 0
    sim = session.load_simulation(save, mind=None)
    store = sim.store
    held = {f"#{r.id}" for r in store.held_by("maren")
            if not r.owners["maren"].archived and store.can_read(r.id, "maren")}
    others = {f"#{r.id}" for r in store.records()} - held
    assert held and others  # others hold records Maren does not: the test can tell them apart
    raw = json.loads(_export(tmp_path, str(save), "--card", "maren", "--format", "v3").read_text())
    entries = raw["data"]["character_book"]["entries"]
    assert {e["extensions"]["storyworld"]["ref"] for e in entries} == held  # all of hers, none of theirs
    texts = {store.get(int(ref[1:])).text for ref in others}
    assert not any(e["content"] in texts - {store.get(int(r[1:])).text for r in held} for e in entries)
    for entry in entries:
        record = store.get(int(entry["extensions"]["storyworld"]["ref"][1:]))
        mine = record.owners["maren"]
        assert entry["content"] == record.text
        assert entry["extensions"]["characterFilter"]["names"] == ["Maren"]
        assert (entry["extensions"]["storyworld"]["via"], entry["extensions"]["storyworld"]["source"]) == \
            (mine.via, mine.source)  # her own holding, not another owner's
    assert raw["data"]["extensions"]["storyworld"] == {"world": "tiny", "agent": "maren", "round": sim.state.round}
    card = read_card(tmp_path / "out")
    assert [t for _, t in card.lore] == [e["content"] for e in entries]
    # the world as SillyTavern world info, followed by her memories, each scoped to her by a native characterFilter
    book = json.loads(_export(tmp_path, str(save), "--lorebook", "--card", "maren", name="wi.json").read_text())
    world_part = [e for e in book["entries"].values() if "characterFilter" not in e]
    hers = [e for e in book["entries"].values() if "characterFilter" in e]
    assert len(world_part) == len(sim.world.agents) + len(sim.world.places) + len(sim.world.objects)
    assert {e["extensions"]["storyworld"]["ref"] for e in hers} == held
    assert all(e["characterFilter"] == {"isExclude": False, "names": ["Maren"], "tags": []} and "keys" not in e
               for e in hers)


def test_a_picture_that_is_not_one_is_named_in_one_line(tmp_path, capsys):
    text = tmp_path / "face.png"
    text.write_text("not a picture", encoding="utf-8")
    assert main(["export", str(TINY), "--card", "ada", "--image", str(text), "-o", str(tmp_path / "ada.png")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{text}: not a picture" in err[0]


def test_a_bundled_world_in_chinese_names_exports_and_reads_back(tmp_path):
    path = _export(tmp_path, "three_kingdoms", "--card", "玄德", "--format", "png", name="liu.png")
    card = read_card(path)
    assert card.name == "Liu Bei" and "劉備" in card.description and card.lore
    assert all("Liu Bei" not in keys for keys, _ in card.lore)
