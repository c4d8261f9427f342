"""`storyworld run`: a headless simulation with a progress bar, saved every round."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from memory import BACKENDS
from storyworld.errors import UserError
from storyworld.game.signals import stopping_signals
from storyworld.llm.options import add_model_options, load_lm
from storyworld.locations import find_world

if TYPE_CHECKING:
    from rich.progress import Progress

    from saves.lock import SaveLock
    from saves.slots import Aside
    from storyworld.game.script import ScriptedPlayer
    from storyworld.game.session import Session
    from storyworld.llm.base import LanguageModel
    from storyworld.minds import Mind
    from storyworld.world import World


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `run`."""
    parser = subparsers.add_parser(
        "run",
        help="run a world headless",
        description=(
            "Run a world headless for N rounds from a start point. Every round is saved atomically into "
            "--save DIR (with rotating autosaves beside it), so a killed run resumes with --resume DIR. "
            "With --resume, --rounds is the total number of rounds since the start."
        ),
    )
    parser.add_argument("world", help="a bundled world id (hamlet, three_kingdoms) or a path to a .toml")
    parser.add_argument("--rounds", type=int, required=True, help="rounds to run")
    parser.add_argument("--start", help="start point id (default: the world's default)")
    parser.add_argument("--backend", default="consensus",
                        choices=BACKENDS, help="memory backend")
    parser.add_argument("--cache", default="fifo", choices=["fifo", "relevance", "hybrid"],
                        help="short-term cache eviction")
    parser.add_argument("--no-merge", action="store_true", help="ablation: never merge records")
    parser.add_argument(
        "--judge", action="store_true",
        help="ask the model whether two statements in the ambiguous cosine band are the same event. Off by "
             "default: with the bundled 135M model it lowered merge precision from 1.00 to 0.90 on our "
             "labelled pairs (storyworld bench judge); a bigger model may do better",
    )
    parser.add_argument("--awake", default="all", choices=["all", "near"], help="who decides each round")
    parser.add_argument("--as", dest="player", help="the player's agent: it follows --script, or waits")
    parser.add_argument("--script", metavar="FILE",
                        help="player input, one line per round in the action bar's syntax (a bare line is speech; "
                             "/say @who text, /move place, /act target verb ..., /wait); past its end the player waits")
    parser.add_argument("--seed", type=int, default=0, help="seed for the kernel and the model")
    parser.add_argument("--save", metavar="DIR", help="save folder, written after every round")
    parser.add_argument("--resume", metavar="DIR",
                        help="continue a run from its save folder (or one of its autosaves: the run plays on into "
                             "the save the autosave belongs to, or into --save DIR)")
    parser.add_argument("--overwrite", action="store_true",
                        help="let --save replace an existing save (and its autosaves) with a new game")
    parser.add_argument("--json", action="store_true", help="print the final store stats as JSON")
    add_model_options(parser)
    parser.set_defaults(func=run)


MAX_ROUNDS = 1_000_000  # a bound, not a budget: a run of more rounds is a typo
MAX_SEED = 2**63 - 1


def check_args(args: argparse.Namespace) -> None:
    """Every argument bounded and checked before anything is loaded, deleted or written (one line each)."""
    if not 0 <= args.rounds <= MAX_ROUNDS:
        raise UserError(f"--rounds must be between 0 and {MAX_ROUNDS:,}")
    if not -MAX_SEED <= args.seed <= MAX_SEED:
        raise UserError("--seed must fit in 64 bits")
    if args.script and not args.player:
        raise UserError("--script needs --as AGENT: whose lines are they?")
    if args.save and args.resume is None and not str(args.save).strip():
        raise UserError("--save needs a folder name")
    if args.overwrite and not args.save:
        raise UserError("--overwrite is for --save DIR (the save it replaces)")


def run(args: argparse.Namespace) -> int:
    """Run the simulation, saving after every round; a round the model could not play stops the run."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from storyworld.game import session
    from storyworld.minds import LLMMind

    check_args(args)
    from storyworld.game.script import read_script

    script_lines = read_script(args.script) if args.script else None  # a bad script fails before the model loads
    world = None if args.resume else _world(args)  # a bad world, --start or --as fails before any save is touched
    # one writer per save, claimed (and the folder proved writable) before the model loads or a round is played
    target = Path(args.save) if args.save else (session.slot_of(Path(args.resume)) if args.resume else None)
    claim = _claim(target, args) if target is not None else None
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    lm = None
    try:
        with stopping_signals():
            lm = load_lm(args, seed=args.seed)
            bar = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                TextColumn("{task.fields[detail]}"), TimeElapsedColumn(), transient=False,
            )
            return _play(args, lm, LLMMind(lm), world, target, script_lines, bar)
    finally:
        if claim is not None:
            claim.release()
        if lm is not None:
            lm.close()


def _world(args: argparse.Namespace) -> World:
    """The world of a new run, its start point and player checked (the player's name becomes its id)."""
    from storyworld.world import load_world

    world = load_world(find_world(args.world))
    world.start(args.start)
    if args.player:
        args.player = world.resolve_player(args.player)
    return world


def _claim(target: Path, args: argparse.Namespace) -> SaveLock:
    """Lock `target` for this run; a new run onto an existing save needs --overwrite. Nothing is deleted here."""
    from saves import autosave_folder, recover
    from saves.folder import old_path
    from storyworld.game.session import claim_slot, slot_of

    claim = claim_slot(target)  # the one writer's lock, as every command that writes a save takes it
    if args.resume and target == slot_of(Path(args.resume)):
        return claim  # playing on in its own save
    try:
        recover(target)
        taken = target.exists() or old_path(target).is_dir() or autosave_folder(target).exists()
    except OSError as exc:
        claim.release()
        raise UserError(f"{target}: cannot be prepared ({exc.strerror or exc})") from None
    if taken and not args.overwrite:
        claim.release()
        raise UserError(f"{target}: a save is already there; continue it with --resume {target}, "
                        "or replace it (and its autosaves) with --overwrite")
    return claim


def _resume_hint(args: argparse.Namespace, target: Path | None) -> str:
    """The command that continues this run from its save."""
    if target is None:
        return "nothing was saved (give --save DIR to keep a run)"
    model = f" --server {args.server}" if args.server else (f" --model {args.model}" if args.model else "")
    return f"resume with: storyworld run {args.world} --rounds {args.rounds} --resume {target}{model}"


def _play(args: argparse.Namespace, lm: LanguageModel, mind: Mind, world: World | None, target: Path | None,
          script_lines: list[str] | None, bar: Progress) -> int:
    """The run itself: new or resumed, a round at a time, each saved before the next."""
    with bar:
        game, done = _open(args, lm, mind, world, target, bar)
        sim = game.sim
        player: ScriptedPlayer | None = None
        if script_lines is not None:
            from storyworld.game.script import ScriptedPlayer

            agent = sim.world.resolve_player(args.player)
            player = ScriptedPlayer(sim.world, agent, script_lines or [])
            player.index = done  # a resumed run picks the script up where it stopped
        replacing = _replacing(args, target)
        try:
            _rounds(args, lm, game, done, target, player, bar, replacing)
        except BaseException:
            if replacing is not None:
                replacing.put_back()  # no round of the new game was saved: the old game is as it was
            raise
    stats = sim.store.stats()
    if args.json:
        print(json.dumps(stats, default=str))
    else:
        keys = ("records", "sediment", "sim", "shared", "linked", "max_owners", "leaks")
        print("  ".join(f"{k}={stats.get(k)}" for k in keys))
        print(f"fallbacks={sim.state.fallbacks} events={len(sim.state.events)}"
              + (f" saved to {target}" if target else ""))
    return 0


class _Replacing:
    """--overwrite: the old save stays where it is until the new game's first save, and goes only once that is written."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.aside: Aside | None = None

    def before_save(self) -> None:
        from saves.slots import set_aside

        if self.aside is None:
            self.aside = set_aside(self.target)

    def saved(self) -> None:
        if self.aside is not None:
            self.aside.drop()

    def put_back(self) -> None:
        if self.aside is not None:
            self.aside.put_back()
            self.aside = None


def _replacing(args: argparse.Namespace, target: Path | None) -> _Replacing | None:
    from saves import autosave_folder

    if target is None or args.resume or not args.overwrite:
        return None
    return _Replacing(target) if target.exists() or autosave_folder(target).exists() else None


def _open(args: argparse.Namespace, lm: LanguageModel, mind: Mind, world: World | None, target: Path | None,
          bar: Progress) -> tuple[Session, int]:
    """The game to play on: resumed from its save, or new (sedimented, and its start saved unless it replaces one)."""
    from saves import SaveError
    from storyworld.game import session
    from storyworld.kernel.state import Settings

    if args.resume:
        game = session.Session.load(Path(args.resume), mind)
        if target is not None:
            game.slot = target  # an autosave resumed plays on into its own save, never into the rotation
        return game, game.sim.state.round - game.sim.state.start_round
    settings = Settings(seed=args.seed, backend=args.backend, cache_policy=args.cache, awake=args.awake,
                        merge=not args.no_merge, player=args.player, model=lm.name)
    assert world is not None  # a new run's world was loaded and checked before anything else (run())
    task = bar.add_task("sediment", total=None, detail="")
    judge = None
    if args.judge:
        from storyworld.llm.equivalence_judge import make_judge

        judge = make_judge(lm, seed=args.seed)
    game = session.Session.new(world, args.start, settings, mind, judge=judge,
                               progress=lambda done, total: bar.update(task, completed=done, total=total))
    bar.update(task, completed=1, total=1, visible=False)
    if target is not None:
        game.slot = target
        if _replacing(args, target) is None:
            try:
                game.save()  # the start itself: a disk that cannot take it fails before any round is played
            except SaveError as exc:
                raise UserError(f"{exc}; no round was played") from None
    return game, 0


def _rounds(args: argparse.Namespace, lm: LanguageModel, game: Session, done: int, target: Path | None,
            player: ScriptedPlayer | None, bar: Progress,
            replacing: _Replacing | None) -> None:
    """Play rounds until --rounds, each saved before the next; a stop or a refused round says where the save stands."""
    from storyworld.game.signals import Stopped
    from storyworld.game.simulation import RoundRefused

    from storyworld.llm import on_retry

    sim = game.sim
    task = bar.add_task("rounds", total=max(args.rounds, done), completed=done, detail="")
    on_retry(lm, lambda note: bar.update(task, detail=note))  # a slow or failing model is said on the bar
    if done >= args.rounds and replacing is not None:
        _save_round(args, game, target, replacing)  # --rounds 0 over an old save: the new start is the save
    while done < args.rounds:
        def show(agent: str, index: int, count: int) -> None:
            stats = lm.stats()
            rate = stats.get("completion_tokens", 0) / max(stats.get("seconds", 0.0), 1e-9)
            bar.update(task, detail=f"r{sim.state.round} {agent} deciding ({index + 1}/{count}), {rate:.0f} tok/s")

        held = _holds(target, sim.state.round)
        try:
            game.play_round(player.next_action(sim.state) if player else None, progress=show)
        except Stopped as exc:
            raise Stopped(exc.signum, f"{exc} while round {sim.state.round} was played; {held}; "
                                      f"{_resume_hint(args, target)}") from None
        except RoundRefused as exc:
            if isinstance(exc.cause, Stopped):
                raise Stopped(exc.cause.signum, f"{exc.cause} while round {exc.round} was played; {held}; "
                                                f"{_resume_hint(args, target)}") from None
            raise UserError(f"{exc}; {held}; {_resume_hint(args, target)}") from None
        done += 1
        _save_round(args, game, target, replacing)
        bar.update(task, completed=done)


def _save_round(args: argparse.Namespace, game: Session, target: Path | None, replacing: _Replacing | None) -> None:
    """The round just resolved, saved (a stop meanwhile waits for it); the old game replaced goes once it is."""
    from saves import AutosaveError, SaveError
    from storyworld.game.signals import Stopped, saving

    if target is None:
        return
    resolved = game.sim.state.round
    try:
        with saving():
            if replacing is not None:
                replacing.before_save()
            game.autosave()
            if replacing is not None:
                replacing.saved()
    except AutosaveError as exc:
        if replacing is None:  # the save itself took the round: only the rotating copy beside it failed
            raise UserError(f"round {resolved - 1} was saved but its autosave could not be written ({exc}); "
                            f"{_holds(target, resolved)}; {_resume_hint(args, target)}") from None
        raise UserError(f"round {resolved - 1} was played but not saved ({exc}); the old save is kept; "
                        f"{_resume_hint(args, target)}") from None
    except SaveError as exc:
        raise UserError(f"round {resolved - 1} was played but not saved ({exc}); "
                        f"{_holds(target, resolved - 1) if replacing is None else 'the old save is kept'}; "
                        f"{_resume_hint(args, target)}") from None
    except Stopped as exc:
        raise Stopped(exc.signum, f"{exc}; {_holds(target, resolved)} (the last round resolved); "
                                  f"{_resume_hint(args, target)}") from None


def _holds(target: Path | None, next_round: int) -> str:
    """Where the save stands while round `next_round` is played (`stats` calls that its round)."""
    if target is None:
        return "nothing is saved (no --save)"
    return f"{target} is saved at round {next_round}"
