"""Run every benchmark: `python -m benchmarks [--only load,refresh,...] [--no-enforce]`."""

from benchmarks.runner import main

raise SystemExit(main())
