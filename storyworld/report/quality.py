"""Model-judged continuation quality: grounding, trajectory against the canon, narrative, goal pursuit.

The configured language model is the judge; every answer is JSON-schema constrained. Each metric
is scored `scorings` times with different seeds and reported as mean and std. These are a
model's judgements (with the bundled 135M model, noisy ones), never human ratings: every
result carries `"judged_by"` and `"label": "model-judged"`.

- grounding (0-1): share of sampled screenplay lines the judge finds consistent with the world and its cast;
- trajectory (0-1): how closely the run follows the canon after its start (judge's 0-10 / 10);
- narrative (1-5): the screenplay as drama;
- goal (0-1): share of sampled agents whose own actions pursue their goal (from the event log).
"""

from __future__ import annotations

import logging
import random
import statistics
from typing import TYPE_CHECKING

from storyworld.kernel.state import SimEvent
from storyworld.llm.base import LanguageModel, Reply, Schema
from storyworld.world import World

if TYPE_CHECKING:
    from storyworld.report.runs import Run

log = logging.getLogger("storyworld.report.quality")

METRICS = ("grounding", "trajectory", "narrative", "goal")
EXCERPT_CHARS = 1800  # with the canon excerpt and instructions, under 1,024 tokens
LINES_PER_SCORING = 6
AGENTS_PER_SCORING = 6

BOOL_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "boolean"}},
    "required": ["answer"],
    "additionalProperties": False,
}
TEN_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer", "enum": list(range(11))}},
    "required": ["score"],
    "additionalProperties": False,
}
FIVE_SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
    "required": ["score"],
    "additionalProperties": False,
}
JUDGE_SYSTEM = "You are a careful judge of stories. Answer only with the JSON asked for."


def _clip(text: str, limit: int = EXCERPT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3].rsplit(" ", 1)[0] + "..."


def _cast_lines(world: World, limit: int = 700) -> str:
    lines = [f"- {a.name}: {a.description}" for a in world.active_agents()]
    return _clip("\n".join(lines), limit)


def _ask(lm: LanguageModel, prompt: str, schema: Schema, *, seed: int, max_tokens: int = 16) -> Reply | None:
    """One judged answer, or None when the model gave nothing usable (counted as missing)."""
    messages = [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": prompt}]
    try:
        obj, _ = lm.complete_json(messages, schema, max_tokens=max_tokens, temperature=0.7, seed=seed)
    except Exception as exc:  # noqa: BLE001 — a judge failure is a missing score, reported, never a crash
        log.warning("quality judge failed: %s", exc)
        return None
    return obj


def _score(reply: Reply | None) -> float | None:
    """A judged reply's "score" (its schema makes it an integer), or None when there is no reply."""
    value = None if reply is None else reply.get("score")
    return float(value) if isinstance(value, (int, float)) else None


def canon_after(world: World, start_id: str, limit: int = 20) -> list[str]:
    """Texts of the canon events from the start onwards (what the story did next)."""
    start = world.start(start_id)
    return [e.text for e in world.file.event if e.round >= start.round][:limit]


def _grounding(lm: LanguageModel, world: World, lines: list[str], rng: random.Random, seed: int) -> float | None:
    sample = rng.sample(lines, min(LINES_PER_SCORING, len(lines))) if lines else []
    verdicts = []
    for i, line in enumerate(sample):
        prompt = (
            f"Story: {world.file.world.title}. {world.file.world.description}\nCharacters:\n{_cast_lines(world)}\n\n"
            f"Line from a continuation: {line}\n\n"
            'Is this line consistent with the story world and its characters (no invented people, places or '
            'impossible facts)? Reply {"answer": true} or {"answer": false}.'
        )
        obj = _ask(lm, prompt, BOOL_SCHEMA, seed=seed + i)
        if obj is not None:
            verdicts.append(1.0 if obj["answer"] else 0.0)
    return statistics.fmean(verdicts) if verdicts else None


def _trajectory(lm: LanguageModel, world: World, start_id: str, screenplay: str, seed: int) -> float | None:
    canon = "\n".join(f"- {t}" for t in canon_after(world, start_id))
    prompt = (
        f"What happens next in the original story:\n{_clip(canon, 900)}\n\n"
        f"A simulated continuation:\n{_clip(screenplay, 1500)}\n\n"
        "From 0 (unrelated) to 10 (follows the same course), how closely does the continuation follow the "
        'original story? Reply {"score": N}.'
    )
    score = _score(_ask(lm, prompt, TEN_SCHEMA, seed=seed))
    return score / 10.0 if score is not None else None


def _narrative(lm: LanguageModel, screenplay: str, seed: int) -> float | None:
    prompt = (
        f"A screenplay:\n{_clip(screenplay)}\n\n"
        "Rate it as a story from 1 (incoherent, nothing happens) to 5 (coherent, dramatic, in character). "
        'Reply {"score": N}.'
    )
    return _score(_ask(lm, prompt, FIVE_SCHEMA, seed=seed))


def _goal(lm: LanguageModel, world: World, events: list[SimEvent], rng: random.Random, seed: int) -> float | None:
    acted: dict[str, list[str]] = {}
    for event in events:
        if event.kind in ("say", "act", "move"):
            acted.setdefault(event.actor, []).append(event.text)
    agents = sorted(a for a in acted if world.agents[a].goals)
    sample = rng.sample(agents, min(AGENTS_PER_SCORING, len(agents))) if agents else []
    verdicts = []
    for i, agent in enumerate(sample):
        person = world.agents[agent]
        doings = "\n".join(f"- {t}" for t in acted[agent][-8:])
        prompt = (
            f"{person.name}'s goals: {'; '.join(person.goals)}\n{person.name} did:\n{_clip(doings, 1500)}\n\n"
            f'Do these actions pursue the goals? Reply {{"answer": true}} or {{"answer": false}}.'
        )
        obj = _ask(lm, prompt, BOOL_SCHEMA, seed=seed + i)
        if obj is not None:
            verdicts.append(1.0 if obj["answer"] else 0.0)
    return statistics.fmean(verdicts) if verdicts else None


def score(world: World, events: list[SimEvent], start_id: str, screenplay_markdown: str, screenplay_lines: list[str],
          lm: LanguageModel, *, scorings: int = 3, seed: int = 0) -> dict[str, object]:
    """Score a run `scorings` times; per metric the scores, their mean and std (missing answers skipped)."""
    samples: dict[str, list[float]] = {m: [] for m in METRICS}
    for n in range(scorings):
        rng = random.Random(seed * 1000 + n)
        base = seed * 1000 + n * 100
        got = {
            "grounding": _grounding(lm, world, screenplay_lines, rng, base),
            "trajectory": _trajectory(lm, world, start_id, screenplay_markdown, base + 50),
            "narrative": _narrative(lm, screenplay_markdown, base + 60),
            "goal": _goal(lm, world, events, rng, base + 70),
        }
        for metric, value in got.items():
            if value is not None:
                samples[metric].append(value)
    out: dict[str, object] = {"label": "model-judged", "judged_by": lm.name, "scorings": scorings}
    for metric, values in samples.items():
        out[metric] = {
            "mean": statistics.fmean(values) if values else float("nan"),
            "std": statistics.pstdev(values) if len(values) > 1 else 0.0,
            "scores": values,
        }
    return out


def score_run(sim: Run, lm: LanguageModel, *, scorings: int = 3, seed: int = 0) -> dict[str, object]:
    """Quality of a simulation's run so far: the first three from its screenplay, goal from its event log."""
    from storyworld.report.screenplay import render_simulation

    play = render_simulation(sim)
    lines = [f"{sim.world.agents[b.actor].name}: {b.text}" if b.kind == "say" else b.text
             for scene in play.scenes for b in scene.events]
    return score(sim.world, sim.state.events, sim.state.start_id, play.markdown, lines, lm, scorings=scorings, seed=seed)


__all__ = ["METRICS", "canon_after", "score", "score_run"]
