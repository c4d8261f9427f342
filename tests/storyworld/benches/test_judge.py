"""`storyworld bench judge`: the judge-on/off evaluation, on a fake embedder and scripted judges."""

from __future__ import annotations

import math

import numpy as np
import pytest

from memory import MemorySettings
from storyworld.benches.judge import (CountingJudge, Pair, decision_messages, decision_schema, evaluate, load_pairs,
                                    shipped_pairs)
from storyworld.cli import build_parser


class AngleEmbedder:
    """Each text is a unit vector at a chosen angle, so a pair's cosine is set by the test."""

    dim = 2

    def __init__(self, angles: dict[str, float]) -> None:
        self.angles = angles

    def encode(self, texts):
        return np.array([[math.cos(self.angles[t]), math.sin(self.angles[t])] for t in texts], dtype=np.float32)


def pairs_with_cosines(rows):
    """Pairs (a, b, same) whose cosine is the given value; texts are distinct plain sentences."""
    angles, pairs = {}, []
    for index, (cosine, same) in enumerate(rows):
        a, b = f"Anna walked to the mill {index}.", f"Anna strolled to the mill {index}."
        angles[a] = 0.0
        angles[b] = math.acos(cosine)
        pairs.append(Pair(a, b, same))
    return pairs, AngleEmbedder(angles)


ROWS = [(0.99, True), (0.95, True), (0.80, True), (0.78, False), (0.75, False), (0.30, False)]


@pytest.mark.parametrize(
    ("verdict", "lowers", "on_precision", "on_recall"),
    [(True, True, 0.6, 1.0), (False, False, 1.0, 2 / 3), (None, False, 1.0, 2 / 3)],
)
def test_judge_on_vs_off(verdict, lowers, on_precision, on_recall):
    settings = MemorySettings(merge_low=0.72, merge_high=0.9, frame_min=1.01, deed_cosine_min=1.01,
                              counterpart_cosine_min=1.01)  # cosine and judge only
    pairs, embedder = pairs_with_cosines(ROWS)
    judge = CountingJudge(lambda a, b: verdict)
    report = evaluate(pairs, embedder, judge, settings)
    assert report["band_pairs"] == 3 and report["band_same"] == 1
    assert report["judge_off"]["precision"] == 1.0 and report["judge_off"]["recall"] == round(2 / 3, 3)
    assert report["judge_on"]["precision"] == round(on_precision, 3)
    assert report["judge_on"]["recall"] == round(on_recall, 3)
    assert report["judge_lowers_precision"] is lowers
    assert report["judge_calls"] == 3  # remembered: the store's run asks the same pairs again
    assert report["replay_agrees"] is True  # the store's own run and the replay of its rule agree


def test_dev_pairs_load():
    pairs, source = load_pairs()
    assert len(pairs) >= 20 and any(p.same for p in pairs) and any(not p.same for p in pairs)
    assert source


def test_help_says_the_judge_stays_off():
    parser = build_parser()
    bench = next(a for a in parser._subparsers._group_actions[0].choices["bench"]._subparsers._group_actions
                 if hasattr(a, "choices"))
    text = bench.choices["judge"].format_help()
    assert "off by default" in text


def test_the_shipped_pairs_and_scene_load_from_the_bench_data():
    """The fallback pairs (data/judge_pairs.tsv) and the decision scene (data/judge_scene.toml) are read strictly."""
    pairs = shipped_pairs()
    assert len(pairs) == 30 and sum(p.same for p in pairs) == 15
    assert decision_schema()["properties"]["target"]["enum"] == ["hall", "platform", "battlements", "chapel", "none"]
    first, sixth = decision_messages(0), decision_messages(5)
    assert first[0]["content"].startswith("You are Horatio, in Elsinore") and sixth[0]["content"].startswith("You are Horatio")
    assert "- [told by Marcellus] The ghost has come twice before" in first[1]["content"]
    assert "Round 6." in sixth[1]["content"] and "You are Marcellus" in decision_messages(1)[0]["content"]
