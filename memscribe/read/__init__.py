"""The read path: query → gather (vector, keyword) → fuse → filter → pack."""
