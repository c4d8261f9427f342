"""The shared-ownership heatmap: agents × agents, how many records both hold, on a colour scale."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from tui.cells import head
from tui.views import Heatmap

# A dark-to-bright scale (blue to yellow) that stays readable on dark and light backgrounds.
SCALE: tuple[tuple[int, int, int], ...] = ((30, 35, 70), (40, 90, 150), (50, 150, 150), (120, 190, 90), (240, 210, 80))


def scale_colour(value: int, top: int) -> str:
    """The hex colour of a count on a 0..top scale."""
    if top <= 0 or value <= 0:
        return "#202020"
    x = min(1.0, value / top) * (len(SCALE) - 1)
    i = min(int(x), len(SCALE) - 2)
    f = x - i
    a, b = SCALE[i], SCALE[i + 1]
    r, g, bl = (round(a[k] + (b[k] - a[k]) * f) for k in range(3))
    return f"#{r:02x}{g:02x}{bl:02x}"


ARTICLES = frozenset({"a", "an", "the"})


def short_name(name: str, width: int = 4) -> str:
    """A column label: the first letters of the name's first word that is not an article."""
    words = [w for w in name.split() if w.lower() not in ARTICLES] or name.split() or [name]
    return head(words[0], width)


def heatmap_table(heatmap: Heatmap) -> Table:
    """A rich Table with one coloured cell per agent pair and a legend in the caption."""
    top = heatmap.off_diagonal_max
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 0), pad_edge=False)
    table.add_column("", no_wrap=True)
    labels = _unique_labels(heatmap.names)
    for label in labels:
        table.add_column(label, justify="right", no_wrap=True, min_width=5)
    for i, name in enumerate(heatmap.names):
        cells: list[Text] = []
        for j in range(len(heatmap.agents)):
            count = heatmap.counts[i][j]
            if i == j:
                cells.append(Text(f"{count:>4} ", style="bold"))
            else:
                colour = scale_colour(count, top)
                ink = "#101010" if top and count / top > 0.55 else "#f0f0f0"
                cells.append(Text(f"{count:>4} ", style=f"{ink} on {colour}"))
        table.add_row(Text(head(name, 16) + " ", style="bold"), *cells)
    return table


def legend(top: int, steps: int = 8) -> Text:
    """What the colours mean: a swatch strip from 0 to the largest count between two agents."""
    text = Text("Records both agents hold (diagonal: records each holds)\n", style="bold")
    text.append("0 ")
    for k in range(steps + 1):
        text.append("  ", style=f"on {scale_colour(round(top * k / steps) if top else 0, top)}")
    text.append(f" {top}\n")
    return text


def _unique_labels(names: tuple[str, ...]) -> list[str]:
    """Four-letter column labels; where two would read the same, initial + next word ("FPla", "FGra")."""
    labels: list[str] = []
    for name in names:
        words = [w for w in name.split() if w.lower() not in ARTICLES] or name.split() or [name]
        options = [head(words[0], 4)]
        if len(words) > 1:
            options.append(head(words[0][:1] + words[1], 4))
        label = next((o for o in options if o not in labels), None)
        n = 2
        while label is None or label in labels:
            label = f"{head(words[0], 3)}{n}"
            n += 1
        labels.append(label)
    return labels


class HeatmapView(Static):
    """Renders a Heatmap."""

    def show(self, heatmap: Heatmap) -> None:
        """Render the table (or a note when there are no agents)."""
        if not heatmap.agents:
            self.update("No agents.")
            return
        self.update(Group(legend(heatmap.off_diagonal_max), heatmap_table(heatmap)))
