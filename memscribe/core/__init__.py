"""Pure domain logic: records, ids, clocks, text helpers. No I/O, no third-party imports."""
