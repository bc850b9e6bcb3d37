"""The REST routes, one module per resource: memories (native), mem0 compatibility, data (forget, purge,
export, import, stats) and admin (keys, health, metrics)."""
