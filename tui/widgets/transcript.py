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
        case "word":
            return Text(entry.text, style="italic bold")
    return Text(f"({entry.text})", style="italic")


class Transcript(VerticalScroll):
    """A scrolling column of entries; new rounds append at the bottom and scroll into view."""

    can_focus = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._round_starts: list[int] = []  # how many entries there were when each round's began

    def _shown(self) -> list[Static]:
        """The entries on show (a pending line is on its way out, never part of a round; nor is an undone one,
        which stays a child until its removal is processed)."""
        return [c for c in self.query_children(".entry") if not c.has_class("-pending") and not c.has_class("-undone")]

    def begin_round(self) -> None:
        """What comes next belongs to a new round (undo_round takes it away again)."""
        self._round_starts.append(len(self._shown()))

    def undo_round(self) -> None:
        """Take away everything shown since the last round began: the transcript as it was before it."""
        if not self._round_starts:
            return
        keep = self._round_starts.pop()
        for child in self._shown()[keep:]:
            # removal is processed later: marked now, so a round begun at once (a retry) counts without it
            child.add_class("-undone")
            child.remove()

    def reset(self) -> None:
        """Empty the transcript (another game is loading)."""
        self._round_starts.clear()
        self.remove_children()

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

    def add_hint(self, text: str) -> None:
        """The director's hint for where the player stands now; an earlier one goes (its /move was from there)."""
        self.query(".-hint").remove()
        self.add_note(f"Hint: {text}", "hint")

    def add_note(self, text: str, kind: str = "note") -> None:
        """A line from the game itself (help, problems, recall headers), not from the story."""
        self.mount(Static(Text(text), classes=f"entry -{kind}"))
        self.call_after_refresh(self.scroll_end, animate=False)
