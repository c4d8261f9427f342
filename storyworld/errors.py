"""Errors a user can act on: the CLI prints them as one line and exits 1."""


class UserError(Exception):
    """A problem with the user's input (file, field, option), reported without a traceback."""
