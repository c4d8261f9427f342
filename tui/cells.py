"""Text cut to terminal cells, not characters: a Chinese character takes two cells (Rich's cell widths)."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def fit(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` in at most `width` cells, ending in `ellipsis` when cut (what fits is returned as it is)."""
    flat = text
    if cell_len(flat) <= width:
        return flat
    if width <= cell_len(ellipsis):
        return set_cell_size(ellipsis, width)
    cut = set_cell_size(flat, width - cell_len(ellipsis))
    # set_cell_size pads with a space where a wide character would straddle the edge.
    return cut.rstrip() + ellipsis


def head(text: str, width: int) -> str:
    """The first `width` cells of `text`, no ellipsis (column labels)."""
    cut = set_cell_size(text, width) if cell_len(text) > width else text
    return cut.rstrip()
