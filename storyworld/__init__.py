"""storyworld package."""
