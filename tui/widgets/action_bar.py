"""The action bar: an Input where Tab completes and Up/Down walk through earlier lines."""

from __future__ import annotations

import re
import unicodedata

from textual import events
from textual.binding import Binding
from textual.widgets import Input

# Terminal escape sequences a paste may carry (CSI like ESC[D, OSC like ESC]0;title BEL, two-byte ESC x):
# inserted as they are, they move the cursor when the line is drawn and the words seem to change places.
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -~])?")


def pasted_line(text: str) -> str:
    """The first line of a paste with its escape sequences and other control characters taken out."""
    line = _ESCAPE.sub("", text).replace("\r\n", "\n").replace("\r", "\n").split("\n", 1)[0]
    return "".join(ch if ch == "\t" or unicodedata.category(ch) != "Cc" else "" for ch in line)


class ActionBar(Input):
    """Where the player types; completion comes from the suggester's scene (see tui.slash)."""

    BINDINGS = [
        Binding("tab", "complete", "Complete", show=False),
        Binding("up", "history(-1)", "Earlier line", show=False),
        Binding("down", "history(1)", "Later line", show=False),
    ]

    def __init__(self, *args, **kwargs) -> None:
        # focus coming back (after a dialog, or a key typed in the panel) never selects the line: what is typed
        # next goes on after it, as in a chat, instead of replacing it
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)
        self.history: list[str] = []
        """Lines played, oldest first."""
        self._history_at = 0
        self._cycle: tuple[str, ...] = ()  # the lines Tab steps through for the word being completed

    def _on_paste(self, event: events.Paste) -> None:
        """A paste is text: its first line, with no escape sequence or control character in it."""
        event.stop()
        event.prevent_default()
        line = pasted_line(event.text)
        if not line:
            return
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(line)
        else:
            self.replace(line, *selection)

    def remember(self, line: str) -> None:
        """Add a played line to the history."""
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self._history_at = len(self.history)

    def completion(self) -> str | None:
        """The line with its last word completed now (the grey suggestion may not have arrived yet)."""
        from tui import slash

        scene = self.suggester.scene if isinstance(self.suggester, slash.SlashSuggester) else None
        found = slash.complete(self.value, scene) if scene is not None else None
        if found is None and self._suggestion and self._suggestion != self.value:
            found = self._suggestion
        return found

    def action_complete(self) -> None:
        """Complete the last word; Tab again offers the next option. With nothing typed, Tab moves on;
        a typed line never loses the focus."""
        from tui import slash

        if not self.value:
            self.screen.focus_next()
            return
        if self._cycle and self.value in self._cycle:
            # Tab again on a completion just made: the next option for the same word
            found: str | None = self._cycle[(self._cycle.index(self.value) + 1) % len(self._cycle)]
        else:
            scene = self.suggester.scene if isinstance(self.suggester, slash.SlashSuggester) else None
            # an empty argument ("/move ") lists its options on Tab, though no grey suggestion is shown
            options = slash.choices(self.value, scene) if scene is not None else ()
            found = self.completion() or (options[0] if options else None)
            self._cycle = tuple(o + " " for o in options)
        if found is None or found == self.value:
            self.app.bell()  # nothing to complete: say so, and keep the keys coming here
            return
        self.value = found if found.endswith(" ") else found + " "
        self.cursor_position = len(self.value)

    def action_history(self, step: int) -> None:
        """Bring back an earlier (or later) line."""
        if not self.history:
            return
        self._history_at = max(0, min(len(self.history), self._history_at + step))
        self.value = self.history[self._history_at] if self._history_at < len(self.history) else ""
        self.cursor_position = len(self.value)
