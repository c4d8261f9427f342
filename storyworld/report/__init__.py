"""What a run is read as: screenplay, event log, store queries, relations, and quality figures."""
