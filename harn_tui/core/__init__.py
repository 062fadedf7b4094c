"""The durable Harnery library: records, journal I/O, leases, projection, transitions, supervisor.

Nothing in this package imports Textual or Rich; the console and the CLI are thin clients of it.
"""
