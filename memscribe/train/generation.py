"""Greedy answers of a causal LM to chat prompts, in left-padded batches, on whatever device the model is on.

The demo scores held-out requests before and after training with these answers. One request at a time, a
GPU spends most of each decoding step launching kernels for a single row; a batch of rows decodes them
together. Rows are left-padded (with an attention mask) so every row's answer starts at the same position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["device", "greedy_answers", "prompt_ids"]


def device() -> str:
    """``cuda`` when PyTorch sees a CUDA device, else ``cpu``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def greedy_answers(
    model: Any, tokenizer: Any, prompts: Sequence[Sequence[dict[str, Any]]], *, max_new_tokens: int,
    batch_size: int = 8,
) -> list[str]:  # fmt: skip
    """The model's greedy answer to each chat prompt, in order, ``batch_size`` prompts per ``generate`` call."""
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    answers: list[str] = []
    for start in range(0, len(prompts), batch_size):
        answers.extend(_batch(model, tokenizer, prompts[start : start + batch_size], max_new_tokens))
    return answers


def _batch(model: Any, tokenizer: Any, prompts: Sequence[Sequence[dict[str, Any]]], max_new_tokens: int) -> list[str]:
    import torch

    rows = [prompt_ids(tokenizer, prompt) for prompt in prompts]
    width = max(len(row) for row in rows)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    ids = torch.tensor([[pad] * (width - len(row)) + row for row in rows], device=model.device)
    mask = torch.tensor([[0] * (width - len(row)) + [1] * len(row) for row in rows], device=model.device)
    with torch.no_grad():
        out = model.generate(ids, attention_mask=mask, max_new_tokens=max_new_tokens, do_sample=False,
                             pad_token_id=pad)  # fmt: skip
    return [str(tokenizer.decode(row[width:], skip_special_tokens=True)) for row in out]


def prompt_ids(tokenizer: Any, prompt: Sequence[dict[str, Any]]) -> list[int]:
    """The token ids of a chat prompt with the generation prompt appended (the model's answer comes next)."""
    ids: Any = tokenizer.apply_chat_template(list(prompt), add_generation_prompt=True, tokenize=True)
    ids = ids["input_ids"] if hasattr(ids, "keys") else ids
    return [int(i) for i in ids]
