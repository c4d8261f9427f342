"""Tests of storyworld.report."""
