"""The console's view models: what the operator console shows, computed from the core, free of Textual."""
