"""Loading trusts nothing: a crafted usearch graph whose checksums were redone is searched in a child process
first and rebuilt from the saved vectors (the records are the truth); a save's world is the one embedded in it.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

from saves import read_save, write_save
from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder
from tests.support.paths import REPO, TINY


def crafted_graph(data: bytes, keys: list[int], rows: int, dim: int) -> bytes:
    """A usearch graph whose level-0 neighbour lists point far past its nodes; keys, width and count untouched.

    A node is its key (u64), its level (i16), then per level a neighbour count (u32) and the neighbours' slots
    (u32 each): every spot that reads as a node of ours with sound neighbours gets them pointed out of bounds.
    """
    out = bytearray(data)
    wanted = set(keys)
    hits = 0
    at = 8 + rows * dim * 2 + 64  # past the rows and the index header: the graph
    while at + 14 <= len(out):
        key, level, count = struct.unpack_from("<QhI", out, at)
        end = at + 14 + 4 * count
        if key in wanted and level == 0 and 0 < count <= 64 and end <= len(out):
            slots = struct.unpack_from(f"<{count}I", out, at + 14)
            if all(slot < rows for slot in slots):
                struct.pack_into(f"<{count}I", out, at + 14, *([0x7FFFFFF0] * count))
                hits += 1
                at = end
                continue
        at += 1
    assert hits >= len(keys) // 2, hits
    return bytes(out)


def crafted_save(tmp_path: Path) -> Path:
    """A save of the tiny world whose memory.usearch was crafted and its checksums redone (write_save computes them)."""
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=2), None, embedder=HashEmbedder())
    save = tmp_path / "save"
    session.save_simulation(sim, save)
    manifest, files = read_save(save)
    keys = [r.id for r in sim.store.records()]
    dim = HashEmbedder().dim
    files["memory.usearch"] = crafted_graph(files["memory.usearch"], keys, len(keys), dim)
    write_save(save, files, dict(manifest.meta))
    return save


LOAD_AND_SEARCH = """
import sys
from tests.support.doubles import HashEmbedder
from storyworld.game import session
sim = session.load_simulation(sys.argv[1], None, embedder=HashEmbedder())
for record in sim.store.records():
    # a deposit looks for its nearest records in the whole index (usearch), where a bad graph reads out of bounds
    sim.store.remember("maren", record.text + " again, by the sea wall", round=1)
print("notices:", sim.store.notices)
"""


def test_a_crafted_index_with_redone_checksums_is_rebuilt_from_the_records_not_searched(tmp_path):
    save = crafted_save(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.run([sys.executable, "-c", LOAD_AND_SEARCH, str(save)], capture_output=True,
                           text=True, env=env, timeout=120)
    assert child.returncode == 0, (child.returncode, child.stderr[-800:])
    assert "a search of the graph crashed a separate process (signal SIGSEGV)" in child.stdout
    assert "rebuilt the graph from the saved vectors" in child.stdout


def test_an_index_this_process_wrote_is_not_checked_again_and_a_sound_one_from_elsewhere_passes(tmp_path,
                                                                                               monkeypatch):
    from memory import index

    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=2), None, embedder=HashEmbedder())
    save = tmp_path / "save"
    session.save_simulation(sim, save)
    checked: list[int] = []
    real = index.searched_in_child
    monkeypatch.setattr(index, "searched_in_child", lambda data, rows, **kw: checked.append(len(rows)) or real(data, rows))
    again = session.load_simulation(save, None, embedder=HashEmbedder())
    assert checked == [] and again.store.notices == []
    index._known_graphs.clear()  # as a fresh process sees it
    again = session.load_simulation(save, None, embedder=HashEmbedder())
    assert checked == [len(sim.store.records())] and again.store.notices == []
    hits = again.store.recall("maren", "lighthouse", k=3)
    assert hits and np.isfinite([h.score for h in hits]).all()


def test_continue_and_resume_use_the_world_embedded_in_the_save_and_say_when_the_file_changed(tmp_path):
    source = tmp_path / "tiny.toml"
    source.write_text(TINY.read_text("utf-8"), "utf-8")
    world = load_world(source)
    game = session.Session.new(world, "arrival", Settings(seed=2, player="maren"), None, slot=tmp_path / "save",
                               embedder=HashEmbedder())
    game.save()
    assert session.world_change(tmp_path / "save") is None
    # the world file is edited: a character the save knows is gone
    text = source.read_text("utf-8")
    source.write_text(text.replace('id = "tobin"', 'id = "tobias"').replace('"tobin"', '"tobias"'), "utf-8")
    change = session.world_change(tmp_path / "save")
    assert change is not None and str(source) in change and "has changed since this save" in change
    resumed = session.load_simulation(tmp_path / "save", None, embedder=HashEmbedder())
    assert "tobin" in resumed.world.agents and "tobin" not in load_world(source).agents


def test_a_refused_load_is_one_typed_error_with_its_reason_and_the_newest_good_autosave(tmp_path):
    import pytest

    from saves import autosave_folder
    from storyworld.errors import SaveRefused
    from storyworld.game.session import STATE_FILE

    world = load_world(TINY)
    game = session.Session.new(world, "arrival", Settings(seed=2), None, slot=tmp_path / "save",
                               embedder=HashEmbedder())
    game.save()
    game.autosave()
    (tmp_path / "save" / STATE_FILE).write_bytes(b"damaged")
    with pytest.raises(SaveRefused) as caught:
        session.load_simulation(tmp_path / "save", None, embedder=HashEmbedder())
    refusal = caught.value
    assert refusal.reason.startswith(f"{tmp_path / 'save' / STATE_FILE}: truncated: 7 of ")
    assert "autosave" not in refusal.reason  # the reason alone; the fallback is its own field
    assert refusal.fallback == autosave_folder(tmp_path / "save") / "autosave-000000"
    assert str(refusal) == f"{refusal.reason}; newest good autosave: {refusal.fallback}"
