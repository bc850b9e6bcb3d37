"""Benchmarks: speed, update scenarios, LoCoMo, vector indexes, load. Applications; nothing imports them."""
