"""The paper's tables for one backend comparison (`storyworld bench backends`), as markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from storyworld.benches.metering import ACTION_NAMES

if TYPE_CHECKING:
    from storyworld.jsondata import Document

LABELS = {"consensus": "Consensus", "generative": "Gen. Agents", "gmemory": "G-Memory", "collaborative": "Collaborative"}
QUALITY_KEYS = ("grounding", "trajectory", "narrative", "goal")


def _pct(part: float, fraction: float) -> str:
    return f"{int(part)} ({fraction * 100:.0f}%)"


def _frac(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _below_closest(runs: Document, key: str) -> tuple[str, float]:
    """The baseline with the fewest `key` entries, and how far below it consensus is (0.25 = 25% fewer)."""
    others = {b: r[key] for b, r in runs.items() if b != "consensus"}
    closest = min(others, key=lambda b: others[b])
    return closest, (1 - runs["consensus"][key] / others[closest] if others[closest] else 0.0)


def _table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(result: Document) -> str:
    """The paper's tables for one comparison, as markdown."""
    runs = result.get("backends", {})
    out = [f"# Backends on {result.get('world')} from {result.get('start')}: {result.get('rounds')} rounds, "
           f"seed {result.get('seed')}, model {result.get('model')}", ""]
    if "generative" in runs or "generative" in result.get("replay", {}).get("backends", {}):
        out += [importance_note(bool(result.get("ga_model"))), ""]
    if runs:
        out += _store_tables(runs)
        out += _latency_tables(runs)
        out += _replay_tables(result.get("replay", {}).get("backends", {}))
        out += _table4_section(runs)
        out += _horizon_table(runs)
    if result.get("ablations"):
        out += _ablation_table(result["ablations"])
    out += _quality_table(runs, result.get("model"))
    if result.get("seconds") is not None:
        out += ["", f"Wall time: {result['seconds'] / 60:.1f} min."]
    return "\n".join(out) + "\n"


def importance_note(ga_model: bool) -> str:
    """How the Generative Agents baseline scored importance in a run: said wherever its figures are shown."""
    if ga_model:
        return "Gen. Agents asks the model for each memory's importance (1-10) and writes reflections with it (--ga-model)."
    return ("Gen. Agents scores importance by rules here (the kind of memory, how it was learned and its length: "
            "`memory.baselines.rule_importance`), not by asking the model as Park et al. do; `bench backends --ga-model` "
            "asks the model.")


def _store_tables(runs: Document) -> list[str]:
    """Tables 1, 2, 8 and 5: entries, sharing and linking, consensus structure, actions."""
    out = ["## Table 1: store size (entries)", "",
           _table(["Backend", "Sediment", "Sim", "Total"],
                  [[LABELS.get(b, b), r["sediment"], r["sim"], r["total"]] for b, r in runs.items()])]
    if "consensus" in runs and len(runs) > 1:
        closest, gap = _below_closest(runs, "total")
        sim_closest, sim_gap = _below_closest(runs, "sim")
        out += ["", f"Consensus total entries: {gap * 100:.1f}% below the closest baseline "
                    f"({LABELS.get(closest, closest)}); sim entries: {sim_gap * 100:.1f}% below "
                    f"({LABELS.get(sim_closest, sim_closest)})."]
    out += ["", "## Table 2: sharing and linking (over sim entries)", "",
            _table(["Backend", "Sim entries", "Shared (multi-owner)", "Linked (affiliated)"],
                   [[LABELS.get(b, b), r["sim"], _pct(r["shared"], r["shared_fraction"]),
                     _pct(r["linked"], r["linked_fraction"])] for b, r in runs.items()])]
    out += ["", "## Table 8: consensus structure", "",
            _table(["Backend", "Sim entries", "Shared", "3+", "Max", "Linked", "Expanded", "Linked/call"],
                   [[LABELS.get(b, b), r["sim"], _pct(r["shared"], r["shared_fraction"]), r["three_plus"],
                     r["max_owners"], f"{r['linked_fraction'] * 100:.0f}%",
                     f"{r['expanded_calls']}/{r['recall_calls']}", f"{r['linked_per_call']:.1f}"]
                    for b, r in runs.items()])]
    out += ["", "## Table 5: actions per backend (from the event log)", "",
            _table(["Action", *[LABELS.get(b, b) for b in runs]],
                   [[a, *[r["actions"].get(a, 0) for r in runs.values()]] for a in ACTION_NAMES]
                   + [["fallbacks", *[r["fallbacks"] for r in runs.values()]]])]
    return out


def _latency_tables(runs: Document) -> list[str]:
    """Remember and recall cost per backend, overall and per 5-round bin."""
    out = ["", "## Memory-operation latency (ms; remember per deposit, recall per call)", "",
           _table(["Backend", "remember", "remember/round", "recall", "recall p50", "leaks"],
                  [[LABELS.get(b, b), f"{r['remember_ms_mean']:.2f}", f"{r['remember_ms_per_round']:.1f}",
                    f"{r['recall_ms_mean']:.2f}", f"{r['recall_ms_p50']:.2f}", r["leaks"]]
                   for b, r in runs.items()])]
    if "consensus" in runs:
        baseline = runs.get("collaborative") or next((r for b, r in runs.items() if b != "consensus"), None)
        if baseline is not None and baseline["remember_ms_mean"]:
            ratio = runs["consensus"]["remember_ms_mean"] / baseline["remember_ms_mean"]
            out += ["", f"Consensus remember cost per deposit: {ratio:.2f}x {LABELS.get(baseline['backend'])}'s "
                        f"(one row per witness) in this run."]
    bins = sorted({row["rounds"] for r in runs.values() for row in r["latency_bins"]},
                  key=lambda s: int(s.split("-")[0]))
    if bins:
        def cell(r: Document, rounds: str, key: str) -> str:
            row = next((x for x in r["latency_bins"] if x["rounds"] == rounds), None)
            return f"{row[key]:.2f}" if row else "-"

        out += ["", "Per 5-round bin (rounds since the start): remember ms per deposit / recall ms per call", "",
                _table(["Rounds", *[LABELS.get(b, b) for b in runs]],
                       [[rounds, *[f"{cell(r, rounds, 'remember_ms_per_deposit')} / {cell(r, rounds, 'recall_ms_mean')}"
                                   for r in runs.values()]] for rounds in bins])]
    return out


def _replay_tables(replayed: Document) -> list[str]:
    """The consensus run's stream replayed into every backend: entries and costs on one workload."""
    if not replayed:
        return []
    base = replayed.get("collaborative", {}).get("write_ms_mean") or 0.0
    out = ["", "## Same stream: the consensus run's deposits and queries replayed into every backend", "",
           "Every store receives the identical sediment, deposits and recall queries, interleaved round by "
           "round in one process, so entry counts and costs compare on one workload.", "",
           _table(["Backend", "Sediment", "Sim", "Total", "Shared", "Linked", "Leaks"],
                  [[LABELS.get(b, b), r["sediment"], r["sim"], r["total"], _pct(r["shared"], _frac(r["shared"], r["sim"])),
                    _pct(r["linked"], _frac(r["linked"], r["sim"])), r["leaks"]] for b, r in replayed.items()])]
    if "consensus" in replayed and len(replayed) > 1:
        closest, gap = _below_closest(replayed, "total")
        out += ["", f"Consensus total entries on the same stream: {gap * 100:.1f}% below the closest baseline "
                    f"({LABELS.get(closest, closest)})."]
    out += ["", _table(["Backend", "remember ms/deposit", "write ms/deposit (with affiliate)",
                        "recall ms", "recall p50", "vs Collaborative (write)"],
                       [[LABELS.get(b, b), f"{r['remember_ms_mean']:.2f}", f"{r['write_ms_mean']:.2f}",
                         f"{r['recall_ms_mean']:.2f}", f"{r['recall_ms_p50']:.2f}",
                         f"{r['write_ms_mean'] / base:.2f}x" if base else "-"] for b, r in replayed.items()])]
    return out


def _table4_section(runs: Document) -> list[str]:
    """Table 4 for each run that measured it (the consensus run)."""
    with_t4 = {b: r for b, r in runs.items() if r.get("table4")}
    if not with_t4:
        return []
    from storyworld.benches import table4

    out = ["", "## Table 4: what the mechanism costs (recall; affiliated siblings; keep-shorter merges)", ""]
    for b, r in with_t4.items():
        out += [f"{LABELS.get(b, b)}:", "", table4.render(r["table4"]), ""]
    out += ["amp.: rows returned per row asked (k); q in hits / q in exp.: rows naming a name or place the query names; "
            "q words: mean share of the query's words (4+ letters) a row repeats; "
            "1 / 4+ own.: median affiliated siblings of a record at 1 owner vs 4+; seen: merges that dropped "
            "text / all merges; chars: median characters dropped; name / principal: share of those merges "
            "whose kept text loses a named agent or place / the discarded statement's actor."]
    return out


def _horizon_table(runs: Document) -> list[str]:
    """Sharing measured after N rounds of the same run."""
    horizon_rows = [[LABELS.get(b, b), h, s["sim"], _pct(s["shared"], s["shared_fraction"]),
                     _pct(s["linked"], s["linked_fraction"])]
                    for b, r in runs.items() for h, s in sorted(r.get("horizons", {}).items(), key=lambda t: int(t[0]))]
    if not horizon_rows:
        return []
    return ["", "## Sharing by horizon (same run, measured after N rounds)", "",
            _table(["Backend", "Rounds", "Sim entries", "Shared", "Linked"], horizon_rows)]


def _ablation_table(ablations: list[Document]) -> list[str]:
    """Table 3: the consensus store one factor at a time (with quality columns when every cell has them)."""
    header = ["Merge", "Cache", "Store", "Sim", "Shared", "Linked"]
    rows = []
    has_quality = all("grounding" in c.get("quality", {}) for c in ablations)
    if has_quality:
        header += ["Grnd", "Traj", "Narr", "Goal"]
    for c in ablations:
        row = ["on" if c["merge"] else "off", c["cache"], c["total"], c["sim"],
               f"{c['shared_fraction'] * 100:.0f}%", f"{c['linked_fraction'] * 100:.0f}%"]
        if has_quality:
            row += [f"{c['quality'][k]['mean']:.2f}" for k in QUALITY_KEYS]
        rows.append(row)
    return ["", "## Table 3: one factor at a time (consensus)", "", _table(header, rows)]


def _quality_table(runs: Document, model: object) -> list[str]:
    """Model-judged continuation quality per backend, when it was scored."""
    with_quality = {b: r for b, r in runs.items() if "grounding" in r.get("quality", {})}
    if not with_quality:
        return []
    return ["", "## Continuation quality (MODEL-JUDGED: mean ± std over "
                f"{next(iter(with_quality.values()))['quality'].get('scorings', '?')} scorings by {model})", "",
            _table(["Backend", "Grounding", "Trajectory", "Narrative (1-5)", "Goal"],
                   [[LABELS.get(b, b), *[f"{r['quality'][k]['mean']:.2f} ± {r['quality'][k]['std']:.2f}"
                                         for k in QUALITY_KEYS]] for b, r in with_quality.items()]),
            "", "These scores are a small model's judgements, not human ratings; read them as noisy."]
