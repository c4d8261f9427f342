"""Child process for the run fault test: steps the tiny world forever, saving after every round (repo on PYTHONPATH)."""

from __future__ import annotations

import sys
from pathlib import Path

from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.faults import saved, script
from tests.support.paths import TINY


def main() -> None:
    save = Path(sys.argv[1])
    rounds = int(sys.argv[2])
    mind = ScriptedMind(script)
    if saved(save):
        game = session.Session.load(save, mind, embedder=HashEmbedder())
    else:
        world = load_world(TINY)
        game = session.Session.new(world, "arrival", Settings(seed=11), mind, slot=save, embedder=HashEmbedder())
    while game.sim.state.round < rounds:
        game.play_round()
        game.autosave()  # the slot itself and a rotating autosave beside it, as `storyworld run --save` does
        print(game.sim.state.round, flush=True)


if __name__ == "__main__":
    main()
