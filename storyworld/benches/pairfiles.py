"""`storyworld bench judge --pairs FILE`: the store's merge rule scored on labelled statement pairs.

Each pair is deposited into a fresh ConsensusStore by two owners with the real embedder and the
judge off (memory.devset.evaluate); merged means both got one record. `--sweep` replays the same
rule (guard, cosine, structural rules) over a grid of thresholds, for choosing them on dev files.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.devset import DevPair
    from memory.embedder import Embedder
    from memory.settings import MemorySettings
    from storyworld.jsondata import Document

# The grid --sweep walks: merge_high x frame_min x deed_cosine_min (frame_cosine_min stays as set).
SWEEP_HIGH = (0.86, 0.88, 0.9, 0.92)
SWEEP_FRAME = (0.75, 0.8, 0.85, 0.9)
SWEEP_DEED = (0.7, 0.75, 0.8, 0.85, 1.01)


def _prf(tp: int, fp: int, fn: int) -> dict[str, object]:
    """Precision, recall and F1 from confusion counts."""
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3),
            "tp": tp, "fp": fp, "fn": fn}


def bench_pairs(paths: list[str], sweep: bool = False, listing: bool = False, as_json: bool = False) -> int:
    """Print precision, recall and F1 of the store's merge rule on each pair file (and all together)."""
    from memory import MemorySettings
    from memory.devset import DevSetError, evaluate, load_pairs
    from memory.embedder import shared_embedder
    from storyworld.errors import UserError

    files: dict[str, list[DevPair]] = {}
    for path in paths:
        try:
            files[path] = load_pairs(path)
        except DevSetError as exc:
            raise UserError(str(exc)) from exc
        if not files[path]:
            raise UserError(f"{path}: no pairs")
    embedder = shared_embedder()
    settings = MemorySettings()
    report: Document = {
        "settings": {"merge_high": settings.merge_high, "frame_min": settings.frame_min,
                     "frame_cosine_min": settings.frame_cosine_min, "deed_cosine_min": settings.deed_cosine_min,
                     "counterpart_cosine_min": settings.counterpart_cosine_min},
        "files": {},
    }
    totals = [0, 0, 0]
    for path, pairs in files.items():
        result = evaluate(pairs, embedder=embedder, settings=settings)
        row = _prf(result["tp"], result["fp"], result["fn"])
        row.update(pairs=result["pairs"], same=sum(p.same for p in pairs))
        if listing:
            row["missed"], row["false_merges"] = result["missed"], result["false_merges"]
        report["files"][path] = row
        totals = [totals[0] + result["tp"], totals[1] + result["fp"], totals[2] + result["fn"]]
    if len(files) > 1:
        report["all"] = _prf(*totals)
    if sweep:
        report["sweep"] = _sweep([p for pairs in files.values() for p in pairs], embedder, settings)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)
    return 0


def _sweep(pairs: list[DevPair], embedder: Embedder, settings: MemorySettings) -> list[Document]:
    """Precision/recall of the merge rule at each grid point (a replay of ConsensusStore._cosine_match, judge off)."""
    import msgspec
    import numpy as np

    from memory import equivalence, guard
    from memory.records import normalise_text

    texts = sorted({p.a for p in pairs} | {p.b for p in pairs})
    vectors = dict(zip(texts, np.asarray(embedder.encode(texts), dtype=np.float32)))
    seen = [(p, normalise_text(p.a) == normalise_text(p.b), guard.check(p.b, p.a).ok, float(vectors[p.a] @ vectors[p.b]))
            for p in pairs]
    rows: list[Document] = []
    for high in SWEEP_HIGH:
        for frame_min in SWEEP_FRAME:
            for deed in SWEEP_DEED:
                st = msgspec.structs.replace(settings, merge_high=high, frame_min=frame_min, deed_cosine_min=deed)
                tp = fp = fn = 0
                for pair, same_text, ok, cos in seen:
                    merged = same_text or (ok and (cos >= high or equivalence.structural_rule(pair.b, pair.a, cos, st, embedder.encode) is not None))
                    tp += pair.same and merged
                    fp += (not pair.same) and merged
                    fn += pair.same and not merged
                rows.append({"merge_high": high, "frame_min": frame_min, "deed_cosine_min": deed, **_prf(tp, fp, fn)})
    rows.sort(key=lambda r: (-r["precision"], -r["f1"]))
    return rows


def _print(report: Document) -> None:
    """The report as aligned lines."""
    s = report["settings"]
    print(f"merge rule: guard, then cosine >= merge_high {s['merge_high']}, or frames >= frame_min {s['frame_min']} "
          f"(cosine >= {s['frame_cosine_min']}), or one deed (cosine >= deed_cosine_min {s['deed_cosine_min']}), "
          f"or one deed with every word's counterpart (cosine >= {s['counterpart_cosine_min']}); judge off")
    for path, row in report["files"].items():
        print(f"  {path}: pairs {row['pairs']} ({row['same']} same)  precision {row['precision']:.3f}  "
              f"recall {row['recall']:.3f}  f1 {row['f1']:.3f}  (tp {row['tp']} fp {row['fp']} fn {row['fn']})")
        for item in row.get("missed", []):
            print(f"      missed: {item['a']} | {item['b']}")
        for item in row.get("false_merges", []):
            print(f"      false merge: {item['a']} | {item['b']}")
    if "all" in report:
        a = report["all"]
        print(f"  all: precision {a['precision']:.3f}  recall {a['recall']:.3f}  f1 {a['f1']:.3f}  "
              f"(tp {a['tp']} fp {a['fp']} fn {a['fn']})")
    if "sweep" in report:
        print("sweep (best precision, then f1; tune on dev files only):")
        for row in report["sweep"][:12]:
            print(f"  merge_high {row['merge_high']:.2f}  frame_min {row['frame_min']:.2f}  deed_cosine_min "
                  f"{row['deed_cosine_min']:.2f}  precision {row['precision']:.3f}  recall {row['recall']:.3f}  f1 {row['f1']:.3f}")
