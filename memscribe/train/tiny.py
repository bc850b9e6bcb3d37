"""A tiny randomly initialised chat model, built locally in seconds, to run both stages end to end offline.

The tokenizer is a byte-level BPE trained on the given texts (so every string encodes), with a plain chat
template; the model is a two-layer Llama. It writes nothing useful: it exists so the training code runs,
its loss can be watched going down and its exported folder can be reloaded, without a download.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memscribe.errors import ConfigError

try:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ConfigError(f'the tiny model needs the train extra: pip install "memscribe[train]" ({error})') from None

__all__ = ["CHAT_TEMPLATE", "tiny_llama_tokenizer", "tiny_model", "tiny_tokenizer"]

SPECIAL = ["<|pad|>", "<|end|>", "<|system|>", "<|user|>", "<|assistant|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def tiny_tokenizer(texts: Iterable[str], *, vocab_size: int = 512) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer trained on ``texts``, with the chat template above."""
    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    core.train_from_iterator(texts, trainer=trainer)
    fast: Any = PreTrainedTokenizerFast  # untyped constructor
    tokenizer: PreTrainedTokenizerFast = fast(tokenizer_object=core, pad_token="<|pad|>", eos_token="<|end|>")
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def tiny_llama_tokenizer(texts: Iterable[str], *, vocab_size: int = 600) -> PreTrainedTokenizerFast:
    """A Llama-2-style BPE tokenizer trained on ``texts``: "▁" for spaces, the 256 ``<0xNN>`` byte tokens as
    the fallback for anything unseen. llama.cpp's converter reads this shape without a known-model check, so
    the tiny model converts to GGUF (``memscribe.train.to_gguf``)."""
    core = Tokenizer(models.BPE(byte_fallback=True))
    core.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    core.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    byte_tokens = [f"<0x{value:02X}>" for value in range(256)]
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL + byte_tokens)
    core.train_from_iterator(texts, trainer=trainer)
    fast: Any = PreTrainedTokenizerFast  # untyped constructor
    tokenizer: PreTrainedTokenizerFast = fast(tokenizer_object=core, pad_token="<|pad|>", eos_token="<|end|>")
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def tiny_model(tokenizer: PreTrainedTokenizerFast, *, hidden: int = 32, layers: int = 2, seed: int = 0) -> Any:
    """A randomly initialised Llama sized for ``tokenizer`` (about 40k parameters at the defaults)."""
    import torch

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=True,
    )
    return LlamaForCausalLM(config)


def tiny_moe(
    tokenizer: PreTrainedTokenizerFast, *, hidden: int = 32, layers: int = 2, experts: int = 4, seed: int = 0
) -> Any:
    """A randomly initialised Qwen3-MoE sized for ``tokenizer``: the reference student's shape (fused 3-D expert
    weights and a router per layer) at a size a test trains in seconds."""
    import torch
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    torch.manual_seed(seed)
    make: Any = Qwen3MoeConfig  # head_dim is a keyword its type hints leave out
    config = make(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 2,
        moe_intermediate_size=hidden // 2,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=hidden // 4,
        num_experts=experts,
        num_experts_per_tok=2,
        max_position_embeddings=8192,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=tokenizer.eos_token_id,
    )
    return Qwen3MoeForCausalLM(config)
