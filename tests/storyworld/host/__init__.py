"""Tests of storyworld.host."""
