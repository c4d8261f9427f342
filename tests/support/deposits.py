"""Deposits as the kernel makes them, for the memory stores' tests: one Hamlet scene, and a seeded random story."""

from __future__ import annotations

import random

from memory import Deposit

AGENTS = ("hamlet", "horatio", "ophelia", "polonius", "claudius")  # the random story's people


def scene_deposits(round_: int = 1) -> list[Deposit]:
    """One co-witnessed event and a told claim, as the kernel deposits them."""
    witnesses = ("hamlet", "horatio", "ophelia")
    said = 'Hamlet says in the hall: "The king poisoned my father."'
    deposits = [Deposit(owner=w, statements=[said], round=round_, event_id="r0001-00", via="witnessed",
                        place="hall", kind="utterance") for w in witnesses]
    deposits += [Deposit(owner=w, statements=["The king poisoned my father."], round=round_,
                         event_id="r0001-00/claim", via="told", source="hamlet", place="hall", kind="claim")
                 for w in witnesses if w != "hamlet"]
    deposits.append(Deposit(owner="hamlet", statements=["The king poisoned my father."], round=round_,
                            event_id="r0001-00/claim", via="inferred", place="hall", kind="claim"))
    return deposits


def random_world(store, rng: random.Random, rounds: int = 12) -> None:
    """Deposits from a seeded random little story: places, speakers, listeners."""
    words = "crown poison ghost letter sword queen ship night throne grave skull rapier".split()
    for rnd in range(rounds):
        batch = []
        for e in range(3):
            present = rng.sample(AGENTS, rng.randint(1, 4))
            speaker = present[0]
            claim = f"The {rng.choice(words)} and the {rng.choice(words)} are {rng.choice(words)}s."
            said = f'{speaker.capitalize()} says: "{claim}"'
            eid = f"r{rnd:04d}-{e:02d}"
            batch += [Deposit(owner=w, statements=[said], round=rnd, event_id=eid, kind="utterance") for w in present]
            batch += [Deposit(owner=w, statements=[claim], round=rnd, event_id=eid + "/claim", via="told",
                              source=speaker, kind="claim") for w in present[1:]]
            batch.append(Deposit(owner=speaker, statements=[claim], round=rnd, event_id=eid + "/claim",
                                 via="inferred", kind="claim"))
        store.remember_many(batch)
