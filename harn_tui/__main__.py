"""Run the `harn` CLI with `python -m harn_tui`."""

from harn_tui.cli import main

raise SystemExit(main())
