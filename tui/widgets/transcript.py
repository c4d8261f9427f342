"""The play transcript: what the player's character perceives, set like a screenplay."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.views import Beat


def beat_text(beat: Beat) -> Text:
    """One beat as styled text (rich Text, so speech with [brackets] is never read as markup)."""
    match beat.kind:
        case "heading":
            return Text(beat.text.upper(), style="bold")
        case "line":
            label = beat.speaker.upper()
            if beat.to:
                label += f" (to {beat.to})"
            if beat.own:
                label += " · you"
            text = Text(label, style="bold")
            text.append("\n")
            text.append(beat.text)
            return text
        case "result":
            return Text(f"→ {beat.text}", style="italic")
    return Text(f"({beat.text})", style="italic")


class Transcript(VerticalScroll):
    """A scrolling column of beats; new rounds append at the bottom and scroll into view."""

    can_focus = True

    def add_beats(self, beats: Iterable[Beat], round_label: str | None = None) -> None:
        """Append a round's beats (with an optional dim round marker) and scroll to the end."""
        widgets: list[Static] = []
        if round_label:
            widgets.append(Static(round_label, classes="beat -round"))
        for beat in beats:
            classes = f"beat -{beat.kind}" + (" -own" if beat.own else "")
            widgets.append(Static(beat_text(beat), classes=classes))
        if widgets:
            self.mount_all(widgets)
            self.call_after_refresh(self.scroll_end, animate=False)

    def add_pending(self, beat: Beat) -> None:
        """Show the player's line at once, dimmed, until its round resolves (then the real beat replaces it)."""
        self.clear_pending()
        self.mount(Static(beat_text(beat), classes=f"beat -{beat.kind} -own -pending"))
        self.call_after_refresh(self.scroll_end, animate=False)

    def clear_pending(self) -> None:
        """Remove the pending line."""
        self.query(".-pending").remove()

    def add_note(self, text: str, kind: str = "note") -> None:
        """A line from the game itself (help, problems, recall headers), not from the story."""
        self.mount(Static(Text(text), classes=f"beat -{kind}"))
        self.call_after_refresh(self.scroll_end, animate=False)
