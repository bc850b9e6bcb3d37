"""Stores: ports plus the SQLite default and the in-memory fake."""
