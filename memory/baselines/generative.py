"""Generative Agents baseline: a private stream per agent, recency + importance + relevance, reflections."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from memory import guard
from memory.baselines.base import BaselineSettings, RowState, RowStore
from memory.records import Deposit
from memory.embedder import Embedder
from memory.store import Judge, StoreStats

Rater = Callable[[str], "int | None"]  # text -> importance 1..10, None when it could not say
Reflector = Callable[[list[str]], "str | None"]  # evidence texts -> one reflection, None to use the rule

# How much a row matters by kind (Park et al. ask a model; this is the cheap stand-in).
KIND_IMPORTANCE = {
    "observation": 2.0,
    "event": 3.0,
    "utterance": 3.0,
    "claim": 4.0,
    "inference": 4.0,
    "plan": 5.0,
    "insight": 6.0,
    "reflection": 7.0,
}
VIA_BONUS = {"told": 1.0, "read": 1.0, "authored": 1.0}


def rule_importance(text: str, kind: str, via: str) -> float:
    """Importance 1-10 from kind, how it was learned and length (longer statements carry more)."""
    score = KIND_IMPORTANCE.get(kind, 3.0) + VIA_BONUS.get(via, 0.0) + min(3.0, len(text) / 80.0)
    return float(min(10.0, max(1.0, round(score))))


def display_name(entity: str) -> str:
    """A guard entity (lowercased token) as a name."""
    return "-".join(part.capitalize() for part in entity.split("-"))


class GenerativeStore(RowStore):
    """Park et al.'s memory stream: score = recency (0.99 per round since access) + importance/10 + cosine.

    When the importance of rows written since an agent's last reflection passes a threshold,
    the agent reflects: one reflection row per most-mentioned entity, pointing at its evidence
    (based_on). Reflections are rows too, and feed later reflections.
    """

    backend = "generative"

    def __init__(self, embedder: Embedder | None = None, settings: BaselineSettings | None = None,
                 folder: Path | None = None, judge: Judge | None = None, rate: Rater | None = None,
                 reflect: Reflector | None = None) -> None:
        super().__init__(embedder=embedder, settings=settings, folder=folder, judge=judge)
        self.rate = rate
        self.reflect = reflect
        self._importance: dict[int, float] = {}
        self._pending: dict[str, list[int]] = {}

    def _load_extra(self, state: RowState) -> None:
        self._importance = {int(k): float(v) for k, v in state.importance.items()}
        self._pending = {k: list(v) for k, v in state.pending.items()}

    def _save_extra(self, state: RowState) -> None:
        state.importance = dict(self._importance)
        state.pending = {k: list(v) for k, v in self._pending.items()}

    def importance(self, record_id: int) -> float:
        """Importance 1-10 of a row."""
        return self._importance[record_id]

    def _rate(self, text: str, kind: str, via: str) -> float:
        if self.rate is not None:
            try:
                value = self.rate(text)
            except Exception:  # noqa: BLE001 — a failing rater must not lose the deposit; the rule stands in
                self._counters["rate_errors"] = self._counters.get("rate_errors", 0) + 1
                value = None
            if isinstance(value, (int, float)) and not isinstance(value, bool) and 1 <= value <= 10:
                self._counters["model_ratings"] = self._counters.get("model_ratings", 0) + 1
                return float(value)
        return rule_importance(text, kind, via)

    def _after_batch(self, deposits: list[Deposit], results: list[list[int]]) -> None:
        sediment_only: dict[str, bool] = {}
        for deposit, ids in zip(deposits, results):
            for rid in ids:
                record = self.table.records[rid]
                self._importance[rid] = self._rate(record.text, record.kind, deposit.via)
                self._pending.setdefault(deposit.owner, []).append(rid)
            sediment_only[deposit.owner] = sediment_only.get(deposit.owner, True) and deposit.via == "sediment"
        for owner in sorted(sediment_only):
            pending = self._pending.get(owner, [])
            if sum(self._importance[r] for r in pending) >= self.settings.reflection_threshold:
                self._reflect(owner, pending, sediment=sediment_only[owner])

    def _reflect(self, owner: str, pending: list[int], *, sediment: bool) -> list[int]:
        """Write reflections over the owner's rows since the last one; they become the next evidence."""
        s = self.settings
        mentions: dict[str, list[int]] = {}
        for rid in pending:
            for entity in guard.features(self.table.records[rid].text).entities:
                mentions.setdefault(entity, []).append(rid)
        weight = Counter({e: sum(self._importance[r] for r in ids) for e, ids in mentions.items() if len(ids) >= 2})
        made: list[int] = []
        when = max(self.table.records[r].round for r in pending)
        for entity, _ in sorted(weight.items(), key=lambda t: (-t[1], t[0]))[: s.reflections_per_pass]:
            evidence = sorted(mentions[entity], key=lambda r: (-self._importance[r], -r))[: s.reflection_evidence]
            texts = [self.table.records[r].text for r in evidence]
            text = None
            if self.reflect is not None:
                try:
                    text = self.reflect(texts)
                except Exception:  # noqa: BLE001 — a failing model falls back to the rule
                    self._counters["reflect_errors"] = self._counters.get("reflect_errors", 0) + 1
                    text = None
            if not text or not text.strip():
                name = display_name(entity)
                text = f"{name} is at the centre of what I have seen lately ({len(mentions[entity])} memories): {texts[0]}"
            rid = self._insert_derived(owner, " ".join(text.split()), "reflection", when, sorted(evidence), sediment=sediment)
            self._importance[rid] = self._rate(self.table.records[rid].text, "reflection", "inferred")
            made.append(rid)
        self._counters["reflections"] = self._counters.get("reflections", 0) + len(made)
        self._counters["reflection_passes"] = self._counters.get("reflection_passes", 0) + 1
        # Reflections are evidence for the next reflection (Park et al.'s trees of reflections).
        self._pending[owner] = list(made)
        return made

    def _score(self, owner: str, ids: np.ndarray, sims: np.ndarray, when: int) -> np.ndarray:
        decay = self.settings.recency_decay
        recency = np.fromiter(
            (decay ** max(0, when - max(self.table.records[int(r)].last_access_round, self.table.records[int(r)].round)) for r in ids),
            dtype=np.float64, count=len(ids),
        )
        importance = np.fromiter((self._importance.get(int(r), 3.0) / 10.0 for r in ids), dtype=np.float64, count=len(ids))
        return recency + importance + sims.astype(np.float64)

    def _extra_stats(self) -> StoreStats:
        return {
            "reflections": sum(1 for r in self.table.records.values() if r.kind == "reflection"),
            "reflection_passes": self._counters.get("reflection_passes", 0),
            "mean_importance": float(np.mean(list(self._importance.values()))) if self._importance else 0.0,
        }
