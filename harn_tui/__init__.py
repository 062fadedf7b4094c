"""harn_tui: the Harnery goal supervisor, its `harn` CLI and its Textual operator console."""

__version__ = "0.1.0"
