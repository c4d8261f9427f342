"""The CLI commands of playing together that open a Textual client: `join` (a terminal) and `serve` (a browser).

`storyworld host` itself is headless (storyworld.commands.host); these two show a seat, so they live
with the TUI. Nothing here imports Textual until a handler runs.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from storyworld.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `join` and `serve`."""
    join = subparsers.add_parser(
        "join", help="play a seat of a hosted game (TUI)",
        description="Join a game someone hosts with `storyworld host`: the address and your seat's code it printed.")
    join.add_argument("url", nargs="?", default="", help="the host's address, ws://HOST:PORT")
    join.add_argument("code", nargs="?", default="", help="your seat's join code (asked for when left out)")
    join.set_defaults(func=run_join)
    serve = subparsers.add_parser(
        "serve", help="offer the join client in a web browser (textual-serve)",
        description=("Serve the join client as a web page: each browser tab runs its own client, which asks for "
                     "a seat's code and joins the host at URL. Listens on 127.0.0.1 unless --bind."))
    serve.add_argument("url", nargs="?", default="", help="the host the page joins (ws://HOST:PORT)")
    serve.add_argument("--port", type=int, default=8000, help="web port (default 8000)")
    serve.add_argument("--bind", default="127.0.0.1", metavar="ADDRESS",
                       help="address to listen on; 0.0.0.0 opens the page to your network (default 127.0.0.1)")
    serve.set_defaults(func=run_serve)


def _check_url(url: str) -> None:
    if url and not url.startswith(("ws://", "wss://")):
        raise UserError(f"{url}: a host's address starts with ws:// (as `storyworld host` printed it)")


def run_join(args: argparse.Namespace) -> int:
    """Open the join client on a host (the form when the code is missing)."""
    _check_url(args.url)
    from tui.screens.join import JoinApp

    return int(JoinApp(args.url, args.code).run() or 0)


def run_serve(args: argparse.Namespace) -> int:
    """Serve the join client over HTTP until interrupted."""
    _check_url(args.url)
    if not 0 < args.port <= 65535:
        raise UserError("--port must be between 1 and 65535")
    from textual_serve.server import Server

    command = shlex.join([sys.executable, "-m", "tui", "join", *([args.url] if args.url else [])])
    where = "this computer only; --bind 0.0.0.0 opens it to your network" if args.bind in ("127.0.0.1", "localhost") \
        else f"open to the network on {args.bind}"
    print(f"serving the join client at http://{args.bind}:{args.port} ({where})", flush=True)
    Server(command, host=args.bind, port=args.port, title="storyworld — join").serve()
    return 0
