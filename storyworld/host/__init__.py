"""Play together: a world host that owns one game and seats several people, each seeing only their character."""
