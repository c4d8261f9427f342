"""Messages workers post when something has happened (past tense); handlers update widgets."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from storyworld.game.simulation import RoundProgress
    from tui.game import Game
    from tui.knowledge import KnowledgeCard
    from tui.views import MemoryView, Moment


class CatalogListed(Message):
    """The home screen's worlds and saves were read from disk."""

    def __init__(self, worlds: list[Any], saves: list[Any]) -> None:
        super().__init__()
        self.worlds = worlds
        self.saves = saves


class LoadProgressed(Message):
    """A loading stage advanced (model, embedder, sediment); floods collapse to the newest."""

    def __init__(self, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.stage = stage
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        """A newer progress report makes an unprocessed older one pointless."""
        return isinstance(message, LoadProgressed)


class GameLoaded(Message):
    """A new or saved game is ready to play."""

    def __init__(self, game: Game, moment: Moment) -> None:
        super().__init__()
        self.game = game
        self.moment = moment


class GameLoadFailed(Message):
    """Loading failed; `reason` is one line, `fallback` the newest good autosave when there is one."""

    def __init__(self, reason: str, fallback: Path | None = None) -> None:
        super().__init__()
        self.reason = reason
        self.fallback = fallback


class AgentDeciding(Message):
    """An agent started deciding its action for the round."""

    def __init__(self, agent: str, name: str, index: int, total: int) -> None:
        super().__init__()
        self.agent = agent
        self.name = name
        self.index = index
        self.total = total

    def can_replace(self, message: Message) -> bool:
        """Only the agent deciding now matters."""
        return isinstance(message, AgentDeciding)


class DecisionsProgressed(Message):
    """A decision of the round started or landed: who waits, who is thinking, who has decided."""

    def __init__(self, progress: RoundProgress) -> None:
        super().__init__()
        self.progress = progress

    def can_replace(self, message: Message) -> bool:
        """Only the newest state of the round matters."""
        return isinstance(message, DecisionsProgressed)


class RoundResolved(Message):
    """A round resolved; `moment` is the play screen's new view, `fell_back` who decided by a fallback."""

    def __init__(self, moment: Moment, seconds: float, fell_back: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.moment = moment
        self.seconds = seconds
        self.fell_back = fell_back


class RoundUndone(Message):
    """The last round was undone (and, when `replayed`, played again: `moment` is then the new round's view;
    else it is the view of the game now, or None when the screen still has what it showed before the round)."""

    def __init__(self, moment: Moment | None, *, replayed: bool = False, seconds: float = 0.0, note: str = "",
                 seed: int | None = None, draw: int = 0) -> None:
        super().__init__()
        self.moment = moment
        self.seed = seed  # the replay's new seed
        self.draw = draw  # which drawing of the round the replay is (1: the first retry; minds.draws)
        self.replayed = replayed
        self.seconds = seconds
        self.note = note


class RoundCancelled(Message):
    """The round was cancelled before it resolved; the world is as it was."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class RoundFailed(Message):
    """The round raised an error; the reason is one line; `unchanged`: nothing of it was applied."""

    def __init__(self, reason: str, *, unchanged: bool = True) -> None:
        super().__init__()
        self.reason = reason
        self.unchanged = unchanged


class ModelFailed(Message):
    """The model failed (after its retries), so the round was not played; the reason is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class ModelRetrying(Message):
    """The model is not answering and its call is being retried; `note` says what failed and when the next try is."""

    def __init__(self, note: str) -> None:
        super().__init__()
        self.note = note

    def can_replace(self, message: Message) -> bool:
        """Only the latest wait matters."""
        return isinstance(message, ModelRetrying)


class RecallAnswered(Message):
    """The player's /recall found these records."""

    def __init__(self, query: str, cards: tuple[KnowledgeCard, ...], more: int = 0) -> None:
        super().__init__()
        self.query = query
        self.cards = cards
        self.more = more  # about the query too, but past the cards shown


class SaveWritten(Message):
    """A save (or autosave) was written."""

    def __init__(self, folder: Path, what: str) -> None:
        super().__init__()
        self.folder = folder
        self.what = what


class SaveFailed(Message):
    """A save could not be written; the reason is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class MemoryLoaded(Message):
    """The inspector's records and heatmap were built."""

    def __init__(self, view: MemoryView) -> None:
        super().__init__()
        self.view = view


class AnswerGiven(Message):
    """A character answered a question asked in the inspector's Ask box (an interview.Answer)."""

    def __init__(self, answer: Any) -> None:
        super().__init__()
        self.answer = answer


class RecordChosen(Message):
    """The player asked to see a record in the inspector."""

    def __init__(self, record_id: int) -> None:
        super().__init__()
        self.record_id = record_id


class DraftReady(Message):
    """The authoring pipeline produced a draft world."""

    def __init__(self, draft: Any) -> None:
        super().__init__()
        self.draft = draft


class DraftFailed(Message):
    """The authoring pipeline failed or was cancelled; the reason is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class WorldSaved(Message):
    """A reviewed world was written as TOML (and passed the check on the way)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
