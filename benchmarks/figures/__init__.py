"""The benchmark figures of issue 6, one module per area; each `measure(ctx)` returns table rows."""
