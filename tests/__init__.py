"""The test suite; its folders mirror the packages (tests/memory, tests/saves, tests/storyworld/..., tests/tui)."""
