"""Chinese prose: chapters, sentences, a cast in the source script with English aliases, the bundled names."""

from __future__ import annotations

import subprocess
import sys

import pytest

from storyworld.authoring.prose import cjk
from storyworld.authoring.pipeline import author_source
from storyworld.authoring.prose import author_prose, split_chapters
from storyworld.errors import UserError
from storyworld.locations import user_worlds_dir
from storyworld.world import load_world, world_from_file
from storyworld.world.lang import names_toml, read_names
from tests.support.paths import REPO

# Our own short passage, in the manner of a classical novel (not from any source text).
TALE = """第一回：渡口相逢，兩人結伴

　　話說江南有一人，姓方，名遠，字子舟，以擺渡為業。一日，方遠在渡口候客。
忽見一人背劍而來，姓韓，名青，字伯山。

　　韓青曰：「此去臨江城，尚有幾日？」子舟曰：「三日可到。」韓青大喜曰：「願與君同行。」

第二回：臨江城中，夜見官兵

　　二人至臨江城。方遠曰：「城中多兵，不可久留。」韓伯山曰：「明日便走。」
方子舟與韓青入城，宿於客店。韓青曰：「聽，門外有人。」方遠曰：「是官兵也。」
"""
KNOWN = [
    cjk.Known(kind="person", id="fang-yuan", name="Fang Yuan", native="方遠", aliases=("Zizhou", "子舟")),
    cjk.Known(kind="place", id="linjiang", name="Linjiang city", native="臨江城"),
]


FERRY_WORLD = """
[world]
id = "ferry"
title = "The ferry"
language = "zh"

[[place]]
id = "linjiang"
name = "Linjiang city"
native_name = "臨江城"

[[agent]]
id = "fang-yuan"
name = "Fang Yuan"
home = "linjiang"
native_name = "方遠"
aliases = ["Zizhou", "子舟"]

[[start]]
id = "beginning"
round = 1
"""


def test_chapters_paragraphs_and_sentences():
    chapters = split_chapters(TALE)
    assert [(c.number, c.title) for c in chapters] == [(1, "渡口相逢，兩人結伴"), (2, "臨江城中，夜見官兵")]
    assert chapters[0].paragraphs[0].startswith("話說江南有一人") and "\n" not in chapters[0].paragraphs[0]
    assert cjk.sentences("甲曰：「走。」乙曰：「好！」丙去。") == ["甲曰：「走。」", "乙曰：「好！」", "丙去。"]
    assert cjk.chapter_number("二十三", 0) == 23 and cjk.chapter_number("十", 0) == 10
    assert cjk.is_cjk(TALE) and not cjk.is_cjk("Chapter 1: Liu Bei")


def test_names_in_the_source_script_with_english_aliases_are_one_agent():
    chapters = split_chapters(TALE)
    cast = cjk.han_cast(chapters, KNOWN, min_mentions=2)
    by_name = {p.name: p for p in cast.persons.values()}
    assert set(by_name) == {"方遠", "韓青"}
    fang = by_name["方遠"]
    assert fang.id == "fang-yuan"
    assert {"子舟", "方子舟", "Fang Yuan", "Zizhou"} <= set(fang.aliases)
    han = by_name["韓青"]
    assert {"伯山", "韓伯山"} <= set(han.aliases) and han.id.startswith("person-")  # no world knows him
    assert cast.surfaces["子舟"] == ("person", "fang-yuan")
    assert cast.place_english == {"linjiang": "Linjiang city"}


def test_a_chinese_draft_passes_check():
    draft = author_prose(TALE, world_id="ferry-zh", names=KNOWN)  # what `author --names FILE` hands in
    world = world_from_file(draft.world)
    assert world.warnings == []
    fang = world.agents["fang-yuan"]
    assert fang.name == "方遠" and fang.native_name == "方遠" and "Fang Yuan" in fang.aliases
    # "子舟曰" is Fang Yuan speaking: the event names him, not a second person.
    assert any("fang-yuan" in e.actors and "子舟曰" in e.text for e in draft.world.event)
    assert {p.name for p in draft.world.place} >= {"Linjiang city"}


def test_the_names_are_the_language_pack_and_what_the_author_hands_in_never_another_world():
    """Authoring reads no installed world: a user world with native names adds nothing unless handed in."""
    bundled = cjk.known_names()
    assert {k.native for k in bundled} >= {"劉備", "洛陽"} and next(k for k in bundled if k.native == "劉備").id == "liu-bei"
    user_worlds_dir().mkdir(parents=True, exist_ok=True)
    path = user_worlds_dir() / "ferry.toml"
    path.write_text(FERRY_WORLD, encoding="utf-8")
    assert "方遠" not in {k.native for k in cjk.known_names()}  # the installed world is not read
    handed = read_names(path)  # ...only when handed in (`author --names FILE`)
    assert handed[0].native == "方遠" and handed[0].aliases == ("Zizhou", "子舟")
    known = cjk.known_names(handed)
    assert [k.native for k in handed] == ["方遠", "臨江城"] and known[:2] == list(handed)
    assert len(known) == len(bundled) + 2
    names_file = path.with_name("names.toml")
    names_file.write_text(names_toml(KNOWN, "my ferry people"), encoding="utf-8")
    assert read_names(names_file) == tuple(KNOWN)
    names_file.write_text('[[name]]\nkind = "person"\nid = "x"\nname = "X"\nnative = "甲"\nborn = 1\n', encoding="utf-8")
    with pytest.raises(UserError, match="names.toml.*born"):
        read_names(names_file)


def test_the_shipped_name_dictionary_is_the_bundled_worlds_names():
    """zh-names.toml is regenerated from worlds/three_kingdoms.toml by scripts/native_names.py."""
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "native_names.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_bundled_three_kingdoms_world_has_chinese_names():
    world = load_world(REPO / "worlds" / "three_kingdoms.toml")
    assert world.warnings == []
    liu = world.agents["liu-bei"]
    assert liu.native_name == "劉備" and {"Xuande", "玄德"} <= set(liu.aliases)
    assert all(agent.native_name for agent in world.file.agent)
    assert world.places["luoyang"].native_name == "洛陽"


def test_sanguo_chapters_author_into_a_playable_world(shared_dir, tmp_path):
    draft = author_source(shared_dir / "texts" / "sanguo_yanyi_zh_ch01-10.txt", kind="prose", max_chunks=0)
    agents = {a.id: a for a in draft.world.agent}
    liu = agents["liu-bei"]
    assert liu.name == "劉備" and {"Liu Bei", "Xuande", "玄德", "劉玄德"} <= set(liu.aliases)
    assert {"guan-yu", "zhang-fei", "cao-cao", "dong-zhuo", "lu-bu", "diao-chan"} <= set(agents)
    assert not any(a.name.endswith(("大怒", "曰")) for a in agents.values())
    assert len(draft.world.start) == 10 and any(a.playable for a in agents.values())
    world = world_from_file(draft.world)
    assert world.warnings == []


def test_author_names_option_hands_the_authors_own_names_in(tmp_path, capsys):
    """`storyworld author --names FILE`: the one way a name outside the language pack reaches authoring."""
    from storyworld.cli import main

    source, names, out = tmp_path / "ferry.txt", tmp_path / "ferry-names.toml", tmp_path / "ferry.toml"
    source.write_text(TALE, encoding="utf-8")
    names.write_text(names_toml(KNOWN), encoding="utf-8")
    args = ["author", str(source), "--kind", "prose", "--headless", "--max-chunks", "0", "--out", str(out)]
    assert main([*args, "--names", str(names)]) == 0
    assert "Fang Yuan" in load_world(out).agents["fang-yuan"].aliases
    assert main(args) == 0  # without it, nobody knows him: he keeps an id of his source script
    assert "fang-yuan" not in load_world(out).agents
    assert main([*args, "--names", str(tmp_path / "none.toml")]) == 1
    assert "none.toml" in capsys.readouterr().err
    assert main(["author", str(source), "--kind", "prose", "--names", str(names)]) == 1  # the review screen: no
    assert "--names needs --headless" in capsys.readouterr().err
