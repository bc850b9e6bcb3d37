"""Prompts as versioned data: one module per prompt family and language, each with a ``PROMPT_VERSION``.

A prompt module holds text and schemas only; no code builds requests here. Changing a prompt's wording
means bumping its ``PROMPT_VERSION``, which every operation written with it records in ``Usage``, so the
journal tells which prompt produced which memory and a benchmark run can be tied to one prompt.

* :mod:`.pro_en` / :mod:`.pro_zh`: the pro writer's single extract-and-reconcile call; :mod:`.pro_schema`
  is the JSON schema both answer in.
* :mod:`.mem0_en`: a mem0-style two-call protocol (extract facts, then ADD/UPDATE/DELETE/NONE).
* :mod:`.hy_en`: a Hy-Memory-style two-call protocol (extract, then ADD/UPDATE/SUPERSEDE with reasons).
"""
