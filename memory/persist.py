"""Crash-safe files of the consensus store: state msgpack, usearch index, manifest with checksums.

A folder holds `manifest.json` naming one generation's data files (`memory.<gen>.msgpack`,
`memory.<gen>.usearch`). A save writes and fsyncs the new generation's files, then replaces the
manifest atomically (temp name, fsync, rename, fsync folder); the manifest rename is the commit.
Older generations are deleted only after it, so a crash at any moment leaves the last completed
save readable.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict, cast

import msgspec

from memory.records import Base, Frozen, Record

FORMAT_VERSION = 1
STATE_FILE = "memory.msgpack"
INDEX_FILE = "memory.usearch"
VECTORS_FILE = "memory.vectors"  # raw half-precision rows in record order (the vectors' source of truth)
MANIFEST = "manifest.json"
_GENERATION_FILE = re.compile(r"^memory\.(\d+)\.(msgpack|usearch|vectors)(\.tmp)?$")


class StoreFileError(ValueError):
    """A store file is missing, damaged or of an unknown format; the message names it."""


class FileEntry(TypedDict):
    """One data file a manifest names: its generation's name, checksum and size."""

    path: str
    blake2b: str
    bytes: int


class StoreManifest(TypedDict):
    """manifest.json of a store folder (the store adds a few figures of its own beside these keys)."""

    format: int
    generation: int
    files: dict[str, FileEntry]


class Retraction(Frozen, frozen=True):
    """One exposed record: who exposed it, when, and what it contaminated."""

    record_id: int
    by: str
    round: int
    contaminated: tuple[int, ...] = ()
    owners: tuple[str, ...] = ()  # the holdings retracted, when not every owner's (a lie merged into a true record)
    event_id: str | None = None  # the exposed claim's event, when the retraction followed it


class StoreState(Base):
    """Everything the store persists besides the vectors."""

    format: int
    dim: int
    generation: int = 0
    next_id: int = 1
    next_deposit: int = 1
    current_round: int = 0
    last_decay_round: int = -(2**31)
    records: list[Record] = msgspec.field(default_factory=list)
    edges: list[tuple[int, int, int]] = msgspec.field(default_factory=list)  # (a, b, justifications), a < b
    reliability: dict[str, dict[str, float]] = msgspec.field(default_factory=dict)
    disputes: list[tuple[str, int, int]] = msgspec.field(default_factory=list)  # (owner, a, b), a < b
    retractions: list[Retraction] = msgspec.field(default_factory=list)
    counters: dict[str, int] = msgspec.field(default_factory=dict)
    cross_disputes: list[tuple[int, int]] = msgspec.field(default_factory=list)  # (a, b), a < b: held by different owners
    # Lookup keys, saved so opening does not re-normalise every text ever merged.
    text_keys: list[tuple[str, str, int]] | None = None  # (namespace, normalised text, record id)
    event_keys: list[tuple[str, str, str, int, int]] | None = None  # (namespace, event id, kind, atom, record id)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(StoreState)


def encode_state(state: StoreState) -> bytes:
    """State -> msgpack bytes."""
    return _encoder.encode(state)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: decoding 100k small structs otherwise triggers it
    dozens of times and takes four times as long (none of them form cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def decode_state(data: bytes, name: str) -> StoreState:
    """msgpack bytes -> state; StoreFileError naming the file when unreadable or of another format."""
    try:
        with gc_paused():
            state = _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise StoreFileError(f"{name}: damaged or not a memory state file ({exc})") from exc
    if state.format != FORMAT_VERSION:
        raise StoreFileError(f"{name}: format {state.format}, this version reads {FORMAT_VERSION}")
    return state


def digest(data: bytes) -> str:
    """blake2b hex digest used in manifests."""
    return hashlib.blake2b(data, digest_size=32).hexdigest()


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def read_manifest(folder: Path) -> StoreManifest | None:
    """The folder's manifest, None when there is none; StoreFileError when unreadable."""
    path = folder / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreFileError(f"{path}: unreadable ({exc})") from exc
    try:
        manifest = json.loads(text)
        if manifest["format"] != FORMAT_VERSION:
            raise StoreFileError(f"{path}: format {manifest['format']}, this version reads {FORMAT_VERSION}")
        int(manifest["generation"])
        files = manifest["files"]
        for name in (STATE_FILE,):
            entry = files[name]
            str(entry["path"]), str(entry["blake2b"]), int(entry["bytes"])
    except (ValueError, KeyError, TypeError) as exc:
        if isinstance(exc, StoreFileError):
            raise
        raise StoreFileError(f"{path}: damaged manifest ({exc!r})") from exc
    return cast(StoreManifest, manifest)  # its keys and their types were checked above


def write_generation(folder: Path, generation: int, files: dict[str, bytes], meta: dict[str, int | str]) -> int:
    """Write one generation's files and commit it by replacing the manifest; returns bytes written."""
    folder.mkdir(parents=True, exist_ok=True)
    entries: dict[str, FileEntry] = {}
    total = 0
    for name, data in files.items():
        stem, ext = name.rsplit(".", 1)
        physical = f"{stem}.{generation}.{ext}"
        _write_synced(folder / physical, data)
        entries[name] = {"path": physical, "blake2b": digest(data), "bytes": len(data)}
        total += len(data)
    _fsync_dir(folder)  # the data files' names are durable before the manifest points at them
    manifest = {"format": FORMAT_VERSION, "generation": generation, "files": entries, **meta}
    body = json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8")
    temp = folder / (MANIFEST + ".tmp")
    _write_synced(temp, body)
    os.replace(temp, folder / MANIFEST)
    _fsync_dir(folder)
    _remove_stale(folder, {e["path"] for e in entries.values()})
    return total + len(body)


def _remove_stale(folder: Path, keep: set[str]) -> None:
    """Delete other generations' files and leftovers of interrupted saves."""
    for path in folder.iterdir():
        if _GENERATION_FILE.match(path.name) and path.name not in keep:
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def read_generation(folder: Path, manifest: StoreManifest) -> dict[str, bytes | None]:
    """The files a manifest names, checksum-verified; a missing index file reads as None."""
    out: dict[str, bytes | None] = {}
    for name, entry in manifest["files"].items():
        path = folder / entry["path"]
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            if name == STATE_FILE:
                raise StoreFileError(f"{path}: missing (the manifest names it)") from None
            out[name] = None
            continue
        except OSError as exc:
            raise StoreFileError(f"{path}: unreadable ({exc})") from exc
        if len(data) != int(entry["bytes"]) or digest(data) != entry["blake2b"]:
            raise StoreFileError(f"{path}: damaged (size or blake2b checksum does not match {MANIFEST})")
        out[name] = data
    return out


def folder_bytes(folder: Path) -> int:
    """Bytes on disk of the committed generation (manifest included)."""
    manifest = read_manifest(folder)
    if manifest is None:
        return 0
    total = (folder / MANIFEST).stat().st_size
    for entry in manifest["files"].values():
        path = folder / entry["path"]
        if path.exists():
            total += path.stat().st_size
    return total
