"""`storyworld bench knows SAVE`: interview questions made from the store, answered through the answer path,
scored against the owners (who holds what, and how) — Generative Agents' interviews, made checkable."""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memory.store import MemoryStore
from storyworld.errors import UserError
from storyworld.locations import existing_save

DEFINITIONS = """Questions are made from the save's store at its last round. Each question pairs an agent with one
record: a positive when the agent holds it (spread over how it came to: witnessed, told, read, sediment,
inferred), a negative when others hold it and the agent holds neither it nor any record the equivalence rule
calls the same fact (the negatives closest in meaning to something the agent holds are asked first). Every
question goes through `interview(..., candid=True)`, the answer path of play, asked by an interviewer.
An answer CLAIMS a record when it carries that record or one the equivalence rule calls the same fact (the
store's own merge rule: the guard passes, and cosine >= merge_high, or cosine >= frame_cosine_min with frame
similarity >= frame_min; claims and lines said keep their speaker).

questions:
  direct   "Do you know that <the record's statement>?"       every pair
  about    "What do you know of <the record's main subject>?"  negatives (the answer picks freely among what it holds)
  who      "Who told you that?", the follow-up to the direct    positives
           answer (or, when it carried nothing, to the question)
figures:
  questions             pairs asked (positives + negatives)
  accuracy              (positives whose direct answer claims the record + negatives whose direct answer does not)
                        over pairs
  knows_when_holds      positives whose direct answer claims the record, over positives
  not_when_not          negatives whose direct answer does not claim the record, over negatives
  false_knowledge       negatives whose direct or about answer claims the record, over negatives
  false_knowledge_all   answers (every question asked) that assert what the agent does not hold: carry a record
                        it does not hold, or claim the negative asked about; over all answers
  provenance_accuracy   positives whose who answer claims the record and whose provenance line names the via
                        and the source of the holding it carries, over positives
  spoken_provenance     the same, judged on the words said: a told or read holding names its teller or what was
                        read; a first-hand one is not put in someone else's mouth (no "told me", "read in");
                        a statement naming the speaker is its own account and passes
  negative_closeness    mean cosine between a negative and the closest record its agent holds
  by_via                per via of the positives: positives, knows_when_holds, provenance_accuracy
  acts                  the speech acts of the direct answers (answer, unknown, refuse)
  skipped_holdings      holdings no question is made from, by reason (lines said in play, private notes,
                        retracted or disputed, kinds never said aloud): the answer path never carries them
  examples              a few of each error: missed (a positive not known), false_knowledge, wrong_provenance"""

VIAS = ("witnessed", "told", "read", "sediment", "inferred", "authored")
FIRST_HAND = ("told me", "read in")


def register(benches: argparse._SubParsersAction) -> None:
    """Add `bench knows`."""
    parser = benches.add_parser(
        "knows", help="interview figures of a save: accuracy, false knowledge, provenance",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=DEFINITIONS,
        description="Ask the characters of SAVE questions made from its store and score their answers "
                    "against who holds what (the save is only read).")
    parser.add_argument("save", metavar="SAVE", help="a save folder")
    parser.add_argument("--questions", type=int, default=200, metavar="N",
                        help="pairs to ask, half positives and half negatives (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--examples", type=int, default=3, metavar="K", help="examples of each error (default 3)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.set_defaults(func=bench_knows)


# ------------------------------------------------------------------------------- the same fact


class Facts:
    """Every record's vector, and the store's rule for when two records state the same fact."""

    def __init__(self, store: MemoryStore) -> None:
        self.records = {r.id: r for r in store.records()}
        self.ids = sorted(self.records)
        self.row = {rid: i for i, rid in enumerate(self.ids)}
        texts = [self.records[rid].text for rid in self.ids]
        vectors = [store.embed(texts[i:i + 256]) for i in range(0, len(texts), 256)]
        self.vectors = np.vstack(vectors).astype(np.float32) if vectors else np.zeros((0, 1), np.float32)
        rule = store.same_fact()
        self.merge_high = rule.merge_high
        self.frame_cosine_min = rule.frame_cosine_min
        self.frame_min = rule.frame_min

    def cosine(self, a: int, b: int) -> float:
        """Cosine between two records' texts."""
        return float(self.vectors[self.row[a]] @ self.vectors[self.row[b]])

    def same(self, a: int, b: int) -> bool:
        """Whether records a and b state one fact (mirrors ConsensusStore._cosine_match, record against record)."""
        from memory import frames, guard
        from memory.equivalence import SPOKEN, record_speaker
        from memory.records import normalise_text

        if a == b:
            return True
        ra, rb = self.records[a], self.records[b]
        if (ra.kind in SPOKEN or rb.kind in SPOKEN) and (ra.kind != rb.kind or record_speaker(ra) != record_speaker(rb)):
            return False
        if normalise_text(ra.text) == normalise_text(rb.text):
            return True
        sim = self.cosine(a, b)
        if sim < self.frame_cosine_min or not guard.check(ra.text, rb.text, ra.place, rb.place).ok:
            return False
        return sim >= self.merge_high or frames.similarity(ra.text, rb.text) >= self.frame_min


# ------------------------------------------------------------------------------- questions


@dataclass(frozen=True)
class Pair:
    """One agent and one record: whether it holds it, and how."""

    agent: str
    record_id: int
    positive: bool
    via: str | None = None
    source: str | None = None
    closeness: float = 0.0  # a negative's cosine to the closest record the agent holds


def statement(text: str, world: Any = None) -> str:
    """A record's statement as it follows "that": its first sentences, no closing stop (a name keeps its capital)."""
    from storyworld.minds import lines, render

    return render.clause(lines.first_sentences(text, 170) or text, world)


def subject_of(world: Any, text: str, agent: str) -> str:
    """What a record is mainly about, as a question names it: the acting person or thing ("the Ghost"), never
    the one asked."""
    from memory import frames, guard
    from storyworld.minds import render

    core = frames.report_core(text)
    spans = render.find_names(world, core)
    features = guard.features(core)
    wanted = features.subject | features.participants
    for match in _WORDS.finditer(core):
        word = match.group(0)
        if word.lower() not in wanted:
            continue
        span = next((s for s in spans if s.start <= match.start() < s.end), None)
        if span is not None:
            if span.agent != agent:
                return render.inline(core[span.start:span.end])
            continue
        return word if word[:1].isupper() and match.start() > 0 else f"the {word.lower()}"
    others = [s for s in spans if s.agent != agent]
    if others:
        return render.inline(core[others[0].start:others[0].end])
    return " ".join(core.split()[:4]).rstrip(".,;")


_WORDS = re.compile(r"[A-Za-z][A-Za-z'\-]*")


def holdings(store: Any) -> tuple[dict[str, list[Any]], Counter]:
    """Per agent, the records it holds that the answer path may carry; and the holdings left out, by reason."""
    from storyworld.minds.interview import answerable

    askable: dict[str, list[Any]] = defaultdict(list)
    skipped: Counter = Counter()
    for record in store.records():
        for owner, holding in record.owners.items():
            if answerable(record, owner):
                askable[owner].append(record)
            else:
                skipped[_reason(record, holding)] += 1
    return askable, skipped


def _reason(record: Any, holding: Any) -> str:
    if record.namespace != "shared":
        return "private note"
    if holding.status not in ("believed", "doubted"):
        return holding.status
    if "contaminated" in holding.flags:
        return "contaminated"
    if record.kind == "utterance":
        return "line said in play"
    return f"kind {record.kind}"


def sample(world: Any, facts: Facts, askable: dict[str, list[Any]], count: int, seed: int) -> list[Pair]:
    """Positives spread over vias, then negatives close in meaning to what each agent holds."""
    rng = random.Random(seed)
    agents = sorted(a for a in askable if a in world.agents)
    by_via: dict[str, list[Pair]] = defaultdict(list)
    for agent in agents:
        for record in askable[agent]:
            holding = record.owners[agent]
            by_via[holding.via].append(Pair(agent, record.id, True, holding.via, holding.source))
    wanted = (count + 1) // 2
    positives: list[Pair] = []
    groups = sorted(by_via.items(), key=lambda item: (len(item[1]), item[0]))
    for index, (_, group) in enumerate(groups):
        share = min(len(group), (wanted - len(positives)) // (len(groups) - index))
        positives += rng.sample(sorted(group, key=lambda p: (p.agent, p.record_id)), share)
    return positives + negatives(facts, askable, agents, count - len(positives), rng)


def negatives(facts: Facts, askable: dict[str, list[Any]], agents: list[str], count: int,
              rng: random.Random) -> list[Pair]:
    """Records others may say that the agent holds no form of, closest to what it holds first, agents in turn."""
    sayable = {r.id for held in askable.values() for r in held}
    others = [rid for rid in facts.ids if rid in sayable]
    queues: dict[str, list[tuple[float, int]]] = {}
    for agent in agents:
        held = [facts.row[r.id] for r in askable[agent]]
        candidates = [rid for rid in others if agent not in facts.records[rid].owners]
        if not held or not candidates:
            continue
        sims = facts.vectors[[facts.row[c] for c in candidates]] @ facts.vectors[held].T
        queues[agent] = sorted(((float(s), c) for s, c in zip(sims.max(axis=1), candidates)), key=lambda x: (-x[0], x[1]))
    owned = {agent: [r.id for r in facts.records.values() if agent in r.owners] for agent in queues}
    order = list(queues)
    rng.shuffle(order)
    out: list[Pair] = []
    while len(out) < count and any(queues.values()):
        for agent in order:
            queue = queues[agent]
            while queue and len(out) < count:
                closeness, rid = queue.pop(rng.randrange(min(3, len(queue))))
                near = [h for h in owned[agent] if facts.cosine(h, rid) >= facts.frame_cosine_min]
                if not any(facts.same(h, rid) for h in near):
                    out.append(Pair(agent, rid, False, closeness=round(closeness, 4)))
                    break
    return out


# ------------------------------------------------------------------------------- scoring


@dataclass
class Tally:
    """Counts as the answers come in."""

    positives: int = 0
    negatives: int = 0
    knows: int = 0
    rejects: int = 0
    false_claims: int = 0
    answers: int = 0
    unheld_answers: int = 0
    provenance: int = 0
    spoken: int = 0
    acts: Counter = field(default_factory=Counter)
    via: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))


def claims(facts: Facts, answer: Any, record_id: int) -> Any:
    """The carried holding that states the record's fact, if any."""
    return next((k for k in answer.records if k.record_id in facts.records and facts.same(k.record_id, record_id)),
                None)


def names_how(world: Any, known: Any, line: str) -> bool:
    """Whether a provenance line names a holding's via and, when it has one, its source."""
    word = {"told": "told", "read": "read", "sediment": "remembered", "witnessed": "witnessed",
            "inferred": "inferred"}.get(known.via, known.via)
    return word in line and (not known.source or world.name_of(known.source) in line)


def says_how(world: Any, agent: str, known: Any, text: str) -> bool:
    """Whether the words of an answer say where the holding came from: a teller or a text named, or first-hand.

    A statement that names the speaker is said as its own account ("Hamlet tells me…", "I told the king…"),
    which says where it came from by itself.
    """
    from storyworld.minds import render

    if render.speaks_of(world, known.text, agent):
        return True
    if known.via in ("told", "read", "sediment") and known.source:
        name = world.name_of(known.source)
        return name in text or render.inline(name) in text
    return not any(phrase in text for phrase in FIRST_HAND)


def example(world: Any, facts: Facts, pair: Pair, answer: Any) -> dict[str, Any]:
    """One error, readably: who was asked what about which record, and what it answered on which records."""
    record = facts.records[pair.record_id]
    holding = f"{pair.via} from {world.name_of(pair.source)}" if pair.source else pair.via
    return {"agent": pair.agent, "question": answer.question,
            "record": f"#{record.id} [{record.kind}] {record.text}",
            "holds": holding if pair.positive else f"no (held by {', '.join(sorted(record.owners))})",
            "act": answer.act, "answer": answer.text,
            "rests_on": [f"#{k.record_id} {line}: {k.text}" for k, line in zip(answer.records, answer.provenance)]}


def score(world: Any, store: Any, *, questions: int = 200, seed: int = 0, examples: int = 3,
          round_: int = 0, pairs: list[Pair] | None = None) -> dict[str, Any]:
    """Sample the pairs (unless given), interview, and the figures (see DEFINITIONS)."""
    from storyworld.minds.interview import interview

    facts = Facts(store)
    askable, skipped = holdings(store)
    if pairs is None:
        pairs = sample(world, facts, askable, questions, seed)
    tally = Tally()

    def ask(pair: Pair, question: str, before: str = "") -> Any:
        answer = interview(world, store, pair.agent, question, round_=round_, candid=True, before=before)
        tally.answers += 1
        unheld = any(pair.agent not in facts.records[k.record_id].owners for k in answer.records
                     if k.record_id in facts.records)
        if unheld or (not pair.positive and claims(facts, answer, pair.record_id) is not None):
            tally.unheld_answers += 1
        return answer

    def note(kind: str, pair: Pair, answer: Any) -> None:
        if len(tally.examples[kind]) < examples:
            tally.examples[kind].append(example(world, facts, pair, answer))

    for pair in pairs:
        text = statement(facts.records[pair.record_id].text, world)
        direct = ask(pair, f"Do you know that {text}?")
        tally.acts[direct.act] += 1
        claimed = claims(facts, direct, pair.record_id)
        if pair.positive:
            tally.positives += 1
            row = tally.via[pair.via or "?"]
            row["positives"] += 1
            if claimed is not None:
                tally.knows += 1
                row["knows"] += 1
            else:
                note("missed", pair, direct)
            who = ask(pair, "Who told you that?", before=direct.text if direct.records else direct.question)
            carried = claims(facts, who, pair.record_id)
            line = who.provenance[who.records.index(carried)] if carried is not None else ""
            if carried is not None and names_how(world, carried, line):
                tally.provenance += 1
                row["provenance"] += 1
            else:
                note("wrong_provenance", pair, who)
            if carried is not None and says_how(world, pair.agent, carried, who.text):
                tally.spoken += 1
                row["spoken"] += 1
        else:
            tally.negatives += 1
            about = ask(pair, f"What do you know of {subject_of(world, facts.records[pair.record_id].text, pair.agent)}?")
            if claimed is None:
                tally.rejects += 1
            if claimed is not None or claims(facts, about, pair.record_id) is not None:
                tally.false_claims += 1
                note("false_knowledge", pair, direct if claimed is not None else about)
    return figures(tally, pairs, skipped)


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def figures(tally: Tally, pairs: list[Pair], skipped: Counter) -> dict[str, Any]:
    """The report from the counts."""
    negatives = [p.closeness for p in pairs if not p.positive]
    return {
        "questions": tally.positives + tally.negatives, "positives": tally.positives, "negatives": tally.negatives,
        "answers": tally.answers,
        "accuracy": _rate(tally.knows + tally.rejects, tally.positives + tally.negatives),
        "knows_when_holds": _rate(tally.knows, tally.positives),
        "not_when_not": _rate(tally.rejects, tally.negatives),
        "false_knowledge": _rate(tally.false_claims, tally.negatives),
        "false_knowledge_all": _rate(tally.unheld_answers, tally.answers),
        "provenance_accuracy": _rate(tally.provenance, tally.positives),
        "spoken_provenance": _rate(tally.spoken, tally.positives),
        "negative_closeness": round(float(np.mean(negatives)), 4) if negatives else None,
        "by_via": {via: {"positives": row["positives"], "knows_when_holds": _rate(row["knows"], row["positives"]),
                         "provenance_accuracy": _rate(row["provenance"], row["positives"]),
                         "spoken_provenance": _rate(row["spoken"], row["positives"])}
                   for via, row in sorted(tally.via.items(), key=lambda item: VIAS.index(item[0])
                                          if item[0] in VIAS else len(VIAS))},
        "acts": dict(tally.acts.most_common()),
        "skipped_holdings": dict(skipped.most_common()),
        "examples": {kind: tally.examples.get(kind, []) for kind in ("missed", "false_knowledge", "wrong_provenance")},
    }


def bench_knows(args: argparse.Namespace) -> int:
    """Load the save, ask, print the figures."""
    import json

    from storyworld.game import session

    if args.questions < 2:
        raise UserError("--questions must be 2 or more")
    if args.examples < 0:
        raise UserError("--examples must be 0 or more")
    folder = existing_save(args.save)
    sim = session.load_simulation(folder, mind=None)
    result = {"save": str(folder), "world": sim.world.id, "round": sim.state.round, "seed": args.seed}
    result |= score(sim.world, sim.store, questions=args.questions, seed=args.seed, examples=args.examples,
                    round_=sim.state.round)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    for key, value in result.items():
        if key in ("by_via", "examples"):
            continue
        print(f"{key}: {value}")
    print("by_via:")
    for via, row in result["by_via"].items():
        print(f"  {via}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    for kind, rows in result["examples"].items():
        print(f"examples of {kind}: {len(rows) or 'none'}")
        for row in rows:
            print(f"  {row['agent']}: {row['question']}")
            print(f"    record {row['record']} (holds: {row['holds']})")
            print(f"    [{row['act']}] {row['answer']}")
            for line in row["rests_on"]:
                print(f"      {line}")
    return 0
