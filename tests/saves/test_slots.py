"""Save slots: listing newest first, autosave rotation, newest good autosave, branching."""

from __future__ import annotations

import pytest

from saves import (
    SaveError,
    autosave,
    autosave_folder,
    autosaves,
    branch_save,
    delete_save,
    explain_refusal,
    latest_good_autosave,
    list_saves,
    read_save,
    write_save,
)


def _files(round_: int) -> dict[str, bytes]:
    return {"state.msgpack": f"state of round {round_}".encode() * 20, "memory.msgpack": bytes([round_ % 256]) * 64}


def _meta(round_: int) -> dict:
    return {"world": "hamlet", "round": round_, "label": f"r{round_}"}


def _flip(folder, name="state.msgpack"):
    path = folder / name
    data = bytearray(path.read_bytes())
    data[0] ^= 0xFF
    path.write_bytes(bytes(data))


def test_autosave_rotation_keeps_the_newest_five(tmp_path):
    slot = tmp_path / "game.autosaves"
    written = [autosave(slot, _files(r), _meta(r)) for r in range(1, 9)]
    assert written[0].name == "autosave-000001" and written[-1].name == "autosave-000008"
    names = sorted(p.name for p in slot.iterdir())
    assert names == [f"autosave-{r:06d}" for r in range(4, 9)]
    for r in range(4, 9):
        manifest, files = read_save(slot / f"autosave-{r:06d}")
        assert manifest.round == r and files == _files(r)
    assert [i.round for i in autosaves(slot)] == [8, 7, 6, 5, 4]


def test_autosave_keep_and_numbering(tmp_path):
    slot = tmp_path / "slot"
    autosave(slot, _files(1), {"label": "no round"})
    autosave(slot, _files(2), {"label": "no round"})
    assert sorted(p.name for p in slot.iterdir()) == ["autosave-000001", "autosave-000002"]
    autosave(slot, _files(3), {}, round=40, keep=1)
    assert [p.name for p in slot.iterdir()] == ["autosave-000040"]
    with pytest.raises(ValueError):
        autosave(slot, _files(3), {}, keep=0)
    with pytest.raises(SaveError, match="non-negative integer"):
        autosave(slot, _files(3), {"round": "seven"})


def test_resuming_an_earlier_round_keeps_the_new_timeline(tmp_path):
    slot = tmp_path / "slot"
    for r in range(1, 6):
        autosave(slot, _files(r), _meta(r))
    # Resumed from round 2: the rewritten rounds are the newest, whatever their numbers.
    autosave(slot, _files(3), {**_meta(3), "label": "again"})
    autosave(slot, _files(4), {**_meta(4), "label": "again"})
    infos = autosaves(slot)
    assert [i.round for i in infos][:2] == [4, 3]
    assert infos[0].meta["label"] == "again"
    assert latest_good_autosave(slot) == slot / "autosave-000004"


def test_latest_good_autosave_skips_damaged_newest(tmp_path):
    slot = tmp_path / "slot"
    for r in range(1, 5):
        autosave(slot, _files(r), _meta(r))
    assert latest_good_autosave(slot) == slot / "autosave-000004"
    _flip(slot / "autosave-000004")  # same size: only the checksum can tell
    assert latest_good_autosave(slot) == slot / "autosave-000003"
    (slot / "autosave-000003" / "manifest.json").unlink()
    assert latest_good_autosave(slot) == slot / "autosave-000002"
    assert latest_good_autosave(tmp_path / "nowhere") is None


def test_latest_good_autosave_of_a_save_finds_its_companion_slot(tmp_path):
    save = tmp_path / "game"
    write_save(save, _files(9), _meta(9))
    for r in (7, 8):
        autosave(autosave_folder(save), _files(r), _meta(r))
    assert autosave_folder(save) == tmp_path / "game.autosaves"
    _flip(save)
    with pytest.raises(SaveError, match="checksum mismatch"):
        read_save(save)
    assert latest_good_autosave(save) == tmp_path / "game.autosaves" / "autosave-000008"


def test_damaged_autosave_is_replaced_and_rotated(tmp_path):
    slot = tmp_path / "slot"
    autosave(slot, _files(1), _meta(1))
    (slot / "autosave-000001" / "manifest.json").write_text("garbage")
    autosave(slot, _files(1), _meta(1))  # same round again: the damaged folder is ours to replace
    assert read_save(slot / "autosave-000001")[1] == _files(1)
    for r in range(2, 8):
        autosave(slot, _files(r), _meta(r))
    (slot / "autosave-000003" / "manifest.json").write_text("garbage")  # already rotated out: gone
    assert len(list(slot.iterdir())) == 5


def test_list_saves_newest_first_with_damage_and_slots(tmp_path):
    root = tmp_path / "saves"
    write_save(root / "alpha", _files(1), _meta(1))
    for r in (2, 3):
        autosave(root / "beta.autosaves", _files(r), _meta(r))
    write_save(root / "gamma", _files(4), _meta(4))
    (root / "delta").mkdir()
    (root / "delta" / "state.msgpack").write_bytes(b"orphan")  # a save that lost its manifest
    (root / "empty").mkdir()  # not a save, nothing to report
    (root / "gamma" / "memory.msgpack").write_bytes(b"short")

    infos = list_saves(root)
    by_name = {i.folder.name: i for i in infos}
    assert set(by_name) == {"alpha", "autosave-000002", "autosave-000003", "gamma", "delta"}
    good = [i for i in infos if i.ok]
    assert [i.round for i in good] == [3, 2, 1]  # newest first
    assert not by_name["gamma"].ok and "memory.msgpack: truncated" in by_name["gamma"].problem
    assert by_name["gamma"].meta["round"] == 4  # the manifest still tells what it was
    assert not by_name["delta"].ok and "manifest.json: missing" in by_name["delta"].problem
    assert by_name["delta"].created is None and by_name["delta"].meta == {}

    _flip(root / "alpha")
    assert {i.folder.name: i for i in list_saves(root)}["alpha"].ok  # same size: sizes cannot tell
    assert not {i.folder.name: i for i in list_saves(root, checksums=True)}["alpha"].ok


def test_list_saves_recovers_a_half_swapped_save(tmp_path):
    write_save(tmp_path / "a", _files(1), _meta(1))
    (tmp_path / "a").rename(tmp_path / ".a.old")
    infos = list_saves(tmp_path)
    assert [i.folder.name for i in infos] == ["a"] and infos[0].ok
    assert list_saves(tmp_path / "missing") == []


def test_branch_copies_and_verifies(tmp_path):
    src = tmp_path / "main"
    write_save(src, _files(5), _meta(5))
    manifest = branch_save(src, tmp_path / "what-if", meta={"label": "what if"})
    copied, files = read_save(tmp_path / "what-if")
    assert files == _files(5) and copied == manifest
    assert copied.meta == {**_meta(5), "branched_from": str(src), "label": "what if"}
    # Source untouched; changes to the branch do not reach it.
    write_save(tmp_path / "what-if", _files(6), _meta(6))
    assert read_save(src)[1] == _files(5)


def test_branch_refuses_overwrite_damage_and_itself(tmp_path):
    src, dest = tmp_path / "main", tmp_path / "other"
    write_save(src, _files(1), _meta(1))
    write_save(dest, _files(2), _meta(2))
    with pytest.raises(SaveError, match="already exists"):
        branch_save(src, dest)
    assert read_save(dest)[0].round == 2
    branch_save(src, dest, overwrite=True)
    assert read_save(dest)[0].round == 1
    with pytest.raises(SaveError, match="into itself"):
        branch_save(src, src, overwrite=True)
    with pytest.raises(SaveError, match="into itself"):
        branch_save(src, src / "inner")
    _flip(src)
    with pytest.raises(SaveError, match="checksum mismatch"):
        branch_save(src, tmp_path / "third")
    assert not (tmp_path / "third").exists()
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("keep me")
    write_save(src, _files(1), _meta(1))
    with pytest.raises(SaveError, match="not a storyworld save"):
        branch_save(src, folder, overwrite=True)
    assert (folder / "todo.txt").read_text() == "keep me"


def test_delete_save(tmp_path):
    write_save(tmp_path / "a", _files(1), _meta(1))
    delete_save(tmp_path / "a")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.txt").write_text("x")
    with pytest.raises(SaveError, match="refusing to delete"):
        delete_save(tmp_path / "b")
    with pytest.raises(SaveError, match="not found"):
        delete_save(tmp_path / "c")


def test_explain_refusal_names_the_newest_good_autosave(tmp_path):
    save = tmp_path / "game"
    write_save(save, _files(3), _meta(3))
    (save / "memory.msgpack").unlink()
    with pytest.raises(SaveError) as info:
        read_save(save)
    line = explain_refusal(save, info.value)
    assert line == f"{save / 'memory.msgpack'}: missing (listed in manifest.json; the save is incomplete); no good autosave found"
    autosave(autosave_folder(save), _files(2), _meta(2))
    line = explain_refusal(save, info.value)
    assert line.endswith(f"; newest good autosave: {tmp_path / 'game.autosaves' / 'autosave-000002'}")
    assert "\n" not in line
