"""Owner badges, and the side panel's knowledge cards in the Who-knows list."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual import on
from textual.widgets import ListItem, ListView, Static

from tui.cells import fit
from tui.messages import RecordChosen
from tui.knowledge import KnowledgeCard
from tui.views import OwnerLine, badge_colour

MARK_STYLE = "bold red"


class Badges:
    """Owner badges laid out to the width they get: a badge moves to the next line whole, never split."""

    def __init__(self, owners: Iterable[tuple[str, str]], player: str = "", label: str = "") -> None:
        self.items = [
            (f" {name}{' *' if agent == player else ''} ", f"bold #101010 on {badge_colour(agent)}")
            for agent, name in owners
        ]
        if label:
            self.items.insert(0, (label, "dim"))

    def layout(self, width: int) -> Text:
        """The badges as text with a line break wherever the next badge would not fit."""
        text = Text()
        used = 0
        for label, style in self.items:
            size = cell_len(label)
            if used and used + 1 + size > width:
                text.append("\n")
                used = 0
            elif used:
                text.append(" ")
                used += 1
            text.append(label, style=style)
            used += size
        return text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.layout(options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widest = max((cell_len(label) for label, _ in self.items), default=0)
        return Measurement(min(widest, options.max_width), options.max_width)

    def __str__(self) -> str:
        return self.layout(10**6).plain


class Blocks:
    """Renderables one under the other (like rich's Group) whose str() is their plain text, for tests and logs."""

    def __init__(self, *parts: Any) -> None:
        self.parts = parts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self.parts

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.parts)


def badges(owners: tuple[OwnerLine, ...], player: str = "") -> Badges:
    """One coloured badge per owner; the player's own badge is marked with a star."""
    return Badges(((o.agent, o.name) for o in owners), player)


FRESH_STYLE = "bold reverse"


def knowledge_text(card: KnowledgeCard, player: str = "", *, max_text: int = 240) -> Blocks:
    """A knowledge card: what is known, how and how sure, what a line told, disputes in words, who holds it."""
    head = Text()
    if card.fresh:
        head.append(" new ", style=FRESH_STYLE)
        head.append(" ")
    head.append(fit(card.text, max_text) + "\n")
    head.append(card.how, style="italic")
    head.append(f" · {card.when} · {card.confidence:.2f}", style="dim")
    if card.marks:
        head.append(f" [{', '.join(card.marks)}]", style=MARK_STYLE)
    if card.reason and not card.fresh:
        head.append(f" · {card.reason}", style="dim")
    for _, statement in card.learned:
        head.append("\n  you learn: ", style="bold")
        head.append(fit(statement, max_text))
    if card.joined:
        head.append("\n  now known to ", style="bold")
        head.append(", ".join(card.joined) + " too")
    for line in card.disputes:
        head.append("\n  in dispute: ", style=MARK_STYLE)
        head.append(line)
    return Blocks(head, Badges(card.owners, player, label=f"{card.holders_label}:"))


class RecordItem(ListItem):
    """A list item that knows its record."""

    def __init__(self, card: KnowledgeCard, player: str) -> None:
        super().__init__(Static(knowledge_text(card, player), classes="card" + (" -fresh" if card.fresh else "")))
        self.card = card


class WhoKnows(ListView):
    """The Who-knows tab: cards for the records relevant now; Enter opens one in the inspector."""

    def show(self, cards: tuple[KnowledgeCard, ...], player: str) -> None:
        """Replace the cards."""
        self.clear()
        if not cards:
            self.append(ListItem(Static(Text("Nothing yet. Speak, look around, or /recall something."),
                                        classes="card -empty")))
            return
        self.extend(RecordItem(card, player) for card in cards)
        self.index = 0

    @on(ListView.Selected)
    def _chosen(self, event: ListView.Selected) -> None:
        if isinstance(event.item, RecordItem):
            event.stop()
            self.post_message(RecordChosen(event.item.card.id))
