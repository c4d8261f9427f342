"""Record cards: owner badges, grouped provenance, and the Who-knows list that shows them."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.widgets import ListItem, ListView, Static

from tui.messages import RecordChosen
from tui.views import OwnerLine, RecordCard, badge_colour

MARK_STYLE = "bold red"


def badges(owners: tuple[OwnerLine, ...], player: str = "") -> Text:
    """One coloured badge per owner; the player's own badge is marked with a star."""
    text = Text()
    for owner in owners:
        label = f" {owner.name}{' *' if owner.agent == player else ''} "
        text.append(label, style=f"bold #101010 on {badge_colour(owner.agent)}")
        text.append(" ")
    return text


def card_text(card: RecordCard, player: str = "", *, max_text: int = 240) -> Text:
    """A record card: header, statement, owner badges, then one line per provenance group."""
    body = card.text if len(card.text) <= max_text else card.text[: max_text - 1] + "…"
    text = Text()
    header = f"#{card.id} {card.kind} · r{card.round}"
    if card.reason:
        header += f" · {card.reason}"
    text.append(header + "\n", style="dim")
    text.append(body + "\n")
    text.append_text(badges(card.owners, player))
    groups = card.groups()
    for how, group in groups:
        text.append("\n  ")
        # the badges already name everyone: with one provenance for all, say "all" instead of the names again
        names = f"all {len(group)}" if len(groups) == 1 and len(group) > 1 else ", ".join(o.name for o in group)
        text.append(f"{names}: ", style="bold")
        plain, sep, marks = how.partition(" [")
        text.append(plain, style="italic")
        if sep:
            text.append(" [" + marks, style=MARK_STYLE)
    return text


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
