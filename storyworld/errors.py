"""Errors a user can act on: the CLI prints them as one line and exits 1."""


class UserError(Exception):
    """A problem with the user's input (file, field, option), reported without a traceback."""


class Cancelled(UserError):
    """Work stopped on request before it finished (a round, a draft); what had not started never ran.

    `next_index`: for work done item by item, the item that would have started next (else None).
    """

    def __init__(self, message: str = "cancelled", *, next_index: int | None = None) -> None:
        super().__init__(message)
        self.next_index = next_index


class SaveRefused(UserError):
    """A save that will not load: `reason` ("PATH: why", one line) and `fallback`, the newest good autosave or None.

    str() is the one line a command prints: the reason, then the autosave to load instead when there is one.
    A UI reads the two fields instead of taking the message apart.
    """

    def __init__(self, reason: str, fallback: object = None) -> None:
        self.reason = " ".join(str(reason).split())
        self.fallback = fallback
        super().__init__(f"{self.reason}; newest good autosave: {fallback}" if fallback is not None else self.reason)
