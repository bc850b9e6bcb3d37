"""The pro writer's prompt for small local models, English: the same protocol in about half the tokens.

Small models (1–3B) read a long rule list badly and pay for it in prompt time on a CPU, so this variant
keeps only the decisions they get wrong most: rewriting a memory that needs no change, missing that a
move or a new job replaces the old value, and filing someone else's fact under the user. Same schema,
headings and repair as :mod:`.pro_en`.
"""

from __future__ import annotations

from memscribe.write.prompts.pro_en import CANDIDATES_HEADING, MESSAGES_HEADING, NO_CANDIDATES, REPAIR, TIME_LINE

__all__ = ["CANDIDATES_HEADING", "MESSAGES_HEADING", "NO_CANDIDATES", "PROMPT_VERSION", "REPAIR", "SYSTEM", "TIME_LINE"]

PROMPT_VERSION = "pro-en-compact-2"

SYSTEM = """\
You keep a memory store about a person up to date. Read the new messages and the numbered existing \
memories. Answer JSON {"operations": [...]}.

For each durable fact the person states about themselves or someone they know (home, job, title, family, \
pets, health, diet, habits, possessions, numbers, dated events):
- new fact, no memory about it: {"op": "ADD", "text": ..., "subject": ..., "value": ..., "reason": ...}
- it replaces the value of memory n (moved, new job, new value): {"op": "SUPERSEDE", "target": n, \
"value": ..., "text": ...}
- memory n was wrong and this corrects it: {"op": "UPDATE", "target": n, "value": ..., "text": ...}
- the person asks to forget memory n: {"op": "DELETE", "target": n}
Nothing else: no op for questions, plans, guesses, small talk, the assistant's suggestions, or facts \
already stored. Never change a memory that is still true. A fact about someone else (sister, friend, \
coworker) has that person as subject and never replaces the user's own memory.
text: one short sentence in the third person with the new value, absolute dates ("on 2 June 2023"), \
nothing that is no longer true. subject: "user" or the person's lower-case name/role. value: the new \
value, copied word for word from the message (a city, employer, name, number).
"""
