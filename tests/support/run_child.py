"""Child process for the run fault test: steps the tiny world forever, saving after every round."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from doubles import HashEmbedder, ScriptedMind  # noqa: E402
from storyworld.game import session  # noqa: E402
from storyworld.kernel.state import Settings  # noqa: E402
from storyworld.world import load_world  # noqa: E402
from test_run_faults import saved, script  # noqa: E402


def main() -> None:
    save = Path(sys.argv[1])
    rounds = int(sys.argv[2])
    mind = ScriptedMind(script)
    if saved(save):
        game = session.Session.load(save, mind, embedder=HashEmbedder())
    else:
        world = load_world(Path(__file__).parent / "data" / "worlds" / "tiny.toml")
        game = session.Session.new(world, "arrival", Settings(seed=11), mind, slot=save, embedder=HashEmbedder())
    while game.sim.state.round < rounds:
        game.play_round()
        game.autosave()  # the slot itself and a rotating autosave beside it, as `storyworld run --save` does
        print(game.sim.state.round, flush=True)


if __name__ == "__main__":
    main()
