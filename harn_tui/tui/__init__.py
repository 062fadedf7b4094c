"""The Textual operator console (`harn tui`): a thin client of the core that renders its projection."""
