"""A dialog's row of buttons, as in other terminal apps: ← and → (like Tab) move between them, Enter presses."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button


class Buttons(Horizontal):
    """The buttons of a dialog; the arrow keys step between them (wrapping), so Enter is never a guess."""

    BINDINGS = [
        Binding("left", "step(-1)", "Previous button", show=False),
        Binding("right", "step(1)", "Next button", show=False),
    ]

    def action_step(self, by: int) -> None:
        """Focus the button `by` places along from the focused one."""
        buttons = [b for b in self.query(Button) if b.display and not b.disabled]
        if not buttons:
            return
        focused = self.screen.focused
        at = buttons.index(focused) if focused in buttons else (-1 if by > 0 else 0)
        buttons[(at + by) % len(buttons)].focus()
