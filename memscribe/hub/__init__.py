"""The hub: one local memory from the on-disk histories of a person's AI tools.

Each tool's history is read by a :class:`HubSource` found through the ``memscribe.hub_sources`` entry-point
group; :class:`Hub` imports what changed into a :class:`memscribe.Memory`, idempotently and incrementally.
"""

from __future__ import annotations

from memscribe.hub.cleaning import DIGEST_BEGIN, DIGEST_END, INJECTED_BEGIN, INJECTED_END
from memscribe.hub.importer import Hub
from memscribe.hub.model import HubEnv, ReadResult, Session, SourceFile, ToolUse, Turn
from memscribe.hub.ports import ENTRY_POINT_GROUP, HubSource, available_sources, load_source, register_source
from memscribe.hub.report import ImportReport, SourceReport

__all__ = [
    "DIGEST_BEGIN",
    "DIGEST_END",
    "ENTRY_POINT_GROUP",
    "INJECTED_BEGIN",
    "INJECTED_END",
    "Hub",
    "HubEnv",
    "HubSource",
    "ImportReport",
    "ReadResult",
    "Session",
    "SourceFile",
    "SourceReport",
    "ToolUse",
    "Turn",
    "available_sources",
    "load_source",
    "register_source",
]
