"""Tests of storyworld.authoring."""
