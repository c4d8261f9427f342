"""Generic, atomic, verified save folders (manifest + files); knows nothing about worlds."""

from saves.errors import SaveError
from saves.folder import delete_save, read_manifest, read_save, recover, verify_save, write_save
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
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MANIFEST_NAME",
    "FileEntry",
    "Manifest",
    "SaveError",
    "SaveInfo",
    "autosave",
    "autosave_folder",
    "autosaves",
    "branch_save",
    "delete_save",
    "explain_refusal",
    "latest_good_autosave",
    "list_saves",
    "read_manifest",
    "read_save",
    "recover",
    "verify_save",
    "write_save",
]
