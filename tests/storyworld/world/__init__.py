"""Tests of storyworld.world."""
