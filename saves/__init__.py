"""Generic, atomic, verified save folders (manifest + files); knows nothing about worlds."""

from saves.errors import AutosaveError, SaveError
from saves.folder import clean_stale, delete_save, read_manifest, read_save, recover, verify_save, write_save
from saves.lock import SaveLock, holds, lock_path, lock_save
from saves.manifest import FORMAT_NAME, FORMAT_VERSION, MANIFEST_NAME, FileEntry, Manifest
from saves.slots import (
    AUTOSAVE_KEEP,
    SaveInfo,
    autosave,
    autosave_folder,
    autosaves,
    branch_save,
    explain_refusal,
    latest_good_autosave,
    list_saves,
)

__all__ = [
    "AUTOSAVE_KEEP",
    "AutosaveError",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MANIFEST_NAME",
    "FileEntry",
    "Manifest",
    "SaveError",
    "SaveInfo",
    "SaveLock",
    "autosave",
    "autosave_folder",
    "autosaves",
    "branch_save",
    "clean_stale",
    "delete_save",
    "explain_refusal",
    "holds",
    "latest_good_autosave",
    "list_saves",
    "lock_path",
    "lock_save",
    "read_manifest",
    "read_save",
    "recover",
    "verify_save",
    "write_save",
]
