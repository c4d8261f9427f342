"""Record cards: owner badges, grouped provenance, and the Who-knows list that shows them."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual import on
from textual.widgets import ListItem, ListView, Static

from tui.cells import fit
from tui.messages import RecordChosen
from tui.views import OwnerLine, RecordCard, badge_colour

MARK_STYLE = "bold red"


class Badges:
    """Owner badges laid out to the width they get: a badge moves to the next line whole, never split."""

    def __init__(self, owners: tuple[OwnerLine, ...], player: str = "") -> None:
        self.items = [
            (f" {o.name}{' *' if o.agent == player else ''} ", f"bold #101010 on {badge_colour(o.agent)}")
            for o in owners
        ]

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
    return Badges(owners, player)


def card_text(card: RecordCard, player: str = "", *, max_text: int = 240) -> Blocks:
    """A record card: header, statement, owner badges, then one line per provenance group."""
    body = card.text if cell_len(card.text) <= max_text else fit(card.text, max_text)
    head = Text()
    header = f"#{card.id} {card.kind} · r{card.round}"
    if card.reason:
        header += f" · {card.reason}"
    head.append(header + "\n", style="dim")
    head.append(body)
    text = Text()
    groups = card.groups()
    for k, (how, group) in enumerate(groups):
        if k:
            text.append("\n")
        # the badges already name everyone: with one provenance for all, say "all" instead of the names again
        names = f"all {len(group)}" if len(groups) == 1 and len(group) > 1 else ", ".join(o.name for o in group)
        text.append(f"  {names}: ", style="bold")
        plain, sep, marks = how.partition(" [")
        text.append(plain, style="italic")
        if sep:
            text.append(" [" + marks, style=MARK_STYLE)
    for line in card.disputes:
        text.append(f"\n  in dispute: {line}", style=MARK_STYLE)
    return Blocks(head, badges(card.owners, player), text)


class RecordItem(ListItem):
    """A list item that knows its record."""

    def __init__(self, card: RecordCard, player: str) -> None:
        super().__init__(Static(card_text(card, player), classes="card"))
        self.card = card


class WhoKnows(ListView):
    """The Who-knows tab: cards for the records relevant now; Enter opens one in the inspector."""

    def show(self, cards: tuple[RecordCard, ...], player: str) -> None:
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
