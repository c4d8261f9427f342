"""The Relations tab: agent pairs ranked by interaction, with shared memory, and a small matrix."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from tui.views import Relations
from tui.widgets.heatmap import _unique_labels, scale_colour

TOP_PAIRS = 12
MATRIX_AGENTS = 8


def pairs_table(relations: Relations, limit: int = TOP_PAIRS) -> Table:
    """The most related pairs: who, spoke, acted, records both own, affiliation links across their memories."""
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 1), pad_edge=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("pair", no_wrap=True)
    for label in ("spoke", "acted", "shared", "linked"):
        table.add_column(label, justify="right")
    for rank, pair in enumerate(relations.pairs[:limit], start=1):
        who = f"{relations.names.get(pair.a, pair.a)} · {relations.names.get(pair.b, pair.b)}"
        table.add_row(str(rank), who[:34], str(pair.spoke), str(pair.acted), str(pair.shared), str(pair.linked))
    return table


def matrix_table(relations: Relations, size: int = MATRIX_AGENTS) -> Table:
    """Interactions between the most active agents (upper: spoke + acted; lower: records both own)."""
    activity: dict[str, int] = {}
    for pair in relations.pairs:
        for agent in (pair.a, pair.b):
            activity[agent] = activity.get(agent, 0) + pair.interactions
    agents = sorted(activity, key=lambda a: (-activity[a], a))[:size]
    cell = {(p.a, p.b): p for p in relations.pairs}
    names = tuple(relations.names.get(a, a) for a in agents)
    top_talk = max((p.interactions for p in relations.pairs), default=0)
    top_shared = max((p.shared for p in relations.pairs if p.a in agents and p.b in agents), default=0)
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 0), pad_edge=False)
    table.add_column("", no_wrap=True)
    for label in _unique_labels(names):
        table.add_column(label, justify="right", no_wrap=True, min_width=5)
    for i, a in enumerate(agents):
        cells: list[Text] = []
        for j, b in enumerate(agents):
            if i == j:
                cells.append(Text("   · ", style="dim"))
                continue
            pair = cell.get((min(a, b), max(a, b)))
            value, top = (pair.interactions if pair else 0, top_talk) if j > i else (pair.shared if pair else 0, top_shared)
            ink = "#101010" if top and value / top > 0.55 else "#f0f0f0"
            cells.append(Text(f"{value:>4} ", style=f"{ink} on {scale_colour(value, top)}"))
        table.add_row(Text(names[i][:16] + " ", style="bold"), *cells)
    return table


class RelationsView(Static):
    """Renders Relations: ranked pairs, then the matrix of the most active agents, then communities."""

    def show(self, relations: Relations | None) -> None:
        """Render (or say why there is nothing to show)."""
        if relations is None:
            self.update("Relations need the run's events (open the inspector from a game).")
            return
        if not relations.pairs:
            self.update("Nobody has spoken to or acted on anyone yet, and no record is shared.")
            return
        head = Text("Pairs by interaction", style="bold")
        head.append("  spoke: lines addressed to or heard by the other · acted: actions on the other · "
                    "shared: records both own · linked: affiliation links across their memories\n", style="dim")
        matrix_head = Text("\nMost active agents", style="bold")
        matrix_head.append("  above the diagonal: spoke + acted · below: records both own\n", style="dim")
        parts: list[object] = [head, pairs_table(relations), matrix_head, matrix_table(relations)]
        if relations.communities:
            groups = Text("\nConversational communities (Louvain)\n", style="bold")
            for k, members in enumerate(relations.communities, start=1):
                groups.append(f"  {k}. " + ", ".join(relations.names.get(m, m) for m in members) + "\n")
            parts.append(groups)
        self.update(Group(*parts))
