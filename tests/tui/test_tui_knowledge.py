"""The panel of knowledge (issue 23): one card per record, and never the same statement twice on it."""

from __future__ import annotations

from storyworld.game.session import new_simulation
from storyworld.kernel.state import Settings, SimEvent
from tui.knowledge import knowledge
from tests.support.doubles import HashEmbedder
from tests.support.runtime import ScriptedMind


def test_a_line_that_repeats_what_the_player_knew_does_not_show_it_twice(tiny_world):
    """Tobin says what Maren knew from before: the fact keeps its own card, the line teaches nothing new."""
    sim = new_simulation(tiny_world, None, Settings(seed=1), ScriptedMind(), embedder=HashEmbedder())
    store = sim.store
    known = "The old keeper left the harbour at dawn."
    (fact,) = store.remember("maren", known, round=-1, via="sediment")
    line = SimEvent(id="r0001-00", round=1, place="harbour", actor="tobin", kind="say", to="maren",
                    text=f"Maren, {known}", claim=f"Maren, {known}", witnesses=("maren", "tobin"), tells=(fact,))
    sim.state.events.append(line)
    (said,) = store.remember("maren", f"Tobin tells Maren: {known}", round=1, event_id=line.id, via="witnessed",
                             kind="utterance", source="tobin")
    store.remember("tobin", known, round=1, via="told", source="tobin")
    # the fact is recalled first (it is the closest match), the line after it
    hits = {h.record.id: h for h in store.recall("maren", known, k=8)}
    ordered = [hits[fact], *(h for rid, h in hits.items() if rid != fact)]
    store.recall = lambda owner, query, k=None, **_: ordered
    cards = knowledge(sim, "maren", None)
    statements = [c.text for c in cards] + [text for c in cards for _, text in c.learned]
    assert statements.count(known) == 1, statements
    heard = next(c for c in cards if c.id == said)
    assert heard.learned == ()  # Maren held it before Tobin said it: nothing learned from the line


def test_recall_is_ranked_with_a_cut_off_and_counts_the_rest():
    """Issue 33: /recall keeps the hits near the best one (and above a floor), at most six, and says how many more."""
    from memory.records import RecallHit
    from tui.knowledge import ranked

    def hit(score: float, via: str = "semantic") -> RecallHit:
        from memory.records import Record

        return RecallHit(record=Record(id=int(score * 1000), text=f"r{score}", kind="event", round=0), via=via,
                         score=score)

    # what /recall cup gave before: sixteen cards, the best 0.175 (nothing is about a cup)
    assert ranked([hit(0.175), hit(0.157), *[hit(0.1 - i / 100, "affiliated") for i in range(8)]]) == ([], 0)
    # /recall ghost: the six close hits, the affiliated tail (<= 0.19) cut off
    ghost = [hit(s) for s in (0.447, 0.446, 0.432, 0.353, 0.326, 0.317)] + [hit(0.189, "affiliated")] * 3
    kept, more = ranked(list(reversed(ghost)))
    assert [h.score for h in kept] == [0.447, 0.446, 0.432, 0.353, 0.326, 0.317] and more == 0
    kept, more = ranked([hit(0.5 - i / 100) for i in range(10)])
    assert len(kept) == 6 and more == 4 and kept[0].score == 0.5
