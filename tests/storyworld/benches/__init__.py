"""Tests of storyworld.benches."""
