"""A paste into the action bar is text: its escape sequences and control characters never reach the line."""

from __future__ import annotations

import pytest

from textual import events

from tui.app import make_app
from tui.widgets.action_bar import ActionBar, pasted_line
from tests.support.pilot import piloted

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("pasted, line", [
    ("Where is\x1b[D\x1b[D the letter?", "Where is the letter?"),  # cursor keys: the words would change places
    ("\x1b]0;owned\x07Who lit the lamp?", "Who lit the lamp?"),  # a title-setting OSC
    ("Tobin,\x1b[31m come here\x1b[0m.\nsecond line", "Tobin, come here."),
    ("bell\x07 and\x00 nul", "bell and nul"),
])
def test_pasted_line_strips_sequences_and_keeps_the_order(pasted, line):
    assert pasted_line(pasted) == line


async def test_a_paste_with_escape_sequences_lands_in_order_without_them(runtime, tiny_world):
    app = make_app(runtime=runtime, world=tiny_world, player="maren")
    async with piloted(app) as pilot:
        bar = app.screen.query_one(ActionBar)
        bar.focus()
        bar.value = "/say "
        bar.cursor_position = len(bar.value)
        bar.post_message(events.Paste("Who\x1b[D\x1b[D left\x1b[2J the lamp\x1b[H dark?"))
        await pilot.pause()
        assert bar.value == "/say Who left the lamp dark?"
        assert "\x1b" not in bar.value
