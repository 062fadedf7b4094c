"""Benchmarks of the Harnery console and core on synthetic `.harnery/` trees (`python -m benchmarks`)."""
