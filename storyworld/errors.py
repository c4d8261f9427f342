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
