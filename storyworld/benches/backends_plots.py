"""PNG plots of a backend comparison: growth, latency, shared ownership, and the pictures of a run.

The pictures of a run (the paper's Figs 6-7), from the consensus run's `relations`:
interaction.png (who spoke to or acted on whom, coloured by Louvain community), affiliation.png
(consensus records linked by affiliation, coloured by cluster) and relations.png (the pairwise
matrices: interactions, records held in common, affiliation links across memories).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from storyworld.benches.backends_tables import LABELS

if TYPE_CHECKING:
    from storyworld.jsondata import Document


def _pyplot() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    return plt


def write_plots(result: Document, folder: Path) -> list[Path]:
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

    relations = (consensus or {}).get("relations")
    if relations:
        written.extend(write_relation_plots(relations, consensus["agents"], title, folder))

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


def _latency(plt: ModuleType, runs: Document, title: str, path: Path) -> Path:
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


def write_relation_plots(relations: Document, agents: list[str], title: str, folder: Path) -> list[Path]:
    """interaction.png, affiliation.png (when there are affiliation edges) and relations.png."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    written = [_interaction_graph(plt, relations, agents, title, folder / "interaction.png")]
    if relations.get("affiliation", {}).get("edges"):
        written.append(_affiliation_graph(plt, relations["affiliation"], title, folder / "affiliation.png"))
    written.append(_relation_matrices(plt, relations, agents, title, folder / "relations.png"))
    return written


def _community_of(relations: Document) -> dict[str, int]:
    """Agent -> index of its community."""
    return {agent: i for i, members in enumerate(relations.get("communities", [])) for agent in members}


def _interaction_graph(plt: ModuleType, relations: Document, agents: list[str], title: str, path: Path) -> Path:
    """Agents as nodes sized by weighted degree, edges weighted by interactions, colour by community."""
    import networkx as nx

    graph = nx.Graph()
    for pair in relations["pairs"]:
        weight = pair["spoke"] + pair["acted"]
        if weight:
            graph.add_edge(pair["a"], pair["b"], weight=weight)
    fig, axis = plt.subplots(figsize=(9, 8))
    if graph.number_of_nodes():
        community = _community_of(relations)
        layout = nx.spring_layout(graph, weight="weight", seed=0, k=1.2 / max(1, graph.number_of_nodes()) ** 0.5)
        degree = dict(graph.degree(weight="weight"))
        most = max(degree.values()) or 1
        widths = [0.4 + 3.0 * graph[a][b]["weight"] / max(d["weight"] for _, _, d in graph.edges(data=True))
                  for a, b in graph.edges()]
        nx.draw_networkx_edges(graph, layout, ax=axis, width=widths, alpha=0.35, edge_color="#4a6fa5")
        nodes = list(graph.nodes())
        nx.draw_networkx_nodes(graph, layout, nodelist=nodes, ax=axis, cmap="tab10", vmin=0, vmax=9,
                               node_color=[community.get(n, 0) % 10 for n in nodes],
                               node_size=[80 + 900 * degree[n] / most for n in nodes])
        nx.draw_networkx_labels(graph, layout, ax=axis, font_size=7)
    alone = sorted(set(agents) - set(graph.nodes()))
    note = f"\nno interaction: {', '.join(alone[:6])}{f' and {len(alone) - 6} more' if len(alone) > 6 else ''}" if alone else ""
    groups = sum(1 for c in relations.get("communities", []) if len(c) > 1)
    axis.set_title(f"Interaction graph: who spoke to or acted on whom ({groups} Louvain communities; "
                   f"size: weighted degree){note}", fontsize=9)
    axis.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _affiliation_graph(plt: ModuleType, affiliation: Document, title: str, path: Path) -> Path:
    """Consensus records as nodes (size: owners), affiliation edges, colour: Louvain cluster; 3 labelled."""
    import networkx as nx

    from storyworld.report.relations import affiliation_clusters

    edges = [tuple(e) for e in affiliation["edges"]]
    clusters = affiliation_clusters(edges)
    cluster_of = {node: i for i, members in enumerate(clusters) for node in members}
    owners = {int(k): v for k, v in affiliation.get("owners", {}).items()}
    texts = {int(k): v for k, v in affiliation.get("texts", {}).items()}
    graph = nx.Graph(edges)
    layout = nx.spring_layout(graph, seed=0, k=1.5 / max(1, graph.number_of_nodes()) ** 0.5)
    fig, axis = plt.subplots(figsize=(10, 8))
    nx.draw_networkx_edges(graph, layout, ax=axis, width=0.3, alpha=0.25)
    nodes = list(graph.nodes())
    nx.draw_networkx_nodes(graph, layout, nodelist=nodes, ax=axis, cmap="tab20", vmin=0, vmax=19,
                           node_color=[cluster_of.get(n, 0) % 20 for n in nodes],
                           node_size=[6 + 14 * len(owners.get(n, ())) for n in nodes])
    # the most-owned record of each of the three largest clusters: a cluster is a plotline
    for members in clusters[:3]:
        pick = max(members, key=lambda n: (len(owners.get(n, ())), -n))
        x, y = layout[pick]
        who = ", ".join(owners.get(pick, [])[:4]) + ("…" if len(owners.get(pick, [])) > 4 else "")
        label = f"#{pick} {texts.get(pick, '')[:60]}\nowners: {who}"
        axis.annotate(label, (x, y), xytext=(10, 10), textcoords="offset points", fontsize=7,
                      bbox={"boxstyle": "round", "fc": "white", "alpha": 0.85})
        axis.scatter([x], [y], s=220, facecolors="none", edgecolors="black", linewidths=1.2)
    axis.set_title(f"Memory affiliation: {graph.number_of_nodes()} linked records, {graph.number_of_edges()} "
                   f"edges, {len(clusters)} clusters (size: owners)", fontsize=9)
    axis.axis("off")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _relation_matrices(plt: ModuleType, relations: Document, agents: list[str], title: str, path: Path) -> Path:
    """Three agent x agent matrices ordered by community, and the Fig. 7 contrast of conversing pairs."""
    import numpy as np

    community = _community_of(relations)
    involved = {p[k] for p in relations["pairs"] for k in ("a", "b")}
    order = sorted((a for a in agents if a in involved), key=lambda a: (community.get(a, 10**6), a))
    index = {a: i for i, a in enumerate(order)}
    keys = (("interactions", "spoke to / acted on"), ("shared", "records both own"),
            ("linked", "affiliation links across their memories"))
    mats = {key: np.zeros((len(order), len(order))) for key, _ in keys}
    for pair in relations["pairs"]:
        i, j = index[pair["a"]], index[pair["b"]]
        values = {"interactions": pair["spoke"] + pair["acted"], "shared": pair["shared"], "linked": pair["linked"]}
        for key, value in values.items():
            mats[key][i, j] = mats[key][j, i] = value
    fig, axes = plt.subplots(1, 4, figsize=(22, 6), gridspec_kw={"width_ratios": [1, 1, 1, 0.8]})
    for axis, (key, label) in zip(axes, keys):
        image = axis.imshow(np.log10(1 + mats[key]), cmap="viridis")
        axis.set_xticks(range(len(order)), order, rotation=90, fontsize=6)
        axis.set_yticks(range(len(order)), order, fontsize=6)
        axis.set_title(f"{label} (log10(1+n))", fontsize=9)
        fig.colorbar(image, ax=axis, shrink=0.6)
    # Fig. 7: pairs that converse against pairs that do not, on the memory relations
    upper = np.triu_indices(len(order), 1)
    talks = mats["interactions"][upper] > 0
    bars, labels = [], []
    for key in ("shared", "linked"):
        pair_values = mats[key][upper]
        for flag, name in ((True, "converse"), (False, "do not")):
            chosen = pair_values[talks == flag]
            bars.append(float(chosen.mean()) if chosen.size else 0.0)
            labels.append(f"{key}\n{name} ({int(chosen.size)})")
    axes[3].bar(range(len(bars)), bars, color=["#4a6fa5", "#bbbbbb"] * 2)
    axes[3].set_xticks(range(len(bars)), labels, fontsize=7)
    axes[3].set_ylabel("mean per pair")
    axes[3].set_title("Pairs who converse vs pairs who do not", fontsize=9)
    fig.suptitle(title + " — agents ordered by conversational community")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
