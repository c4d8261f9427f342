"""Tests of storyworld.commands."""
