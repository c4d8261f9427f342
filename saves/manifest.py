"""The save manifest: format name and version, creation time, caller metadata, file checksums."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

import msgspec

FORMAT_NAME = "storyworld-save"
FORMAT_VERSION = 1
MANIFEST_NAME = "manifest.json"


class Base(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    """Policy for every persisted struct here: strict keys, immutable (kw_only is per class in msgspec)."""


class FileEntry(Base, frozen=True, kw_only=True):
    """One file of a save: its size in bytes and blake2b (64-byte digest) hex checksum."""

    size: int
    blake2b: str


class Manifest(Base, frozen=True, kw_only=True):
    """Contents of manifest.json; `meta` is the caller's (world id, world digest, round, label...)."""

    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION
    created: datetime
    meta: dict[str, object] = {}
    files: dict[str, FileEntry] = {}

    @property
    def round(self) -> int | None:
        """The `round` in meta when it is an int, else None."""
        value = self.meta.get("round")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Header(msgspec.Struct, kw_only=True):
    """Just enough of a manifest to tell format and version apart before the strict decode."""

    format: str
    version: int


# Reused instances: building an Encoder/Decoder per call is the slow path in msgspec.
_ENCODER = msgspec.json.Encoder(order="deterministic")
_DECODER = msgspec.json.Decoder(Manifest)
_HEADER_DECODER = msgspec.json.Decoder(_Header)


def checksum(data: bytes) -> str:
    """blake2b hex digest of `data` (hashlib's default 64-byte digest)."""
    return hashlib.blake2b(data).hexdigest()


def build_manifest(files: dict[str, bytes], meta: dict[str, object], created: datetime | None = None) -> Manifest:
    """A manifest listing `files` with sizes and checksums, created now (UTC) unless given."""
    entries = {name: FileEntry(size=len(data), blake2b=checksum(data)) for name, data in sorted(files.items())}
    return Manifest(
        created=created or datetime.now(timezone.utc),
        meta=dict(meta),
        files=entries,
    )


def encode_manifest(manifest: Manifest) -> bytes:
    """manifest.json bytes: indented for people who open the folder, keys in a stable order."""
    return msgspec.json.format(_ENCODER.encode(manifest), indent=2) + b"\n"


def decode_header(data: bytes) -> tuple[str, int]:
    """(format, version) from manifest bytes; raises msgspec errors when even that is unreadable."""
    header = _HEADER_DECODER.decode(data)
    return header.format, header.version


def decode_manifest(data: bytes) -> Manifest:
    """The strict decode: unknown keys and wrong types raise msgspec errors."""
    return _DECODER.decode(data)
