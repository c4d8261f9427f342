"""The wire between a world host and its players: typed messages (msgspec, JSON), one protocol version.

A client sends `Join` first (its seat's code), then `Line`s (a line of the action bar) and maybe
`Leave` (hand the seat to an agent until the code is used again). The host answers with `Welcome`,
then `Accepted`, `Progress`, `Resolved`, `Rewound`, `Notice`, `Error` and finally `Bye`. Everything the host sends
a seat is cut to what that seat's character perceived and holds (storyworld.host.views).
"""

from __future__ import annotations

import msgspec

PROTOCOL = 1  # raise it when a message changes in a way an older client cannot read
MAX_MESSAGE_BYTES = 64 * 1024  # a line of the action bar is short; anything bigger is refused by the socket


class _Message(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    """Common policy: tagged, strict, immutable."""


# --- what a client sends ---------------------------------------------------------------------------


class Join(_Message, tag="join"):
    """Take the seat this code opens; `seen` is the last round the client has shown (-1: none, send it all)."""

    code: str
    protocol: int
    seen: int | None = None


class Line(_Message, tag="line"):
    """A line of the action bar for the next round (speech, /move, /act ..., /recall, /help, /leave)."""

    text: str


class Leave(_Message, tag="leave"):
    """Hand the seat to an agent; the same code takes it back."""


ClientMessage = Join | Line | Leave


# --- what a seat is shown ---------------------------------------------------------------------------


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a character's transcript: a heading, a spoken line, a direction or a result."""

    kind: str  # heading | line | direction | result | word
    text: str
    round: int
    speaker: str = ""
    to: str = ""
    own: bool = False


class Holding(msgspec.Struct, frozen=True, kw_only=True):
    """A record the character holds, as the character holds it (how it came by it, how sure)."""

    id: int
    text: str
    round: int
    how: str
    status: str = "believed"


class View(msgspec.Struct, frozen=True, kw_only=True):
    """Where the character stands and what it knows, after a round (never anyone else's)."""

    round: int
    place: str
    place_name: str
    place_description: str
    present: tuple[str, ...]  # names of the others here
    exits: tuple[str, ...]  # names of the places one step away
    carrying: tuple[str, ...]  # names of the objects the character holds
    goals: tuple[str, ...]
    holdings: tuple[Holding, ...]  # the character's records, newest first


# --- what the host sends ------------------------------------------------------------------------------


class Welcome(_Message, tag="welcome"):
    """The seat is yours: the character, the world, the view, and every line missed since `seen`."""

    protocol: int
    character: str
    character_name: str
    world_title: str
    turn_timeout: float
    view: View
    entries: tuple[Entry, ...]
    host_only: tuple[str, ...] = ("/retry", "/undo")


class Accepted(_Message, tag="accepted"):
    """The line will be the character's action in round `round`."""

    round: int
    action: str


class Progress(_Message, tag="progress"):
    """How many seated people have acted in the round, and seconds left before it resolves anyway."""

    round: int
    acted: int
    seated: int
    seconds_left: float | None = None


class Resolved(_Message, tag="resolved"):
    """Round `round` was played: what the character perceived of it, and the view after it."""

    round: int
    entries: tuple[Entry, ...]
    view: View
    waited: bool = False  # the turn timed out before this seat acted: the character waited


class Rewound(_Message, tag="rewound"):
    """The host undid the last round (/undo and /retry are the host's alone): the game is at `round` again."""

    round: int
    view: View
    retried: bool = False  # played again at once, the same lines under another seed: a Resolved follows


class Recalled(_Message, tag="recalled"):
    """The character's own recall for a query (no round passes)."""

    query: str
    holdings: tuple[Holding, ...]


class Notice(_Message, tag="notice"):
    """Something to tell the person that is not an error (help, the host's own commands, a seat handed on)."""

    text: str


class Error(_Message, tag="error"):
    """A message that could not be used; `fatal`: the host closes the connection after it (a refused code)."""

    message: str
    fatal: bool = False


class Bye(_Message, tag="bye"):
    """The host is stopping; the game is saved at its last resolved round."""

    reason: str


HostMessage = Welcome | Accepted | Progress | Resolved | Rewound | Recalled | Notice | Error | Bye

encoder = msgspec.json.Encoder()
client_decoder = msgspec.json.Decoder(ClientMessage)
host_decoder = msgspec.json.Decoder(HostMessage)


def encode(message: _Message) -> bytes:
    """One message as JSON bytes."""
    return encoder.encode(message)
