"""The training kit for small writer models (``memscribe[train]``): datasets, the memory RL environment,
and the two stages (supervised / on-policy distillation, then GRPO) over TRL.

Nothing in the library imports this package. The dataset and environment modules need only the base install;
:mod:`memscribe.train.stages` needs the ``train`` extra (torch, transformers, TRL, peft). See docs/training.md.
"""

from memscribe.train.dataset import SCHEMA, compact_answer, export_rows, read_rows, scenario_from_dict, write_rows
from memscribe.train.environment import MemoryEnv, ReferenceStep, parse_operations
from memscribe.train.rewards import ChunkReward, RewardWeights

__all__ = [
    "SCHEMA",
    "ChunkReward",
    "MemoryEnv",
    "ReferenceStep",
    "RewardWeights",
    "compact_answer",
    "export_rows",
    "parse_operations",
    "read_rows",
    "scenario_from_dict",
    "write_rows",
]
