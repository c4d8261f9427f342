"""`storyworld bench judge`: the model as merge judge (precision/recall, judge on vs off) and its speed.

The consensus store merges a new statement into a guarded neighbour at cosine >= merge_high and
never below merge_low; between them (the ambiguous band) it may ask a judge. This bench replays
that rule on labelled pairs with the judge off and on, and times schema-constrained decisions.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:  # annotations only: the bench loads these when it runs
    from storyworld.jsondata import Document
    from memory.embedder import Embedder
    from memory.settings import MemorySettings
    from memory.store import Judge
    from storyworld.llm.base import LanguageModel

DATA = Path(__file__).resolve().parent / "data"  # shipped in the wheel ([tool.setuptools.package-data])
PAIRS_FILE = DATA / "judge_pairs.tsv"  # used only when memory.devset (tests/data/merge_pairs.*) is not installed
SCENE_FILE = DATA / "judge_scene.toml"  # where the timed decisions are asked
ACTIONS = ("say", "move", "observe", "wait")
_LABELS = {"same": True, "diff": False}


@dataclass(frozen=True)
class Pair:
    """One labelled pair: do these two statements say the same fact?"""

    a: str
    b: str
    same: bool


class Memory(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    """One line of the decider's memories: how it was learned, and what."""

    via: str
    text: str


class Scene(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    """The scene of the timed decisions: who decides (by index), the persona, memories, perception, places."""

    people: tuple[str, ...]
    places: tuple[str, ...]
    persona: str  # with {who}
    perception: str
    memory: tuple[Memory, ...]


@cache
def shipped_pairs() -> tuple[Pair, ...]:
    """The pairs shipped with the bench (data/judge_pairs.tsv: same|diff, a, b, tab-separated; # comments)."""
    pairs = []
    for number, line in enumerate(PAIRS_FILE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != 3 or cells[0] not in _LABELS:
            raise ValueError(f"{PAIRS_FILE}: line {number}: expected same|diff, a, b separated by tabs")
        pairs.append(Pair(cells[1], cells[2], _LABELS[cells[0]]))
    return tuple(pairs)


@cache
def decision_scene() -> Scene:
    """The scene of the timed decisions (data/judge_scene.toml), strict: an unknown field is an error."""
    try:
        return msgspec.toml.decode(SCENE_FILE.read_bytes(), type=Scene)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ValueError(f"{SCENE_FILE}: {exc}") from exc


@cache
def decision_schema() -> dict[str, object]:
    """The JSON schema of one decision: an action, a target among the scene's places (or none), a short line."""
    return {
        "type": "object",
        "properties": {
            "action": {"enum": list(ACTIONS)},
            "target": {"enum": [*decision_scene().places, "none"]},
            "text": {"type": "string", "maxLength": 60},
        },
        "required": ["action", "target", "text"],
        "additionalProperties": False,
    }


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench judge`."""
    parser = benches.add_parser(
        "judge",
        help="the model as merge judge on labelled pairs (judge on vs off), and decision speed",
        description=(
            "Replay the consensus store's merge rule on the labelled dev pairs with the model judge off "
            "and on in the ambiguous band (merge_low <= cosine < merge_high), and time schema-constrained "
            "JSON decisions (~300-token prompt, up to 40 tokens out). The judge stays off by default when "
            "it lowers precision, as it does with the bundled 135M model."
        ),
    )
    parser.add_argument("--model", metavar="PATH", help="a GGUF file (default: the bundled SmolLM2-135M)")
    parser.add_argument("--server", metavar="URL", help="an OpenAI-compatible server instead of a local model")
    parser.add_argument("--threads", type=int, help="decoding threads (default: cores, at most 4)")
    parser.add_argument("--decisions", type=int, default=5, help="timed JSON decisions (default 5; 0 skips)")
    parser.add_argument("--all-pairs", action="store_true",
                        help="ask the judge on every pair too (its raw accuracy), not only those in the band")
    parser.add_argument("--pairs", metavar="FILE", action="append",
                        help="score the store's merge rule (judge off, no model loaded) on a labelled pair file: "
                             ".tsv (label, a, b[, category]; label 1/0, same/diff) or .jsonl (a, b, same, category); "
                             "repeat for several files")
    parser.add_argument("--sweep", action="store_true",
                        help="with --pairs: precision/recall over a grid of merge thresholds (tune on dev files only)")
    parser.add_argument("--list", action="store_true", help="with --pairs: print each missed pair and false merge")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.set_defaults(func=bench_judge)


def load_pairs() -> tuple[list[Pair], str]:
    """The dev pairs from memory.devset when it is there, else the shipped set; with where they came from."""
    try:
        from memory import devset
    except ImportError:
        pairs = shipped_pairs()
        return list(pairs), f"{PAIRS_FILE.name} ({len(pairs)} pairs, shipped with the bench)"
    raw = devset.load_pairs()
    return [Pair(p.a, p.b, p.same) for p in raw], f"{devset.DEFAULT_PATH.name} ({len(raw)} pairs)"


class CountingJudge:
    """A judge that remembers each verdict (so no pair is asked twice) and times the calls."""

    def __init__(self, judge: Judge) -> None:
        """Wrap `judge`."""
        self.judge = judge
        self.verdicts: dict[tuple[str, str], bool | None] = {}
        self.seconds = 0.0

    def __call__(self, text_a: str, text_b: str) -> bool | None:
        """The (remembered) verdict on the pair."""
        key = (text_a, text_b)
        if key not in self.verdicts:
            started = time.perf_counter()
            self.verdicts[key] = self.judge(text_a, text_b)
            self.seconds += time.perf_counter() - started
        return self.verdicts[key]


def _scores(decisions: list[bool], labels: list[bool]) -> dict[str, object]:
    """Precision, recall and F1 of merge decisions against labels."""
    tp = sum(d and l for d, l in zip(decisions, labels))
    fp = sum(d and not l for d, l in zip(decisions, labels))
    fn = sum(l and not d for d, l in zip(decisions, labels))
    return _prf(tp, fp, fn)


def _prf(tp: int, fp: int, fn: int) -> dict[str, object]:
    """Precision, recall, F1 and counts from confusion counts."""
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3),
            "merged": tp + fp, "false_merges": fp, "missed": fn}


def evaluate(pairs: list[Pair], embedder: Embedder, judge: CountingJudge, settings: MemorySettings,
             all_pairs: bool = False) -> dict[str, object]:
    """Merge precision/recall with the judge off and on, and how the judge answered in the band.

    With memory.devset installed the figures come from its `evaluate` (a real ConsensusStore per
    pair); otherwise from replaying the store's rule (guard, then cosine against the thresholds).
    The store asks judge(new statement, held record), i.e. judge(b, a); so does the replay.
    """
    from memory import equivalence, guard

    texts = sorted({p.a for p in pairs} | {p.b for p in pairs})
    vectors = dict(zip(texts, embedder.encode(texts)))
    labels = [p.same for p in pairs]
    off: list[bool] = []
    on: list[bool] = []
    band_verdicts: list[tuple[bool | None, bool]] = []
    all_verdicts: list[tuple[bool | None, bool]] = []
    for pair in pairs:
        sim = float(vectors[pair.a] @ vectors[pair.b])
        allowed = guard.check(pair.b, pair.a).ok
        merged = allowed and (sim >= settings.merge_high
                              or equivalence.structural_rule(pair.b, pair.a, sim, settings, embedder.encode) is not None)
        in_band = allowed and not merged and settings.merge_low <= sim < settings.merge_high
        verdict = judge(pair.b, pair.a) if in_band or all_pairs else None
        if in_band:
            band_verdicts.append((verdict, pair.same))
        if in_band or all_pairs:
            all_verdicts.append((verdict, pair.same))
        off.append(merged)
        on.append(merged or (in_band and verdict is True))
    report: Document = {"method": "replay of the store's merge rule"}
    try:
        from memory import devset
    except ImportError:
        report.update(judge_off=_scores(off, labels), judge_on=_scores(on, labels))
    else:
        report["method"] = "memory.devset.evaluate (a fresh ConsensusStore per pair)"
        store_runs = {}
        for key, given in (("judge_off", None), ("judge_on", judge)):
            dev_pairs = [devset.DevPair(a=p.a, b=p.b, same=p.same, category="") for p in pairs]
            result = devset.evaluate(dev_pairs, settings=settings, embedder=embedder, judge=given)
            store_runs[key] = _prf(result["tp"], result["fp"], result["fn"])
        report.update(store_runs)
        report["replay_agrees"] = (store_runs["judge_off"] == _scores(off, labels)
                                   and store_runs["judge_on"] == _scores(on, labels))
    calls = len(judge.verdicts)
    report.update({
        "pairs": len(pairs), "same": sum(labels), "band_pairs": len(band_verdicts),
        "band_same": sum(label for _, label in band_verdicts),
        "band_judge": _verdict_counts(band_verdicts),
        "judge_calls": calls, "judge_seconds": round(judge.seconds, 2),
        "seconds_per_judge_call": round(judge.seconds / calls, 3) if calls else 0.0,
    })
    if all_pairs:
        report["all_pairs_judge"] = _verdict_counts(all_verdicts)
    report["judge_lowers_precision"] = report["judge_on"]["precision"] < report["judge_off"]["precision"]
    return report


def _verdict_counts(verdicts: list[tuple[bool | None, bool]]) -> dict[str, object]:
    """How the judge answered against the labels: yes/no/none, and its accuracy where it answered."""
    answered = [(v, l) for v, l in verdicts if v is not None]
    return {
        "asked": len(verdicts),
        "said_same": sum(v is True for v, _ in verdicts),
        "said_different": sum(v is False for v, _ in verdicts),
        "no_verdict": sum(v is None for v, _ in verdicts),
        "accuracy": round(sum(v == l for v, l in answered) / len(answered), 3) if answered else None,
        "false_same": sum(v is True and not l for v, l in answered),
    }


def decision_messages(index: int) -> list[dict[str, str]]:
    """A ~300-token agent decision prompt (persona, memories, perception), varied by `index`."""
    scene = decision_scene()
    persona = scene.persona.format(who=scene.people[index % len(scene.people)])
    memories = "\n".join(f"- [{memory.via}] {memory.text}" for memory in scene.memory)
    return [
        {"role": "system", "content": persona + "Choose one action. Reply only with JSON."},
        {"role": "user", "content": f"Your memories:\n{memories}\n\nNow: {scene.perception}\n"
                                    f"Round {index + 1}. What do you do? Give action, target and a short line of speech."},
    ]


def time_decisions(lm: LanguageModel, count: int) -> dict[str, object]:
    """Seconds and tokens per schema-constrained decision, with generation tokens per second."""
    rows = []
    cpu_started = time.process_time()  # all threads' CPU: on a busy machine wall time says little
    for index in range(count):
        obj, completion = lm.complete_json(decision_messages(index), decision_schema(), max_tokens=40,
                                           temperature=0.7, seed=index)
        rows.append((obj is not None, completion))
    cpu_seconds = time.process_time() - cpu_started
    seconds = sum(c.seconds for _, c in rows)
    out_tokens = sum(c.completion_tokens for _, c in rows)
    return {
        "decisions": count,
        "valid": sum(ok for ok, _ in rows),
        "prompt_tokens_per_decision": round(sum(c.prompt_tokens for _, c in rows) / count, 1),
        "completion_tokens_per_decision": round(out_tokens / count, 1),
        "seconds_per_decision": round(seconds / count, 3),
        "cpu_seconds_per_decision": round(cpu_seconds / count, 3),
        "seconds_min": round(min(c.seconds for _, c in rows), 3),
        "seconds_max": round(max(c.seconds for _, c in rows), 3),
        "tokens_per_s_overall": round((out_tokens) / seconds, 1) if seconds else 0.0,
    }


def bench_judge(args: argparse.Namespace) -> int:
    """Run the judge evaluation and the decision timing; print figures (or score pair files with --pairs)."""
    import os

    if args.pairs:
        from storyworld.benches.pairfiles import bench_pairs

        return bench_pairs(args.pairs, sweep=args.sweep, listing=args.list, as_json=args.json)

    from memory import MemorySettings
    from memory.embedder import shared_embedder
    from storyworld.llm.equivalence_judge import make_judge
    from storyworld.llm import load_model

    started = time.perf_counter()
    lm = load_model(model_path=args.model, server_url=args.server, threads=args.threads)
    load_s = time.perf_counter() - started
    embedder = shared_embedder()
    settings = MemorySettings()
    pairs, source = load_pairs()
    report: dict[str, object] = {
        "model": lm.name, "model_load_s": round(load_s, 2), "pairs_from": source,
        "merge_low": settings.merge_low, "merge_high": settings.merge_high,
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }
    report.update(evaluate(pairs, embedder, CountingJudge(make_judge(lm)), settings, all_pairs=args.all_pairs))
    if args.decisions > 0:
        report["decision"] = time_decisions(lm, args.decisions)
    report["model_stats"] = lm.stats()
    report["recommendation"] = (
        "keep the judge off (it lowers precision)" if report["judge_lowers_precision"]
        else "the judge does not lower precision on these pairs"
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    _print_report(report)
    return 0


def _print_report(report: Document) -> None:
    """The report as aligned lines."""
    print(f"model {report['model']} (loaded in {report['model_load_s']} s); pairs: {report['pairs_from']}; "
          f"load average {report['load_average']}")
    print(f"method: {report['method']}" + ("" if report.get("replay_agrees", True) else " (the replay disagrees!)"))
    print(f"pairs {report['pairs']} ({report['same']} same); band [{report['merge_low']}, {report['merge_high']}): "
          f"{report['band_pairs']} pairs ({report['band_same']} same)")
    for key in ("judge_off", "judge_on"):
        s = report[key]
        print(f"  {key:9s}  precision {s['precision']:.3f}  recall {s['recall']:.3f}  f1 {s['f1']:.3f}  "
              f"merged {s['merged']}  false merges {s['false_merges']}")
    band = report["band_judge"]
    print(f"  judge in band: {band['said_same']} same, {band['said_different']} different, "
          f"{band['no_verdict']} no verdict; accuracy {band['accuracy']}")
    if "all_pairs_judge" in report:
        every = report["all_pairs_judge"]
        print(f"  judge on all pairs: accuracy {every['accuracy']}, false same {every['false_same']}, "
              f"no verdict {every['no_verdict']}")
    print(f"  judge calls {report['judge_calls']}, {report['judge_seconds']} s "
          f"({report['seconds_per_judge_call']} s per call)")
    if "decision" in report:
        d = report["decision"]
        print(f"decisions: {d['valid']}/{d['decisions']} valid, {d['seconds_per_decision']} s each "
              f"({d['cpu_seconds_per_decision']} CPU s) "
              f"({d['seconds_min']}-{d['seconds_max']}), {d['prompt_tokens_per_decision']} prompt + "
              f"{d['completion_tokens_per_decision']} completion tokens, {d['tokens_per_s_overall']} tokens/s")
    print(f"=> {report['recommendation']}")
