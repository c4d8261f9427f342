"""The play transcript: what the player's character perceives, set like a screenplay."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.views import TranscriptEntry


def entry_text(entry: TranscriptEntry) -> Text:
    """One entry as styled text (rich Text, so speech with [brackets] is never read as markup)."""
    match entry.kind:
        case "heading":
            return Text(entry.text.upper(), style="bold")
        case "line":
            label = entry.speaker.upper()
            if entry.to:
                label += f" (to {entry.to})"
            if entry.own:
                label += " · you"
            text = Text(label, style="bold")
            text.append("\n")
            text.append(entry.text)
            return text
        case "result":
            return Text(f"→ {entry.text}", style="italic")
    return Text(f"({entry.text})", style="italic")


class Transcript(VerticalScroll):
    """A scrolling column of entries; new rounds append at the bottom and scroll into view."""

    can_focus = True

    def add_entries(self, entries: Iterable[TranscriptEntry], round_label: str | None = None) -> None:
        """Append a round's entries (with an optional dim round marker) and scroll to the end."""
        widgets: list[Static] = []
        if round_label:
            widgets.append(Static(round_label, classes="entry -round"))
        for entry in entries:
            classes = f"entry -{entry.kind}" + (" -own" if entry.own else "")
            widgets.append(Static(entry_text(entry), classes=classes))
        if widgets:
            self.mount_all(widgets)
            self.call_after_refresh(self.scroll_end, animate=False)

    def add_pending(self, entry: TranscriptEntry) -> None:
        """Show the player's line at once, dimmed, until its round resolves (then the real entry replaces it)."""
        self.clear_pending()
        self.mount(Static(entry_text(entry), classes=f"entry -{entry.kind} -own -pending"))
        self.call_after_refresh(self.scroll_end, animate=False)

    def clear_pending(self) -> None:
        """Remove the pending line."""
        self.query(".-pending").remove()

    def add_note(self, text: str, kind: str = "note") -> None:
        """A line from the game itself (help, problems, recall headers), not from the story."""
        self.mount(Static(Text(text), classes=f"entry -{kind}"))
        self.call_after_refresh(self.scroll_end, animate=False)
