"""Console panels, one per module: header, goals, graph, item detail, plans, attention, findings."""
