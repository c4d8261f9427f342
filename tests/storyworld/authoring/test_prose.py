"""The prose pipeline: chunks, cast and aliases, the fallback, model extraction (scripted and real), flags, cancel."""

from __future__ import annotations

import json
import threading

import pytest

from storyworld.authoring.common import AuthoringCancelled
from storyworld.authoring.prose import (
    Chunk,
    author_prose,
    build_cast,
    chunk_chapters,
    extraction_schema,
    fallback_extract,
    model_extract,
    pick_model_chunks,
    split_chapters,
    time_phrases,
)
from storyworld.llm import Completion
from storyworld.world import check_world, world_from_file, write_world
from tests.support.paths import DATA

RIVER = DATA / "prose" / "river_oath.txt"


class ScriptedModel:
    """A stand-in language model: replies come from a function of the prompt; calls are counted."""

    name = "scripted"

    def __init__(self, reply):
        self.reply = reply
        self.calls: list[list[dict]] = []

    def complete_json(self, messages, schema, max_tokens=128, temperature=0.7, seed=0):
        self.calls.append(messages)
        return self.reply(messages, schema), Completion(text="")

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def river_text() -> str:
    return RIVER.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def river_cast(river_text):
    return build_cast(split_chapters(river_text))


def test_chapters_and_chunks(river_text):
    chapters = split_chapters(river_text)
    assert [(c.number, c.title) for c in chapters] == [(1, "The Ferry at Baishui"), (2, "The Oath on the Water")]
    assert [len(c.paragraphs) for c in chapters] == [4, 4]
    chunks = chunk_chapters(chapters, max_chars=200)
    assert all(len(c.text) <= 260 for c in chunks)  # a paragraph longer than the limit is split at sentences
    assert [c.chapter for c in chunks] == sorted(c.chapter for c in chunks)
    joined = chunk_chapters(chapters, max_chars=5000)
    assert len(joined) == 2  # short paragraphs join up to the limit, never across chapters
    assert split_chapters("no headings here\n\njust two paragraphs")[0].paragraphs == ["no headings here", "just two paragraphs"]


def test_cast_and_aliases(river_cast):
    persons = {p.id: p for p in river_cast.persons.values()}
    assert set(persons) == {"wen-qiao", "gao-ren", "lan-shu", "governor-pei"}
    assert {"Boyan", "Wen Boyan"} <= set(persons["wen-qiao"].aliases)  # "X, styled Y"
    assert "Zimo" in persons["lan-shu"].aliases  # "whose courtesy name was Y"
    assert "Deyi" in persons["gao-ren"].aliases  # "I am X ... usually called Y"
    assert set(river_cast.places.values()) == {"Baishui", "Dongling"}
    found = {item for kind, item, _ in river_cast.scan("Boyan and Deyi crossed to Dongling.")}
    assert found == {"wen-qiao", "gao-ren", "dongling"}


def test_fallback_extract(river_cast):
    chunk = Chunk(chapter=1, index=3, text="Zimo went to the market in Dongling to buy rope. "
                                           "There he heard that Governor Pei had closed the roads.")
    extraction = fallback_extract(chunk, river_cast)
    assert extraction.actors == ["lan-shu", "governor-pei"]
    assert extraction.place == "dongling"
    assert extraction.kind == "act"
    assert extraction.statements[0].startswith("Zimo went to the market")
    assert fallback_extract(Chunk(chapter=1, index=0, text="The river was high."), river_cast) is None


def test_fallback_draft_is_valid_and_flags_doubts(river_text, tmp_path):
    draft = author_prose(river_text, world_id="river-oath", max_chunk_chars=200)
    world = world_from_file(draft.world)
    assert world.warnings == []
    assert draft.model_calls == 0
    assert {a.id for a in draft.world.agent} == {"wen-qiao", "gao-ren", "lan-shu", "governor-pei"}
    single = [e for e in draft.world.event if len(e.actors) == 1]
    assert single and all("single actor" in e.flags for e in single)
    assert draft.flagged == sum(1 for e in draft.world.event if e.flags)
    starts = {s.id: s for s in draft.world.start}
    assert set(starts) == {"beginning", "chapter-2"}
    assert starts["chapter-2"].positions  # where everyone was when chapter 2 begins
    report = check_world(write_world(draft.world, tmp_path / "river.toml"))
    assert report.ok and report.warnings == []


def _first_choice_reply(messages, schema):
    """Pick the first of everything offered: first actor, other names as witnesses, first place and time."""
    props = schema["properties"]
    names = props["actors"]["items"]["enum"]
    return {"actors": names[:1], "witnesses": names[1:], "place": props["place"]["enum"][0],
            "time": props["time"]["enum"][0], "statements": [2]}


def test_model_extract_takes_sentences_from_the_passage(river_cast):
    chunk = Chunk(chapter=2, index=0, text="At noon Wen Qiao pushed the ferry out into the river with Gao Ren "
                                           "and Lan Shu aboard. Halfway across, the rope broke.")
    model = ScriptedModel(_first_choice_reply)
    extraction, reason = model_extract(chunk, river_cast, model)
    assert reason == "" and extraction is not None and extraction.by_model
    assert extraction.actors == ["wen-qiao"]
    assert extraction.witnesses == ["wen-qiao", "gao-ren", "lan-shu"]
    # Sentence 2 names nobody: kept, but flagged for the author.
    assert extraction.statements == ["Time: At noon.", "Halfway across, the rope broke."]
    assert extraction.flags == ["model's sentences do not name its actors"]
    prompt = model.calls[0][1]["content"]
    assert "[1] At noon Wen Qiao pushed" in prompt and "[2] Halfway across" in prompt
    assert "People: Wen Qiao, Gao Ren, Lan Shu" in prompt and "Times: At noon" in prompt


def test_schema_offers_only_what_the_chunk_holds():
    schema = extraction_schema(["Wen Qiao", "Gao Ren"], ["Baishui"], sentence_count=3, times=["at noon"])
    props = schema["properties"]
    assert props["actors"]["items"]["enum"] == ["Wen Qiao", "Gao Ren"]
    assert props["place"]["enum"] == ["Baishui", "unknown"]
    assert props["time"]["enum"] == ["at noon", "unknown"]
    assert props["statements"]["items"]["enum"] == [1, 2, 3]
    # No free strings: the tiny model loops in them, and length bounds blow up llama.cpp's grammar.
    assert '"string"' not in json.dumps(schema) and "maxLength" not in json.dumps(schema)


def test_time_phrases():
    assert time_phrases("In the spring of that year the river rose. The next day it fell; before dawn it froze.") == [
        "In the spring of that year", "The next day", "before dawn"]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (lambda m, s: None, "model output empty or invalid"),
        (lambda m, s: {"actors": [], "witnesses": [], "place": "unknown", "time": "unknown", "statements": [1]},
         "model named no actor"),
        (lambda m, s: {"actors": s["properties"]["actors"]["items"]["enum"][:1], "witnesses": [], "place": "unknown",
                       "time": "unknown", "statements": [99]}, "model picked no sentence"),
    ],
)
def test_bad_model_output_falls_back_with_a_flag(river_text, reply, reason):
    model = ScriptedModel(reply)
    draft = author_prose(river_text, world_id="river-oath", lm=model, max_model_chunks=1, max_chunk_chars=200)
    assert draft.model_calls == 1 == len(model.calls)
    flagged = [e for e in draft.world.event if f"{reason}; fallback used" in e.flags]
    assert len(flagged) == 1
    assert flagged[0].actors  # the fallback still gave a usable event
    world_from_file(draft.world)


def test_model_budget_is_spread_over_chapters(river_text, river_cast):
    chunks = chunk_chapters(split_chapters(river_text), max_chars=200)
    picked = pick_model_chunks(chunks, river_cast, None)
    assert sorted(chunks[i].chapter for i in picked) == [1, 2]  # default: one per chapter
    assert len(pick_model_chunks(chunks, river_cast, 3)) == 3
    assert pick_model_chunks(chunks, river_cast, 0) == set()
    model = ScriptedModel(_first_choice_reply)
    draft = author_prose(river_text, lm=model, max_model_chunks=None, max_chunk_chars=200)
    assert draft.model_calls == 2


def test_progress_and_cancel(river_text):
    seen: list[tuple[int, int, str]] = []
    author_prose(river_text, progress=lambda done, total, message: seen.append((done, total, message)))
    assert seen[-1][0] == seen[-1][1] and seen[-1][1] > 0
    stop = threading.Event()
    stop.set()
    with pytest.raises(AuthoringCancelled):
        author_prose(river_text, cancel=stop)
    calls = []

    def cancel_after_two() -> bool:
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(AuthoringCancelled):
        author_prose(river_text, cancel=cancel_after_two, max_chunk_chars=100)
    assert len(calls) == 3  # checked once per chunk, stopped at the third


# ------------------------------------------------------------------------------ the real text


@pytest.fixture
def three_kingdoms_text(shared_dir):
    return (shared_dir / "texts" / "three_kingdoms_en_ch01-10.txt").read_text(encoding="utf-8")


def test_three_kingdoms_cast_resolves_courtesy_names(three_kingdoms_text):
    cast = build_cast(split_chapters(three_kingdoms_text))
    persons = cast.persons
    assert {"Liu Xuande", "Xuande"} <= set(persons["liu-bei"].aliases)
    assert {"Cao Mengde", "Mengde"} <= set(persons["cao-cao"].aliases)
    assert "Yunchang" in persons["guan-yu"].aliases
    assert "Yide" in persons["zhang-fei"].aliases
    assert "Fenxian" in persons["lu-bu"].aliases
    found = {item for kind, item, _ in cast.scan("Xuande and Yunchang rode to Luoyang with Yide.")}
    assert found == {"liu-bei", "guan-yu", "zhang-fei", "luoyang"}
    assert "xuande" not in persons and "mengde" not in persons  # aliases are not people of their own


def test_three_kingdoms_fallback_draft_passes_check(three_kingdoms_text, tmp_path):
    draft = author_prose(three_kingdoms_text, world_id="three-kingdoms-draft")
    assert len({s.id for s in draft.world.start}) == 10  # the beginning and chapters 2-10
    assert len(draft.world.agent) >= 30 and len(draft.world.place) >= 15 and len(draft.world.event) >= 250
    report = check_world(write_world(draft.world, tmp_path / "tk.toml"))
    assert report.ok, report.errors[:5]


# ------------------------------------------------------------------------------ the real model


@pytest.fixture(scope="module")
def bundled_model():
    from storyworld.llm import ModelError, load_model

    try:
        model = load_model()
    except ModelError as exc:
        pytest.skip(f"bundled model unavailable: {exc}")
    yield model
    model.close()


@pytest.mark.real_model
def test_real_model_drafts_a_valid_world(river_text, bundled_model):
    draft = author_prose(river_text, world_id="river-oath", lm=bundled_model, max_model_chunks=1, max_chunk_chars=200)
    assert draft.model_calls == 1
    world_from_file(draft.world)
    # Either the model's event was kept, or it was flagged and the fallback stood in.
    first_chapter = draft.world.event[: max(1, len(draft.world.event) // 2)]
    assert first_chapter and all(e.actors for e in first_chapter)
