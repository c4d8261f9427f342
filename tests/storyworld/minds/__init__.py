"""Tests of storyworld.minds."""
