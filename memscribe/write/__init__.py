"""The write path: ingest → route → writer (propose operations) → plan (enforce invariants) → apply."""
