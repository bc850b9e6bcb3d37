"""Scenes: chat layers, working memory and the experience library, the coding diff chain, and consolidation.

- :func:`route_scene`: chat | working | coding per episode; a model call only when rules cannot tell.
- :class:`SceneWriter`: a Writer that routes, then writes chat through an inner writer and working/coding
  memory by rules.
- :func:`derive_profile` / :func:`profile`: the L0 profile as a view over current slot memories.
- :func:`expire_intentions`: L7 plans past their deadline → L2 history.
- :func:`summarize_episode`: an L3 summary with one model call.
- :func:`consolidate` / :class:`ConsolidationScheduler`: ultra's bounded background pass, and when to run it.
"""

from __future__ import annotations

from memscribe.scenes.coding import revision_chain
from memscribe.scenes.consolidate import (
    ConsolidationBudget,
    ConsolidationScheduler,
    consolidate,
    plan_consolidation,
)
from memscribe.scenes.intentions import deadline_of, expire_intentions, normalize_intention
from memscribe.scenes.profile import Profile, ProfileValue, derive_profile, profile, profile_ops
from memscribe.scenes.router import SCENES, SceneDecision, route_scene
from memscribe.scenes.summary import summarize_episode
from memscribe.scenes.working import experience_records
from memscribe.scenes.writer import SceneCandidates, SceneWriter

__all__ = [
    "SCENES",
    "ConsolidationBudget",
    "ConsolidationScheduler",
    "Profile",
    "ProfileValue",
    "SceneCandidates",
    "SceneDecision",
    "SceneWriter",
    "consolidate",
    "deadline_of",
    "derive_profile",
    "experience_records",
    "expire_intentions",
    "normalize_intention",
    "plan_consolidation",
    "profile",
    "profile_ops",
    "revision_chain",
    "route_scene",
    "summarize_episode",
]
