"""Tests of storyworld.game."""
