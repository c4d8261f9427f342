"""CJK text is cut by terminal cells (two per Chinese character), so tables and cards keep their width."""

from __future__ import annotations

from rich.cells import cell_len

from tui.cells import fit, head
from tui.widgets.heatmap import _unique_labels, short_name


def test_fit_counts_cells_not_characters():
    text = "劉備、關羽、張飛三人於桃園結義，誓同生死。"
    cut = fit(text, 12)
    assert cell_len(cut) <= 12 and cut.endswith("…") and cut.startswith("劉備")
    assert fit("Hamlet", 12) == "Hamlet"
    assert cell_len(fit("a" * 30, 10)) == 10
    # An odd width never splits a wide character in two.
    assert cell_len(fit(text, 9)) <= 9


def test_column_labels_fit_their_columns():
    assert head("諸葛亮", 4) == "諸葛" and short_name("諸葛亮") == "諸葛"
    labels = _unique_labels(("劉備", "劉表", "Hamlet"))
    assert all(cell_len(label) <= 5 for label in labels) and len(set(labels)) == 3
