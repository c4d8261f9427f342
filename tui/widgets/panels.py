"""The side panel's Cast, Map and Goals tabs, and the status and progress lines."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from storyworld.game.playerinput import DIRECTIONS
from tui.views import CastEntry, MapView, Moment, badge_colour


class CastPanel(Static):
    """Who is here (with mood), then everyone elsewhere."""

    def show(self, cast: tuple[CastEntry, ...]) -> None:
        """Render the cast list."""
        text = Text()
        here = [c for c in cast if c.here]
        away = [c for c in cast if not c.here]
        text.append("Here\n", style="bold")
        for entry in here:
            text.append("● ", style=badge_colour(entry.id))
            text.append(entry.name + (" (you)" if entry.is_player else ""))
            if entry.mood:
                text.append(f" · {entry.mood}", style="dim")
            if entry.status != "active":
                text.append(f" · {entry.status}", style="dim italic")
            text.append("\n")
        if away:
            text.append("\nElsewhere\n", style="bold")
            for entry in away:
                text.append("○ ", style=badge_colour(entry.id))
                text.append(entry.name, style="" if entry.status == "active" else "dim")
                if entry.status != "active":
                    text.append(f" · {entry.status}", style="dim italic")
                text.append("\n")
        self.update(text)


class MapPanel(Static):
    """Where the player is, the exits (what /move takes), and every place."""

    def show(self, view: MapView) -> None:
        """Render the map."""
        text = Text()
        text.append("You are in ", style="dim")
        text.append(view.here_name + "\n", style="bold")
        if view.here_description:
            text.append(view.here_description + "\n", style="italic")
        text.append("\nExits (/move …, or the direction)\n", style="bold")
        for at, (ident, name) in enumerate(view.exits):
            way = f"{DIRECTIONS[at][1]:<2} " if at < len(DIRECTIONS) else ""
            text.append(f"{way}→ {ident}", style="bold")
            text.append(f"  {name}\n" if name.lower() != ident else "\n", style="dim")
        if not view.exits:
            text.append("none\n", style="dim")
        text.append("\nPlaces\n", style="bold")
        for ident, name in view.places:
            marker = "▶ " if ident == view.here else "  "
            text.append(marker + name + "\n", style="bold" if ident == view.here else "")
        self.update(text)


class GoalsPanel(Static):
    """The player's goal stack, top first."""

    def show(self, goals: tuple[str, ...], suggestions: tuple[tuple[str, str], ...] = ()) -> None:
        """Render the story's suggestions (next beats first, then done or passed), then the goal stack."""
        text = Text()
        upcoming = [t for t, status in suggestions if status == "next"]
        settled = [(t, status) for t, status in suggestions if status != "next"]
        if upcoming or settled:
            text.append("In the story\n", style="bold underline")
            for i, item in enumerate(upcoming):
                text.append("→ " if i == 0 else "  ", style="bold")
                text.append(item + "\n", style="" if i == 0 else "dim")
            for item, status in settled:
                # done: it happened on screen with you there; passed: elsewhere, off the screen, or the story moved on
                mark = "✓ " if status == "done" else "✗ "
                text.append(mark, style="green" if status == "done" else "yellow")
                text.append(f"{item} ({status})\n", style="dim")
            text.append("\nYour goals\n", style="bold underline")
        if not goals:
            text.append("No goals. Your own choices, then.", style="dim")
        for i, goal in enumerate(goals):
            text.append(("▶ " if i == 0 else f"{i + 1}. "), style="bold" if i == 0 else "dim")
            text.append(goal + "\n", style="" if i == 0 else "dim")
        self.update(text)


class StatusLine(Static):
    """World, character, round, place and model on one line."""

    def show(self, moment: Moment, slot: str = "") -> None:
        """Render the status line."""
        text = Text()
        text.append(f" {moment.world_title} ", style="bold")
        text.append("│ ", style="dim")
        text.append(moment.player_name, style=f"bold {badge_colour(moment.player)}")
        text.append(" │ ", style="dim")
        text.append(f"round {moment.round}")
        text.append(" │ ", style="dim")
        text.append(moment.place_name)
        if moment.model:
            text.append(" │ ", style="dim")
            text.append(moment.model, style="dim")
        if slot:
            text.append(" │ ", style="dim")
            text.append(slot, style="dim")
        self.update(text)
