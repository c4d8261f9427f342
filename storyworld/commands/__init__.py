"""CLI subcommands, one module each; each exposes register(subparsers)."""
