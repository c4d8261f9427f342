"""What the tests share: paths, test doubles, fixtures, the fake server and the pilot helpers."""
