"""The action bar: an Input where Tab accepts the completion and Up/Down walk through earlier lines."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class ActionBar(Input):
    """Where the player types; completion comes from the suggester (see tui.slash)."""

    BINDINGS = [
        Binding("tab", "complete", "Complete", show=False),
        Binding("up", "history(-1)", "Earlier line", show=False),
        Binding("down", "history(1)", "Later line", show=False),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.history: list[str] = []
        """Lines played, oldest first."""
        self._history_at = 0

    def remember(self, line: str) -> None:
        """Add a played line to the history."""
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self._history_at = len(self.history)

    def action_complete(self) -> None:
        """Accept the grey suggestion, or move focus on when there is none."""
        if self._suggestion and self._suggestion != self.value:
            self.value = self._suggestion
            self.cursor_position = len(self.value)
            if not self.value.endswith(" "):
                self.insert_text_at_cursor(" ")
        else:
            self.screen.focus_next()

    def action_history(self, step: int) -> None:
        """Bring back an earlier (or later) line."""
        if not self.history:
            return
        self._history_at = max(0, min(len(self.history), self._history_at + step))
        self.value = self.history[self._history_at] if self._history_at < len(self.history) else ""
        self.cursor_position = len(self.value)
