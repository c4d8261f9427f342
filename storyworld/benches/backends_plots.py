"""PNG plots of a backend comparison: growth per round, latency per 5-round bin, shared-ownership heatmap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

LABELS = {"consensus": "Consensus", "generative": "Gen. Agents", "gmemory": "G-Memory", "collaborative": "Collaborative"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def write_plots(result: dict[str, Any], folder: Path) -> list[Path]:
    """Write growth.png, latency.png and ownership.png (when there is a consensus run); returns the paths."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    runs = result.get("backends", {})
    title = f"{result.get('world')}, {result.get('rounds')} rounds, seed {result.get('seed')}"
    written: list[Path] = []

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for backend, run in runs.items():
        xs = [g["round"] for g in run["growth"]]
        left.plot(xs, [g["sim"] for g in run["growth"]], marker="o", markersize=3, label=LABELS.get(backend, backend))
    left.set_xlabel("round")
    left.set_ylabel("sim entries (cumulative)")
    left.set_title("Memory growth")
    left.legend()
    consensus = runs.get("consensus")
    if consensus:
        owned = sorted(consensus["owned_per_agent"].items(), key=lambda t: -t[1])
        names = [a for a, n in owned if n][:12]
        right.barh(names[::-1], [consensus["owned_per_agent"][a] for a in names][::-1])
        right.set_xlabel("records owned (consensus run)")
        right.set_title("Owned memories per agent")
    else:
        right.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    path = folder / "growth.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)

    written.append(_latency(plt, runs, title, folder / "latency.png"))
    replayed = result.get("replay", {}).get("backends", {})
    if replayed:
        written.append(_latency(plt, replayed, title + ": consensus stream replayed into every store",
                                folder / "latency-replay.png"))

    if consensus:
        import numpy as np

        agents = consensus["agents"]
        matrix = np.asarray(consensus["ownership"], dtype=float)
        keep = [i for i in range(len(agents)) if matrix[i, i] > 0]
        matrix = matrix[np.ix_(keep, keep)]
        names = [agents[i] for i in keep]
        off = matrix.copy()
        np.fill_diagonal(off, 0)
        fig, axis = plt.subplots(figsize=(8, 7))
        image = axis.imshow(np.log10(1 + off), cmap="viridis")
        axis.set_xticks(range(len(names)), names, rotation=90, fontsize=7)
        axis.set_yticks(range(len(names)), names, fontsize=7)
        axis.set_title("Records owned by both agents (consensus, log10(1+n))")
        fig.colorbar(image, ax=axis, shrink=0.8)
        fig.tight_layout()
        path = folder / "ownership.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)

    horizons = {b: r.get("horizons", {}) for b, r in runs.items() if r.get("horizons")}
    if horizons:
        fig, axis = plt.subplots(figsize=(6, 4))
        for backend, snaps in horizons.items():
            xs = sorted(int(h) for h in snaps)
            axis.plot(xs, [snaps[str(x)]["shared_fraction"] * 100 for x in xs], marker="o", label=LABELS.get(backend, backend))
        axis.set_xlabel("rounds")
        axis.set_ylabel("shared sim entries (%)")
        axis.set_title("Sharing by horizon")
        axis.legend()
        fig.tight_layout()
        path = folder / "horizons.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    return written


def _latency(plt: Any, runs: dict[str, Any], title: str, path: Path) -> Path:
    """remember and recall ms per 5-round bin, one line per backend."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for backend, run in runs.items():
        bins = run["latency_bins"]
        labels = [b["rounds"] for b in bins]
        left.plot(labels, [b["remember_ms_per_deposit"] for b in bins], marker="o", label=LABELS.get(backend, backend))
        right.plot(labels, [b["recall_ms_mean"] for b in bins], marker="o", label=LABELS.get(backend, backend))
    left.set_title("remember: ms per deposit")
    right.set_title("recall: ms per call")
    for axis in (left, right):
        axis.set_xlabel("rounds (5-round bins)")
        axis.set_ylabel("ms")
        axis.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
