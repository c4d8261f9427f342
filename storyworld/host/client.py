"""A player's connection to a world host: join with a code, send lines, read typed messages (asyncio)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidURI

from storyworld.errors import UserError
from storyworld.host.protocol import (
    PROTOCOL, Error, HostMessage, Join, Leave, Line, Resolved, Rewound, Welcome, encode, host_decoder,
)


class HostGone(UserError):
    """The host closed the connection or stopped answering."""


class Player:
    """One seat's connection; `received` keeps every byte the host sent (what the leak tests grep)."""

    def __init__(self, url: str, code: str, *, keep_bytes: bool = False) -> None:
        self.url = url
        self.code = code
        self.keep_bytes = keep_bytes
        self.received = bytearray()
        self.welcome: Welcome | None = None
        self.seen: int | None = None  # the last round this client was shown (a rejoin asks for what came after)
        self._ws: ClientConnection | None = None

    async def join(self, timeout: float = 30.0) -> Welcome:
        """Connect and take the seat; UserError with the host's reason when refused, HostGone when unreachable."""
        try:
            self._ws = await connect(self.url, max_size=None, open_timeout=timeout, close_timeout=1)
        except (OSError, InvalidURI, TimeoutError) as exc:
            raise HostGone(f"cannot reach the host at {self.url}: {exc}") from None
        await self._ws.send(encode(Join(code=self.code, protocol=PROTOCOL, seen=self.seen)).decode())
        first = await self.receive(timeout)
        if isinstance(first, Error):
            await self.close()
            raise UserError(f"the host refused the code: {first.message}")
        if not isinstance(first, Welcome):
            raise UserError(f"the host answered {type(first).__name__} to a join")
        self.welcome = first
        self.seen = first.view.round - 1
        return first

    async def send_line(self, text: str) -> None:
        """A line of the action bar."""
        await self._send(encode(Line(text=text)).decode())

    async def leave(self) -> None:
        """Hand the seat to an agent."""
        await self._send(encode(Leave()).decode())

    async def send_raw(self, data: str | bytes) -> None:
        """Anything at all (the fault tests send junk)."""
        await self._send(data)

    async def _send(self, data: str | bytes) -> None:
        if self._ws is None:
            raise HostGone("not connected")
        try:
            await self._ws.send(data)
        except ConnectionClosed:
            raise HostGone("the host is gone") from None

    async def receive(self, timeout: float | None = None) -> HostMessage:
        """The next message from the host; HostGone when the connection closes, TimeoutError after `timeout`."""
        import asyncio

        if self._ws is None:
            raise HostGone("not connected")
        try:
            raw = await asyncio.wait_for(self._ws.recv(), timeout)
        except ConnectionClosed:
            raise HostGone("the host is gone (the connection closed)") from None
        data = raw.encode("utf-8") if isinstance(raw, str) else raw
        if self.keep_bytes:
            self.received += data
        try:
            message = host_decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return Error(message=f"the host sent a message this client cannot read: {exc}")
        if isinstance(message, Resolved):
            self.seen = message.round
        elif isinstance(message, Rewound):
            self.seen = message.round - 1
        return message

    async def messages(self) -> AsyncIterator[HostMessage]:
        """Every message until the host goes (then HostGone)."""
        while True:
            yield await self.receive()

    async def drop(self) -> None:
        """Close the connection without leaving the seat (what a lost network does)."""
        await self.close()

    async def close(self) -> None:
        """Close the connection."""
        if self._ws is not None:
            await self._ws.close()
            self._ws = None
