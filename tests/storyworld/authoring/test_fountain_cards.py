"""Fountain screenplays in and out, and character cards (JSON and PNG) imported as agents."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from storyworld.game import session
from storyworld.kernel.actions import Say, Wait
from storyworld.authoring.cards import card_from_json, import_card, read_card
from storyworld.authoring.fountain import author_fountain, parse_fountain, place_name
from storyworld.authoring.pipeline import author_source, detect_file_kind
from storyworld.cli import main
from storyworld.errors import UserError
from storyworld.report.screenplay import render_fountain, staged_events
from storyworld.kernel.state import Settings
from storyworld.world import load_world, world_from_file
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import BUNDLED_WORLDS, DATA, PLAYS, TINY

FERRY = DATA / "screenplays" / "night_ferry.fountain"


def test_fountain_elements():
    play = parse_fountain(FERRY.read_text(encoding="utf-8"))
    kinds = [(e.kind, e.text) for e in play.elements]
    assert play.title["title"] == "The Night Ferry"
    assert ("character", "OSKAR") in kinds  # "OSKAR (O.S.)": the extension is not the name
    assert ("character", "MAGDA") in kinds  # forced with @
    assert ("heading", "THE WHEELHOUSE") in kinds  # forced with a leading dot
    assert ("transition", "CUT TO:") in kinds
    assert ("parenthetical", "(to herself)") in kinds
    assert not any("stowaway" in text or "our own" in text for _, text in kinds)  # notes and boneyard dropped
    assert place_name("EXT. FERRY DECK - CONTINUOUS") == "Ferry Deck"


def test_fountain_authors_a_world():
    world = author_fountain(FERRY.read_text(encoding="utf-8"), world_id="ferry")
    assert [a.name for a in world.agent] == ["Nell", "Oskar", "Magda"]
    assert [p.name for p in world.place] == ["Ferry Cabin", "Ferry Deck", "The Wheelhouse"]
    says = [e for e in world.event if e.kind == "say"]
    assert [(e.actors[0], e.text) for e in says][:2] == [
        ("nell", "Eleven. There were twelve at the dock."), ("oskar", "Nell! The rope's slipping!"),
    ]
    assert world_from_file(world).warnings == []
    assert detect_file_kind(FERRY) == "fountain"


def test_fountain_round_trip_through_a_run(tmp_path):
    world = world_from_file(author_fountain(FERRY.read_text(encoding="utf-8"), world_id="ferry"))
    lines = {"nell": "Who counts the coins now?", "oskar": "Mind the rope.", "magda": "Saltholm, and quickly."}

    def plan(round_, agent, context):
        return Say(actor=agent, text=f"{lines.get(agent, 'Well.')} (round {round_})") if agent in lines else Wait(actor=agent)

    sim = session.new_simulation(world, None, Settings(seed=3), ScriptedMind(plan), embedder=HashEmbedder())
    for _ in range(2):
        sim.step()
    text = render_fountain(world, sim.state.events)
    again = author_fountain(text, world_id="ferry-again")
    staged = staged_events(world, sim.state.events)
    speakers = {world.agents[b.actor].name for b in staged if b.kind == "say"}
    places = {world.places[b.place].name.casefold() for b in staged}
    assert {a.name for a in again.agent} == speakers and speakers
    assert {p.name.casefold() for p in again.place} == places
    assert len([e for e in again.event if e.kind == "say"]) == len([b for b in staged if b.kind == "say"])


def _card(**data):
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Ilse Brandt", "description": "{{char}} keeps the lighthouse ledger.", "personality": "dry, exact",
        "scenario": "{{user}} arrives during a storm.", "first_mes": "You're late, {{user}}. The lamp is not.",
        "character_book": {"name": "ledger", "entries": [
            {"keys": ["ledger"], "content": "The ledger has a page torn out for the night of the wreck.", "enabled": True,
             "insertion_order": 1},
            {"keys": ["lamp"], "content": "Disabled entry.", "enabled": False, "insertion_order": 2},
        ]}, **data}}


def _png(chunks: dict[str, bytes]) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\x00"))
    for key, value in chunks.items():
        out += chunk(b"tEXt", key.encode() + b"\x00" + value)
    return out + chunk(b"IEND", b"")


def _check_card_world(world):
    agent = next(a for a in world.agent if a.name == "Ilse Brandt")
    assert "keeps the lighthouse ledger" in agent.description and "dry, exact" in agent.description
    canon = [e for e in world.event if agent.id in e.actors and e.id.startswith("card-")]
    first = next(e for e in canon if e.kind == "say")
    assert first.text == "You're late, the player. The lamp is not."
    facts = [e for e in canon if e.kind == "observe"]
    assert [e.text for e in facts] == ["The ledger has a page torn out for the night of the wreck."]
    assert all(e.witnesses == [agent.id] for e in canon)
    assert world_from_file(world).warnings == [] or all("archived" not in w for w in world_from_file(world).warnings)


def test_json_card_into_a_world(tmp_path):
    card_path = tmp_path / "ilse.json"
    card_path.write_text(json.dumps(_card()), encoding="utf-8")
    out = tmp_path / "tiny_with_ilse.toml"
    assert main(["author", str(card_path), "--kind", "card", "--into", str(TINY), "--out", str(out), "--headless"]) == 0
    world = load_world(out)
    _check_card_world(world.file)
    assert len(world.file.agent) == len(load_world(TINY).file.agent) + 1


def test_png_card_with_chara_and_ccv3_chunks(tmp_path):
    v3 = {**_card(), "spec": "chara_card_v3", "spec_version": "3.0"}
    v2 = _card(name="Someone Else")
    path = tmp_path / "ilse.png"
    path.write_bytes(_png({"chara": base64.b64encode(json.dumps(v2).encode()),
                           "ccv3": base64.b64encode(json.dumps(v3).encode())}))
    card = read_card(path)
    assert card.name == "Ilse Brandt" and card.spec == "v3"  # ccv3 preferred over chara
    assert detect_file_kind(path) == "card"
    _check_card_world(author_source(path, kind="card", into=load_world(TINY).file).world)
    _check_card_world(import_card(card))  # a world of its own


@pytest.mark.parametrize(("raw", "message"), [
    ({"spec": "chara_card_v2", "data": {"description": "x"}}, "data.name: missing"),
    ({"spec": "chara_card_v9", "data": {}}, "spec: unknown card spec"),
    ({"spec": "chara_card_v2"}, "data: missing"),
    ({"spec": "chara_card_v2", "data": {"name": "A", "first_mes": 3}}, "data.first_mes: must be text"),
    ({"spec": "chara_card_v2", "data": {"name": "A", "character_book": {"entries": [{"keys": []}]}}},
     r"data.character_book.entries\[0\].content"),
])
def test_bad_cards_name_the_field(raw, message):
    with pytest.raises(UserError, match=message):
        card_from_json(raw, "card.json")


def test_bad_card_files_give_one_line(tmp_path, capsys):
    path = tmp_path / "bad.png"
    path.write_bytes(_png({"Comment": b"hello"}))
    assert main(["author", str(path), "--kind", "card", "--headless", "--out", str(tmp_path / "x.toml")]) == 1
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("authoring ")]
    assert len(err) == 1 and "no character card" in err[0]  # one line, no traceback


def test_kind_auto_tells_the_sources_apart(tmp_path, shared_dir):
    card = tmp_path / "ilse.json"
    card.write_text(json.dumps(_card()), encoding="utf-8")
    plain = tmp_path / "ferry.txt"  # a Fountain screenplay without the .fountain suffix
    plain.write_text(FERRY.read_text(encoding="utf-8"), encoding="utf-8")
    assert detect_file_kind(PLAYS / "corvus_worldlib.txt") == "play"
    assert detect_file_kind(PLAYS / "corvus_folio.txt") == "play"
    assert detect_file_kind(DATA / "prose" / "river_oath.txt") == "prose"
    assert detect_file_kind(plain) == "fountain"
    assert detect_file_kind(card) == "card"
    assert detect_file_kind(shared_dir / "texts" / "sanguo_yanyi_zh_ch01-10.txt") == "prose"
    assert detect_file_kind(shared_dir / "texts" / "hamlet.txt") == "play"


def test_cli_authors_a_fountain_file_and_writes_a_run_as_fountain(tmp_path, capsys):
    out = tmp_path / "ferry.toml"
    assert main(["author", str(FERRY), "--headless", "--out", str(out)]) == 0
    assert "fountain" in capsys.readouterr().out
    assert load_world(out).file.world.title == "The Night Ferry"
    save = tmp_path / "run"
    sim = session.new_simulation(load_world(TINY), None, Settings(seed=2), ScriptedMind(
        lambda r, a, c: Say(actor=a, text=f"Round {r}, and the lamp is out.") if a in {"maren", "tobin"} else Wait(actor=a)),
        embedder=HashEmbedder())
    sim.step()
    session.save_simulation(sim, save)
    script = tmp_path / "run.fountain"
    assert main(["screenplay", str(save), "--world", str(TINY), "--format", "fountain", "-o", str(script)]) == 0
    text = script.read_text(encoding="utf-8")
    assert text.startswith("Title: ") and "\nMAREN\n" in text and "\nINT. " in text
    assert {a.name for a in author_fountain(text).agent} == {"Maren", "Tobin"}


def test_fountain_emphasis_and_forced_cues_round_trip():
    text = "Title: T\n\nINT. HALL - DAY\n\n*Rain* on the **glass**.\n\n@劉備\n我們_走_吧。\n\n@1 Clown\nA grave, sir.\n"
    world = author_fountain(text)
    assert [a.name for a in world.agent] == ["劉備", "1 Clown"]
    assert [e.text for e in world.event] == ["Rain on the glass.", "我們走吧。", "A grave, sir."]
    from storyworld.report.screenplay import _cue

    assert _cue("劉備") == "@劉備" and _cue("1 Clown") == "@1 Clown" and _cue("Maren") == "MAREN"


def test_card_into_a_bundled_world_goes_to_the_user_worlds(tmp_path, monkeypatch):
    monkeypatch.setenv("STORYWORLD_HOME", str(tmp_path / "home"))
    card = tmp_path / "ilse.json"
    card.write_text(json.dumps({"data": {"name": "Ilse Brandt", "first_mes": "Late again."}}), encoding="utf-8")
    bundled = BUNDLED_WORLDS / "hamlet.toml"
    before = bundled.read_bytes()
    assert main(["author", str(card), "--into", "hamlet", "--headless"]) == 0
    assert bundled.read_bytes() == before
    written = tmp_path / "home" / "worlds" / "hamlet.toml"
    assert any(a.name == "Ilse Brandt" for a in load_world(written).file.agent)
