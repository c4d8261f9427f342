"""Save folders: round trip, every kind of damage refused in one line, interrupted swaps recovered."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import saves
import saves.folder
from saves import FORMAT_VERSION, SaveError, read_manifest, read_save, verify_save, write_save

FILES = {"state.msgpack": b"\x81\xa5round\x07" * 50, "memory.usearch": bytes(range(256)) * 8}
META = {"world": "hamlet", "world_digest": "ab" * 32, "round": 7, "character": "horatio"}


def _write(folder: Path, files=FILES, meta=META):
    return write_save(folder, files, meta)


def test_round_trip(tmp_path):
    folder = tmp_path / "slot" / "one"
    written = _write(folder)
    manifest, files = read_save(folder)
    assert files == FILES
    assert manifest == written
    assert manifest.meta == META and manifest.round == 7
    assert manifest.format == "storyworld-save" and manifest.version == FORMAT_VERSION
    assert manifest.created.tzinfo is not None
    assert set(manifest.files) == set(FILES)
    assert manifest.files["memory.usearch"].size == len(FILES["memory.usearch"])
    assert read_manifest(folder) == manifest
    # Nothing transient is left next to the save.
    assert sorted(p.name for p in folder.parent.iterdir()) == ["one"]
    raw = json.loads((folder / "manifest.json").read_bytes())
    assert set(raw) == {"format", "version", "created", "meta", "files"}


def test_overwrite_replaces_whole_save(tmp_path):
    folder = tmp_path / "s"
    _write(folder)
    write_save(folder, {"state.msgpack": b"new"}, {"round": 8})
    manifest, files = read_save(folder)
    assert files == {"state.msgpack": b"new"} and manifest.round == 8
    assert not (folder / "memory.usearch").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]


def test_empty_save_round_trips(tmp_path):
    write_save(tmp_path / "e", {}, {})
    manifest, files = read_save(tmp_path / "e")
    assert files == {} and manifest.meta == {}


def _truncate(folder: Path) -> str:
    path = folder / "state.msgpack"
    path.write_bytes(path.read_bytes()[:-10])
    return "state.msgpack: truncated"


def _flip(folder: Path) -> str:
    path = folder / "memory.usearch"
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    path.write_bytes(bytes(data))
    return "memory.usearch: checksum mismatch (file damaged)"


def _grow(folder: Path) -> str:
    with open(folder / "state.msgpack", "ab") as fh:
        fh.write(b"x")
    return "state.msgpack: "


def _newer_version(folder: Path) -> str:
    path = folder / "manifest.json"
    raw = json.loads(path.read_bytes())
    raw["version"] = FORMAT_VERSION + 1
    path.write_text(json.dumps(raw))
    return (
        f"manifest.json: saved by a newer storyworld (format {FORMAT_VERSION + 1}); "
        f"this one reads up to {FORMAT_VERSION}"
    )


def _zero_version(folder: Path) -> str:
    path = folder / "manifest.json"
    raw = json.loads(path.read_bytes())
    raw["version"] = 0
    path.write_text(json.dumps(raw))
    return "manifest.json: unknown save format version 0"


def _other_format(folder: Path) -> str:
    path = folder / "manifest.json"
    raw = json.loads(path.read_bytes())
    raw["format"] = "something-else"
    path.write_text(json.dumps(raw))
    return "manifest.json: not a storyworld save"


def _missing_file(folder: Path) -> str:
    (folder / "memory.usearch").unlink()
    return "memory.usearch: missing"


def _missing_manifest(folder: Path) -> str:
    (folder / "manifest.json").unlink()
    return "manifest.json: missing"


def _garbage_manifest(folder: Path) -> str:
    (folder / "manifest.json").write_bytes(b"\x00\xffnot json{{")
    return "manifest.json: not a valid manifest"


def _truncated_manifest(folder: Path) -> str:
    path = folder / "manifest.json"
    path.write_bytes(path.read_bytes()[:40])
    return "manifest.json: not a valid manifest"


def _unknown_key(folder: Path) -> str:
    path = folder / "manifest.json"
    raw = json.loads(path.read_bytes())
    raw["cheats"] = True
    path.write_text(json.dumps(raw))
    return "manifest.json: not a valid manifest (Object contains unknown field `cheats`)"


def _wrong_type(folder: Path) -> str:
    path = folder / "manifest.json"
    raw = json.loads(path.read_bytes())
    raw["files"]["state.msgpack"]["size"] = "big"
    path.write_text(json.dumps(raw))
    return "manifest.json: not a valid manifest"


def _escaping_name(folder: Path) -> str:
    path = folder / "manifest.json"
    raw = json.loads(path.read_bytes())
    raw["files"]["../../etc/passwd"] = raw["files"].pop("state.msgpack")
    path.write_text(json.dumps(raw))
    return "manifest.json: files: unsafe file name '../../etc/passwd'"


def _symlinked_file(folder: Path) -> str:
    path = folder / "state.msgpack"
    real = folder.parent / "elsewhere"
    real.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(real)
    return "state.msgpack: is a symbolic link"


def _folder_gone(folder: Path) -> str:
    for p in folder.iterdir():
        p.unlink()
    folder.rmdir()
    return "s: no save here (folder not found)"


DAMAGE = {
    "truncated file": _truncate,
    "flipped byte": _flip,
    "grown file": _grow,
    "newer version": _newer_version,
    "version zero": _zero_version,
    "other format": _other_format,
    "missing file": _missing_file,
    "missing manifest": _missing_manifest,
    "garbage manifest": _garbage_manifest,
    "truncated manifest": _truncated_manifest,
    "unknown manifest key": _unknown_key,
    "wrong field type": _wrong_type,
    "escaping file name": _escaping_name,
    "symlinked file": _symlinked_file,
    "folder gone": _folder_gone,
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_damage_is_refused_in_one_line_naming_the_file(tmp_path, kind):
    folder = tmp_path / "s"
    _write(folder)
    expected = DAMAGE[kind](folder)
    with pytest.raises(SaveError) as info:
        read_save(folder)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "\n" not in message
    assert message.startswith(str(folder)), message
    assert expected in message, message
    # The cheap checks agree for everything they look at.
    if kind not in ("flipped byte",):
        with pytest.raises(SaveError):
            verify_save(folder, checksums=False)


def test_manifest_level_damage_also_refused_by_read_manifest(tmp_path):
    folder = tmp_path / "s"
    _write(folder)
    _newer_version(folder)
    with pytest.raises(SaveError, match="newer storyworld"):
        read_manifest(folder)


def test_write_refuses_bad_input_without_touching_the_previous_save(tmp_path):
    folder = tmp_path / "s"
    _write(folder)
    with pytest.raises(SaveError, match="unsafe file name"):
        write_save(folder, {"../x": b""}, {})
    with pytest.raises(SaveError, match="reserved"):
        write_save(folder, {"manifest.json": b""}, {})
    with pytest.raises(SaveError, match="must be bytes"):
        write_save(folder, {"a": "text"}, {})
    with pytest.raises(SaveError, match="JSON-serialisable"):
        write_save(folder, {"a": b""}, {"when": object()})
    assert read_save(folder)[1] == FILES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]


def test_write_refuses_to_replace_a_folder_that_is_not_a_save(tmp_path):
    precious = tmp_path / "documents"
    precious.mkdir()
    (precious / "thesis.txt").write_text("years of work")
    with pytest.raises(SaveError, match="is not a storyworld save; refusing"):
        write_save(precious, FILES, META)
    assert (precious / "thesis.txt").read_text() == "years of work"
    (tmp_path / "afile").write_text("x")
    with pytest.raises(SaveError, match="is a file"):
        write_save(tmp_path / "afile", FILES, META)
    empty = tmp_path / "empty"
    empty.mkdir()
    write_save(empty, FILES, META)
    assert read_save(empty)[1] == FILES


def test_write_replaces_a_damaged_save(tmp_path):
    folder = tmp_path / "s"
    _write(folder)
    _flip(folder)
    _write(folder, meta={"round": 9})
    assert read_save(folder)[0].round == 9


class Crash(BaseException):
    """Stands in for SIGKILL: not an OSError, so no cleanup handler runs."""


def _crash_on_rename(monkeypatch, call_number: int) -> None:
    calls = {"n": 0}
    real = os.rename

    def rename(src, dst):
        calls["n"] += 1
        if calls["n"] == call_number:
            raise Crash
        real(src, dst)

    monkeypatch.setattr(saves.folder, "_rename", rename)


@pytest.mark.parametrize(
    "call_number, expected_round",
    [
        (1, 1),  # crash before "save -> .old": previous save untouched
        (2, 1),  # crash between the renames: only .old holds a save; it is put back
        (3, 2),  # crash after the new save is in place, before the old one is trashed
    ],
)
def test_crash_during_swap_leaves_a_complete_save(tmp_path, monkeypatch, call_number, expected_round):
    folder = tmp_path / "s"
    write_save(folder, {"state.msgpack": b"one"}, {"round": 1})
    with monkeypatch.context() as patch:
        _crash_on_rename(patch, call_number)
        with pytest.raises(Crash):
            write_save(folder, {"state.msgpack": b"two"}, {"round": 2})
    if call_number == 2:
        assert not folder.exists() and (tmp_path / ".s.old").is_dir()
    manifest, files = read_save(folder)
    assert manifest.round == expected_round
    assert files == {"state.msgpack": b"one" if expected_round == 1 else b"two"}
    # The next write cleans every leftover (dead temp folder, old copy).
    write_save(folder, {"state.msgpack": b"three"}, {"round": 3})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]
    assert read_save(folder)[1] == {"state.msgpack": b"three"}


def test_live_writers_temp_folder_is_not_cleaned(tmp_path):
    folder = tmp_path / "s"
    _write(folder)
    live = tmp_path / ".s.tmp-live"
    live.mkdir()
    fd = saves.folder._try_lock_exclusive(live)
    try:
        _write(folder)
        assert live.is_dir()
    finally:
        os.close(fd)
    _write(folder)
    assert not live.exists()


def test_old_copy_is_read_in_place_when_recovery_cannot_rename(tmp_path, monkeypatch):
    folder = tmp_path / "s"
    _write(folder)
    os.rename(folder, tmp_path / ".s.old")

    def refuse(src, dst):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(saves.folder, "_rename", refuse)
    assert read_save(folder)[1] == FILES


def test_public_api_names():
    for name in ("write_save", "read_save", "SaveError", "Manifest", "autosave",
                 "latest_good_autosave", "branch_save", "list_saves", "read_manifest"):
        assert hasattr(saves, name), name


def test_disk_full_reports_one_line_and_keeps_the_previous_save(tmp_path, monkeypatch):
    folder = tmp_path / "s"
    _write(folder)
    real = saves.folder._write_file
    calls = {"n": 0}

    def full(path, data):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(saves.folder, "_write_file", full)
    with pytest.raises(SaveError) as info:
        write_save(folder, {"a": b"1", "b": b"2"}, {"round": 99})
    assert str(info.value) == f"{folder}: cannot write the save (No space left on device)"
    assert read_save(folder)[1] == FILES
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]


_names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True).filter(lambda n: n != "manifest.json")
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=40, deadline=None)
@given(files=st.dictionaries(_names, st.binary(max_size=300), max_size=5),
       meta=st.dictionaries(st.text(max_size=10), _json, max_size=4))
def test_any_files_and_meta_round_trip(files, meta):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "s"
        written = write_save(folder, files, meta)
        manifest, back = read_save(folder)
        assert back == files and manifest.meta == meta and manifest == written
