"""SaveError: a save could not be read or written; the message is one line naming the file."""

from __future__ import annotations


class SaveError(ValueError):
    """A damaged, incompatible, missing or unwritable save; str() is "PATH: reason" on one line."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        # One line always: callers print this as-is and decoder messages may carry newlines.
        self.reason = " ".join(str(reason).split())
        super().__init__(f"{self.path}: {self.reason}")


class AutosaveError(SaveError):
    """The rotating autosave beside a save could not be written (the save itself may well have been)."""
