"""Tests of storyworld.llm."""
