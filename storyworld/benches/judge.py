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
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the bench loads these when it runs
    from storyworld.jsondata import Document
    from memory.embedder import Embedder
    from memory.settings import MemorySettings
    from memory.store import Judge
    from storyworld.llm.base import LanguageModel

# Used only when memory.devset (tests/data/merge_pairs.*) is not installed: same-fact paraphrases
# and near misses (role swaps, other people, negations, other places) in the style of the worlds.
INLINE_PAIRS: tuple[tuple[str, str, bool], ...] = (
    ("Horatio saw the ghost on the platform.", "On the platform, Horatio saw the ghost.", True),
    ("The ghost beckoned Hamlet to follow it.", "The ghost signalled for Hamlet to come with it.", True),
    ("Claudius poured poison into the king's ear.", "The king was poisoned through the ear by Claudius.", True),
    ("Ophelia gave back Hamlet's letters.", "Ophelia returned the letters Hamlet had sent her.", True),
    ("Polonius hid behind the arras.", "Polonius concealed himself behind the tapestry.", True),
    ("Hamlet killed Polonius in the queen's closet.", "In Gertrude's room Hamlet slew Polonius.", True),
    ("Laertes returned from France.", "Laertes came back from Paris to Denmark.", True),
    ("The players performed the play before the court.", "The actors staged their play for the king and court.", True),
    ("Marcellus swore to keep silent about the ghost.", "Marcellus promised not to tell anyone of the ghost.", True),
    ("Gertrude drank from the poisoned cup.", "The queen drank the poisoned wine.", True),
    ("Hamlet wrote a letter to Horatio.", "Horatio received a letter written by Hamlet.", True),
    ("Rosencrantz and Guildenstern arrived at Elsinore.", "Rosencrantz and Guildenstern came to the castle of Elsinore.", True),
    ("Fortinbras marched his army through Denmark.", "Fortinbras led his soldiers across Danish land.", True),
    ("The gravedigger sang while digging.", "While he dug the grave, the gravedigger was singing.", True),
    ("Liu Bei visited Zhuge Liang's cottage three times.", "Three times Liu Bei went to Zhuge Liang's thatched hut.", True),
    ("Hamlet killed Polonius.", "Polonius killed Hamlet.", False),
    ("Horatio saw the ghost on the platform.", "Marcellus saw the ghost on the platform.", False),
    ("The ghost appeared at midnight.", "The ghost did not appear at midnight.", False),
    ("Ophelia drowned in the brook.", "Ophelia bathed in the brook.", False),
    ("Claudius prayed in the chapel.", "Claudius drank in the great hall.", False),
    ("Laertes returned from France.", "Laertes left for France.", False),
    ("Gertrude drank from the poisoned cup.", "Claudius drank from the poisoned cup.", False),
    ("Hamlet wrote a letter to Horatio.", "Hamlet wrote a letter to Ophelia.", False),
    ("The players performed the play before the court.", "The players rehearsed the play in the courtyard.", False),
    ("Polonius hid behind the arras.", "Polonius gave advice to Laertes.", False),
    ("Hamlet jumped into Ophelia's grave.", "Laertes jumped into Ophelia's grave.", False),
    ("Fortinbras marched his army through Denmark.", "Fortinbras marched his army against Poland.", False),
    ("The king watched the play.", "The king stopped the play and left.", False),
    ("Cao Cao burned the boats at Red Cliffs.", "Zhou Yu burned Cao Cao's boats at Red Cliffs.", False),
    ("Guan Yu guarded the two sisters-in-law.", "Zhang Fei guarded the two sisters-in-law.", False),
)

DECISION_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"enum": ["say", "move", "observe", "wait"]},
        "target": {"enum": ["hall", "platform", "battlements", "chapel", "none"]},
        "text": {"type": "string", "maxLength": 60},
    },
    "required": ["action", "target", "text"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Pair:
    """One labelled pair: do these two statements say the same fact?"""

    a: str
    b: str
    same: bool


def register(benches: argparse._SubParsersAction) -> None:
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
    """The dev pairs from memory.devset when it is there, else the inline set; with where they came from."""
    try:
        from memory import devset
    except ImportError:
        return [Pair(a, b, same) for a, b, same in INLINE_PAIRS], "inline (storyworld/benches/judge.py)"
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
                              or equivalence.structural_rule(pair.b, pair.a, sim, settings) is not None)
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
    who = ["Horatio", "Marcellus", "Bernardo", "Hamlet", "Francisco"][index % 5]
    persona = (
        f"You are {who}, in Elsinore castle in Denmark. You are loyal to the prince, cautious, and you "
        "speak plainly. Your goal: find out what the ghost wants and keep the prince safe. "
    )
    memories = "\n".join(
        f"- [{via}] {text}"
        for via, text in [
            ("witnessed", "The ghost appeared on the platform at midnight, armed from head to foot."),
            ("told by Marcellus", "The ghost has come twice before at this same hour."),
            ("witnessed", "The ghost would not speak to Horatio and faded at the cock's crow."),
            ("read the letter", "Young Fortinbras is raising soldiers in Norway."),
            ("told by Hamlet", "The king my father died while sleeping in his orchard."),
            ("witnessed", "Claudius drinks late into the night and the cannon sound for each toast."),
            ("inferred", "The ghost may be a warning of danger to the state."),
        ]
    )
    perception = (
        "You are on the platform. It is bitter cold and past midnight. Present: Hamlet, Marcellus. "
        "Exits: hall, battlements, chapel. Hamlet says: 'Look, my lord, it comes!' The ghost beckons Hamlet."
    )
    return [
        {"role": "system", "content": persona + "Choose one action. Reply only with JSON."},
        {"role": "user", "content": f"Your memories:\n{memories}\n\nNow: {perception}\n"
                                    f"Round {index + 1}. What do you do? Give action, target and a short line of speech."},
    ]


def time_decisions(lm: LanguageModel, count: int) -> dict[str, object]:
    """Seconds and tokens per schema-constrained decision, with generation tokens per second."""
    rows = []
    cpu_started = time.process_time()  # all threads' CPU: on a busy machine wall time says little
    for index in range(count):
        obj, completion = lm.complete_json(decision_messages(index), DECISION_SCHEMA, max_tokens=40,
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
