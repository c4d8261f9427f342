"""`storyworld author SOURCE`: draft a world from a play or prose, headless with a progress bar or in the TUI."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from storyworld.errors import UserError
from storyworld.llm.options import add_model_options

if TYPE_CHECKING:
    from collections.abc import Callable

    from saves.lock import SaveLock
    from storyworld.world.schema import WorldFile


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `author` command."""
    parser = subparsers.add_parser(
        "author",
        help="draft a world from a source text (a play or prose)",
        description="Draft a world from a source text. Plays are parsed without a model; prose is read by "
        "the model (a bounded number of chunks) and a deterministic fallback. Review the draft in the TUI, "
        "or write it straight to TOML with --headless.",
    )
    parser.add_argument("source", metavar="SOURCE", help="the source text file (UTF-8)")
    parser.add_argument("--kind", choices=("auto", "play", "prose", "fountain", "card"), default="auto",
                        help="what the source is: a play, prose, a Fountain screenplay or a character card "
                        "(JSON or PNG); auto (default) tells them apart")
    parser.add_argument("--into", metavar="WORLD", help="card: add the character to this world file (written back "
                        "there unless --out is given)")
    parser.add_argument("--out", metavar="FILE", help="where to write the world (default: the user worlds folder)")
    parser.add_argument("--headless", action="store_true", help="no TUI: show a progress bar and write the TOML")
    parser.add_argument("--id", dest="world_id", metavar="ID", help="the world's id (default: from the file name)")
    parser.add_argument("--title", help="the world's title (default: from the text or file name)")
    parser.add_argument(
        "--max-chunks", type=int, metavar="N",
        help="prose: at most N chunks go to the model, the rest to the fallback (default: one per chapter; 0: no model)",
    )
    parser.add_argument("--names", metavar="FILE", action="append", default=[],
                        help="Chinese prose: people and places known by their names in the source's script, besides "
                        "the bundled dictionary; a names file ([[name]] tables, as storyworld/world/lang/zh-names.toml) "
                        "or a world file (its native names). May be given more than once; earlier files win")
    parser.add_argument("--seed", type=int, default=0, help="seed for the model")
    add_model_options(parser)
    parser.set_defaults(func=run_author)


def run_author(args: argparse.Namespace) -> int:
    """Draft the world headless (progress bar, TOML written) or hand over to the TUI's authoring screen."""
    source = Path(args.source)
    if not source.is_file():
        raise UserError(f"{source}: no such file")
    if args.max_chunks is not None and args.max_chunks < 0:
        raise UserError("--max-chunks must be 0 or more")
    kind = None if args.kind == "auto" else args.kind
    if args.into and (kind or _detected_kind(source)) != "card":
        raise UserError("--into is for character cards (--kind card)")
    if not args.headless and (kind or _detected_kind(source)) in ("play", "prose"):
        if args.names:
            raise UserError("--names needs --headless (the review screen goes by the bundled dictionary only)")
        return _run_tui(args.frontend.author, source, kind)
    return _run_headless(source, args)


def _run_tui(review: Callable[..., int] | None, source: Path, kind: str | None) -> int:
    """Hand the draft to the front end's review screen (the composition root gives it)."""
    if review is None:
        raise UserError("the TUI authoring screen is not installed; use --headless")
    return int(review(source, kind or _detected_kind(source)) or 0)


def _detected_kind(source: Path) -> str:
    from storyworld.authoring.pipeline import detect_file_kind

    return detect_file_kind(source)


def _run_headless(source: Path, args: argparse.Namespace) -> int:
    from storyworld.authoring.pipeline import world_id_for
    from storyworld.locations import user_worlds_dir

    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    world_id = args.world_id or world_id_for(source)
    into = None
    into_path: Path | None = None
    if args.into:
        from storyworld.locations import BUNDLED_WORLDS, WorldNotFound, find_world
        from storyworld.world import load_world

        try:
            into_path = find_world(args.into)
        except WorldNotFound:
            raise UserError(f"--into: no world {args.into!r} (a .toml path or an installed world id)") from None
        into = load_world(into_path).file
        world_id = into.world.id
        if into_path.resolve().is_relative_to(BUNDLED_WORLDS.resolve()):
            into_path = user_worlds_dir() / f"{world_id}.toml"  # bundled worlds are never written over
    out = Path(args.out) if args.out else into_path or user_worlds_dir() / f"{world_id}.toml"
    # one writer rule: --into reads a world and writes it back; two at once would lose one's character
    claim = _claim(out) if into is not None else None
    try:
        if into is not None and into_path is not None and into_path.is_file() and into_path.resolve() == out.resolve():
            into = _reload(into_path)  # read again under the lock: another writer may have just added to it
        return _draft_and_write(source, args, world_id, into, out)
    finally:
        if claim is not None:
            claim.release()


def _reload(path: Path) -> WorldFile:
    from storyworld.world import load_world

    return load_world(path).file


def _claim(out: Path) -> SaveLock:
    """The same lock a save's writer takes, on the world file written back; one line naming its holder."""
    from saves import SaveError, lock_save

    try:
        return lock_save(out)
    except SaveError as exc:
        raise UserError(str(exc)) from None


def _draft_and_write(source: Path, args: argparse.Namespace, world_id: str, into: WorldFile | None, out: Path) -> int:
    """Draft the world with a progress bar, then write it atomically to `out`."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from storyworld.authoring.pipeline import author_source
    from storyworld.world import write_world
    from storyworld.world.lang import read_names

    names = [entry for file in args.names for entry in read_names(Path(file))]
    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]authoring"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
        TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=False,
    ) as bar:
        task = bar.add_task("reading", total=None)

        def show(done: int, total: int, message: str) -> None:
            bar.update(task, completed=done, total=total or None, description=message)

        draft = author_source(
            source, kind=None if args.kind == "auto" else args.kind, world_id=world_id, into=into, title=args.title, model_path=args.model,
            server_url=args.server, max_chunks=args.max_chunks, progress=show, seed=args.seed,
            names=names,
        )
        bar.update(task, description="done")
    write_world(draft.world, out)
    world = draft.world
    print(
        f"wrote {out}: {draft.kind}, {len(world.place)} places, {len(world.agent)} agents, "
        f"{len(world.event)} events, {len(world.start)} starts; {draft.flagged} flagged events; "
        f"{draft.model_calls} model calls; {draft.seconds:.1f} s"
    )
    for note in draft.notes:
        print(f"  {note}")
    for flag, count in list(draft.flag_counts.items())[:8]:
        print(f"  flagged {count}: {flag}")
    return 0
