"""``memscribe bench writers``: the writer benchmark. Data, embedder, retrieval protocols and metrics fixed;
only the writer swapped (memscribe's raw, lite, pro, hybrid and the mem0 / Hy-Memory protocol adapters, and
the peer systems mem0ai and hy-memory themselves, each in its own venv).

Modules: ``cases`` (typed cases), ``datasets`` (loaders with per-chunk probes), ``subjects`` (the writer
seam), ``protocols`` (retrieval held fixed), ``evaluators`` (LLM-free scores), ``judge`` (answerer and
strict judge), ``runner`` / ``run`` (the loop), ``report`` / ``markdown`` / ``plots`` (outputs), ``compare``
(paired significance), ``fake_model`` (a deterministic model for runs without a server), ``peers``.
"""
