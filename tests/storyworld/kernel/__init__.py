"""Tests of storyworld.kernel."""
