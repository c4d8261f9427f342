"""The pictures of a run: interaction counts, communities, memory pairs, and the PNGs drawn from them."""

from __future__ import annotations

import random

import pytest

from storyworld.game import session
from storyworld.kernel.actions import ActOn, Say, Wait
from storyworld.benches.backends_plots import write_relation_plots
from storyworld.minds import Decision
from storyworld.report.relations import (
    affiliation_clusters,
    communities,
    interaction_counts,
    pair_relations,
    relations_summary,
)
from storyworld.kernel.state import Settings, SimEvent
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder
from tests.support.paths import TINY

AGENTS = ["ann", "bob", "cat", "dan", "eve"]


def ev(kind: str, actor: str, target: str | None = None, witnesses: tuple[str, ...] = ()) -> SimEvent:
    return SimEvent(id=f"e{random.random()}", round=0, place="p", actor=actor, kind=kind, text="",
                    witnesses=witnesses, target=target)


def test_addressed_speech_counts_for_the_listener_and_open_speech_for_everyone_who_heard():
    events = [
        ev("say", "ann", "bob", ("ann", "bob", "cat")),
        ev("say", "ann", None, ("ann", "bob", "cat")),
        ev("act", "cat", "ann"),
        ev("act", "cat", "letter"),  # an object: not an interaction
        ev("move", "dan", "hall"),
    ]
    counts = interaction_counts(AGENTS, events)
    assert counts[("ann", "bob")]["spoke"] == 2
    assert counts[("ann", "cat")]["spoke"] == 1
    assert counts[("cat", "ann")]["acted"] == 1
    assert ("cat", "letter") not in counts and not any("dan" in k for k in counts)


def test_pairs_rank_by_interactions_and_communities_split_two_cliques():
    events = [ev("say", a, b) for a, b in [("ann", "bob"), ("bob", "cat"), ("cat", "ann")] * 3]
    events += [ev("say", a, b) for a, b in [("dan", "eve")] * 4]
    events.append(ev("say", "cat", "dan"))
    pairs = pair_relations(AGENTS, events)
    assert [(p.a, p.b, p.spoke) for p in pairs] == [
        ("dan", "eve", 4), ("ann", "bob", 3), ("ann", "cat", 3), ("bob", "cat", 3), ("cat", "dan", 1)]
    groups = communities(AGENTS, pairs)
    assert ["ann", "bob", "cat"] in groups and ["dan", "eve"] in groups


def test_affiliation_clusters_follow_components():
    clusters = affiliation_clusters([(1, 2), (2, 3), (1, 3), (10, 11)])
    assert clusters == [[1, 2, 3], [10, 11]]


class Talker:
    """Everyone speaks to someone present or acts on them, seeded; enough for records to be shared."""

    def decide(self, world, context) -> Decision:
        pick = random.Random(context.seed)
        present = context.perception.present
        if present and pick.random() < 0.7:
            action = Say(actor=context.agent, text=f"The bell rang {pick.randrange(9)} times.", to=pick.choice(present))
        elif present:
            action = ActOn(actor=context.agent, target=pick.choice(present), verb="greet")
        else:
            action = Wait(actor=context.agent)
        return Decision(action=action)


@pytest.fixture(scope="module")
def tiny_run():
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=1, awake="all"), Talker(), embedder=HashEmbedder())
    for _ in range(3):
        sim.step()
    return sim


def test_a_real_run_has_interactions_shared_records_and_affiliation(tiny_run):
    agents = sorted(tiny_run.world.agents)
    summary = relations_summary(agents, tiny_run.state.events, tiny_run.store)
    assert summary["pairs"] and summary["pairs"][0]["spoke"] + summary["pairs"][0]["acted"] > 0
    assert any(p["shared"] > 0 for p in summary["pairs"])
    assert sorted(a for group in summary["communities"] for a in group) == agents
    assert summary["affiliation"]["edges"]
    # a pair's shared count is exactly the records both own
    pair = next(p for p in summary["pairs"] if p["shared"])
    both = [r for r in tiny_run.store.records() if pair["a"] in r.owners and pair["b"] in r.owners]
    assert pair["shared"] == len(both)


def test_relation_pngs_are_written(tiny_run, tmp_path):
    agents = sorted(tiny_run.world.agents)
    summary = relations_summary(agents, tiny_run.state.events, tiny_run.store)
    paths = write_relation_plots(summary, agents, "tiny", tmp_path)
    assert [p.name for p in paths] == ["interaction.png", "affiliation.png", "relations.png"]
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
