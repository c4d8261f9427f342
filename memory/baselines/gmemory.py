"""G-Memory baseline: per-agent interaction rows plus insight nodes distilled from them."""

from __future__ import annotations

import numpy as np

from memory import guard
from pathlib import Path

from memory.baselines.base import BaselineSettings, RowState, RowStore
from memory.baselines.generative import display_name
from memory.embedder import Embedder
from memory.records import Deposit
from memory.store import Judge, StoreStats


class GMemoryStore(RowStore):
    """Two tiers per agent: interaction rows, and insights over rows that share a named entity.

    Once `insight_min_rows` of an agent's undistilled rows mention the same character (place
    words excepted), an insight row is written that points back to them (based_on). Recall
    ranks both tiers by cosine and returns up to `insight_hits` insights among the k hits.
    """

    backend = "gmemory"

    def __init__(self, embedder: Embedder | None = None, settings: BaselineSettings | None = None,
                 folder: Path | None = None, judge: Judge | None = None) -> None:
        super().__init__(embedder=embedder, settings=settings, folder=folder, judge=judge)
        self._entity_rows: dict[str, dict[str, list[int]]] = {}

    def _load_extra(self, state: RowState) -> None:
        self._entity_rows = {o: {e: list(ids) for e, ids in m.items()} for o, m in state.entity_rows.items()}

    def _save_extra(self, state: RowState) -> None:
        state.entity_rows = {o: {e: list(ids) for e, ids in m.items()} for o, m in self._entity_rows.items()}

    @staticmethod
    def _entities(text: str, place: str | None) -> list[str]:
        """Named entities of a row other than the words of its place."""
        place_words = set((place or "").lower().replace("_", "-").split("-"))
        return sorted(e for e in guard.features(text).entities if e not in place_words)

    def _after_batch(self, deposits: list[Deposit], results: list[list[int]]) -> None:
        s = self.settings
        due: list[tuple[str, str, list[int], bool]] = []
        for deposit, ids in zip(deposits, results):
            by_entity = self._entity_rows.setdefault(deposit.owner, {})
            for rid in ids:
                record = self.table.records[rid]
                for entity in self._entities(record.text, record.place):
                    rows = by_entity.setdefault(entity, [])
                    rows.append(rid)
                    if len(rows) >= s.insight_min_rows:
                        sediment = all(self.table.records[r].sediment for r in rows)
                        due.append((deposit.owner, entity, list(rows), sediment))
                        rows.clear()
        if not due:
            return
        texts = []
        for owner, entity, rows, _ in due:
            evidence = rows[-s.insight_evidence:]
            latest = self.table.records[evidence[-1]]
            name = display_name(entity)
            texts.append(f"{name} figures in {len(rows)} of my recent interactions; the latest: {latest.text}")
        vectors = self.embed(texts)
        for (owner, entity, rows, sediment), text, vector in zip(due, texts, vectors):
            when = max(self.table.records[r].round for r in rows)
            self._insert_derived(owner, text, "insight", when, sorted(rows[-s.insight_evidence:]),
                                 sediment=sediment, vector=vector)
        self._counters["insights"] = self._counters.get("insights", 0) + len(due)

    def _select(self, owner: str, ids: np.ndarray, sims: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top rows and top insights by cosine: at most `insight_hits` (and half of k) insights."""
        order = sorted(range(len(ids)), key=lambda i: (-float(scores[i]), int(ids[i])))
        insights = [i for i in order if self.table.records[int(ids[i])].kind == "insight"]
        rows = [i for i in order if self.table.records[int(ids[i])].kind != "insight"]
        take_insights = min(len(insights), self.settings.insight_hits, k // 2)
        take_rows = min(len(rows), k - take_insights)
        take_insights = min(len(insights), k - take_rows)  # fill with insights when rows run short
        chosen = rows[:take_rows] + insights[:take_insights]
        chosen.sort(key=lambda i: (-float(scores[i]), int(ids[i])))
        return [(int(ids[i]), float(scores[i])) for i in chosen]

    def _extra_stats(self) -> StoreStats:
        return {"insights": sum(1 for r in self.table.records.values() if r.kind == "insight")}
