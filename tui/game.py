"""A game in progress as the screens see it: a storyworld.game.session.Session turned into moments and cards.

The session is the game and holds its one lock; this adapter adds views only. Every method that
builds a view or plays blocks (model calls, embedding, disk) and is meant to run in a thread worker.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from storyworld.game import session as _session
from storyworld.report.roundview import in_story_order, round_view
from tui.knowledge import RECALL_SHOWN, KnowledgeCard, ranked, recalled
from tui.views import Moment, TranscriptEntry, build_moment, transcript_entries

if TYPE_CHECKING:
    from storyworld.kernel.actions import Action
    from storyworld.kernel.resolve import RoundOutcome
    from storyworld.game.session import Session
    from storyworld.game.simulation import RoundTiming, Watch
    from storyworld.world import World
    from tui.runtime import Runtime

LoadProgress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class NewGame:
    """Start `world` as `player` at start point `start_id` (None: the world's default)."""

    world: World
    player: str
    start_id: str | None = None


@dataclass(frozen=True)
class LoadGame:
    """Resume the save in `folder`."""

    folder: Path


# Slot names live with the session (one place for the CLI and the TUI); re-exported for the screens.
slug = _session.slug
unique_folder = _session.unique_folder


class Game:
    """The TUI's handle on a storyworld.game.session.Session: the session's game, as the screens' views.

    Starting, playing, saving, branching and the lock are the session's; this adapter adds the model
    and embedder from the runtime and turns rounds into the screens' moments and cards.
    """

    def __init__(self, session: Session, runtime: Runtime | None = None) -> None:
        self.session = session
        self.runtime = runtime

    @property
    def world(self) -> World:
        """The world being played (immutable: the UI thread may read it)."""
        return self.session.world

    @property
    def slot(self) -> Path:
        """The save this game writes into."""
        return self.session.slot

    @slot.setter
    def slot(self, value: Path) -> None:
        self.session.slot = Path(value)

    @property
    def player(self) -> str:
        """The agent the person plays."""
        return self.session.player

    @property
    def model_name(self) -> str:
        """The model's name for the status bar."""
        return self.session.model or (self.runtime.model_name if self.runtime else "")

    @property
    def last_timing(self) -> RoundTiming:
        """Where the last round's time went (the benchmark reads it)."""
        return self.session.last_timing

    # --- starting ------------------------------------------------------------------------------
    @classmethod
    def new(cls, world: World, player: str, start_id: str | None, runtime: Runtime,
            progress: LoadProgress | None = None) -> Game:
        """Load the embedder and the mind, sediment the canon, and give the game a fresh slot."""
        from storyworld.kernel.state import Settings
        from storyworld.llm.base import model_of

        report = progress or (lambda stage, done, total: None)
        report("loading the embedder", 0, 3)
        embedder = runtime.embedder()
        runtime.prepare(lambda line: report(line, 1, 3))
        report("loading the model", 1, 3)
        mind = runtime.mind()
        lm = model_of(mind)
        settings = Settings(seed=runtime.seed, awake=runtime.awake, player=player,  # type: ignore[arg-type]
                            model=(lm.name if lm is not None else "") or runtime.model_name)
        report("remembering the story so far", 2, 3)
        session = _session.Session.new(
            world, start_id, settings, mind, embedder=embedder, saves_root=runtime.saves(), clock=runtime.clock,
            progress=lambda done, total: report("remembering the story so far", done, total))
        return cls(session, runtime=runtime)

    @classmethod
    def load(cls, folder: Path, runtime: Runtime, progress: LoadProgress | None = None, *,
             with_mind: bool = True) -> Game:
        """Resume from a save folder (UserError with a one-line reason when it is damaged)."""
        report = progress or (lambda stage, done, total: None)
        # the store checks its vectors against the embedder, so even the inspector needs the same embedder
        report("loading the embedder", 0, 3)
        embedder = runtime.embedder()
        mind = None
        if with_mind:
            runtime.prepare(lambda line: report(line, 1, 3))
            report("loading the model", 1, 3)
            mind = runtime.mind()
        report("reading the save", 2, 3)
        # the world embedded in the save, as it was played: an edited world file never breaks a save
        session = _session.Session.load(Path(folder), mind, embedder=embedder, saves_root=runtime.saves(),
                                        clock=runtime.clock)
        return cls(session, runtime=runtime)

    def opening(self, history: int = 120) -> Moment:
        """The first view: scene heading, who is here, what the character recalls, and (for a save) the
        last `history` events the character witnessed, so a resumed game reads on from where it stopped."""
        with self.session.reading() as sim:
            moment = build_moment(sim, self.player, opening=True, model=self.model_name)
            past = self.session.witnessed()
            if not past:
                return moment
            company = [b for b in moment.entries if b.kind == "direction"][-1:]  # "With you: ..."
            resumed = TranscriptEntry(kind="direction", text=f"The game resumes at round {moment.round}.",
                                      round=moment.round)
            entries = [*transcript_entries(sim, in_story_order(past[-history:], self.player), self.player),
                       resumed, *company]
            return replace(moment, entries=tuple(entries))

    # --- playing -------------------------------------------------------------------------------
    def play_round(self, action: Action | None, progress: Callable[[str, int, int], None] | None = None,
                   cancelled: Callable[[], bool] | None = None, watch: Watch | None = None) -> Moment:
        """One round with the player's action; raises storyworld.errors.Cancelled with the state unchanged.

        `watch` is given the round's RoundProgress (who waits, thinks, has decided) as it changes.
        """
        outcome = self.session.play_round(action, progress=progress, cancelled=cancelled, watch=watch)
        return self._after(outcome)

    def _after(self, outcome: RoundOutcome) -> Moment:
        """The screen's view of a round just played: its RoundView (story order) and the game as it stands."""
        view = round_view(outcome.events, round_=outcome.round, results=outcome.results, player=self.player)
        with self.session.reading() as sim:  # only rounds step the game, and this worker runs them: still this round
            return build_moment(sim, self.player, events=view.events, results=view.results,
                                since_round=outcome.round, model=self.model_name)

    def now(self) -> Moment:
        """The screen's view of the game as it stands, with no round's events (after an undo)."""
        with self.session.reading() as sim:
            return build_moment(sim, self.player, model=self.model_name)

    def rewind(self) -> int:
        """Undo the last round (memory included) from its autosave; the round now to be played."""
        return self.session.rewind()

    def retry(self, progress: Callable[[str, int, int], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> Moment:
        """Undo the last round and play it again, the player doing the same, under another seed."""
        return self._after(self.session.retry(progress=progress, cancelled=cancelled))

    def recall(self, query: str, k: int = RECALL_SHOWN) -> tuple[tuple[KnowledgeCard, ...], int]:
        """The player's own recall for a query: the cards about it, best first (at most `k`), and how many more."""
        with self.session.reading() as sim:  # the cards read the live records' owners
            hits, more = ranked(self.session.recall(query, k=4 * k), shown=k)
            return recalled(sim, self.player, hits), more

    def fell_back(self, round_: int) -> tuple[str, ...]:
        """The names of those whose decision in round `round_` was a logged fallback."""
        with self.session.reading() as sim:
            return tuple(dict.fromkeys(self.world.name_of(e.actor) for e in sim.state.events
                                       if e.round == round_ and e.fallback and e.actor))

    def close(self) -> None:
        """Let go of the save (another process may play it then)."""
        self.session.close()

    # --- saving (the session's) ---------------------------------------------------------------
    def save(self, folder: Path | None = None, label: str = "") -> Path:
        """Write the game into its slot (or `folder`); SaveError when it cannot."""
        return self.session.save(folder, label=label)

    def autosave(self) -> Path:
        """The per-round save: the slot itself plus a rotating autosave beside it."""
        return self.session.autosave()

    def save_as(self, name: str) -> Path:
        """Save into a new slot named `name` and keep playing there."""
        return self.session.save_as(name)

    def branch(self, name: str) -> Path:
        """Save here, copy the save into a new slot, and play on in the copy (the original stays as it was)."""
        return self.session.branch(name)
