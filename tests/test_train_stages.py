"""Both training stages end to end on a tiny randomly initialised model built here (needs the train extra)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("trl", reason="the train extra is not installed")
pytest.importorskip("peft", reason="the train extra is not installed")

from memscribe.bench.scenarios import generate_scenarios
from memscribe.train import export_rows, read_rows, write_rows
from memscribe.train.stages import export, grpo, lora, serving_command, sft
from memscribe.train.tiny import tiny_model, tiny_tokenizer

# Seconds of compute; minutes when the machine's cores are shared.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("train")
    counts = write_rows(export_rows(generate_scenarios(1, 11), root / "work"), root / "data")
    sft_rows = read_rows(root / "data" / "sft.jsonl", "sft")
    rl_rows = read_rows(root / "data" / "rl.jsonl", "rl")
    texts = [m["content"] for row in sft_rows for m in row["messages"]]
    return {"root": root, "counts": counts, "sft": sft_rows, "rl": rl_rows, "tokenizer": tiny_tokenizer(texts)}


def test_sft_loss_decreases_and_the_exported_folder_reloads(data: dict[str, Any]) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = data["tokenizer"]
    model = tiny_model(tokenizer)
    losses = sft(model, tokenizer, data["sft"][:2], data["root"] / "sft", steps=6, lr=3e-3, max_length=4096)
    assert len(losses) == 6
    assert sum(losses[-3:]) / 3 < sum(losses[:3]) / 3
    folder = export(model, tokenizer, data["root"] / "model")
    again = AutoModelForCausalLM.from_pretrained(folder)
    assert again.num_parameters() == model.num_parameters()
    prompt = AutoTokenizer.from_pretrained(folder).apply_chat_template(
        data["sft"][0]["messages"][:2], add_generation_prompt=True, tokenize=False
    )
    assert prompt.endswith("<|assistant|>")
    assert str(folder) in serving_command(folder)


def test_grpo_scores_every_rollout_with_the_environment_and_a_lora_merge_exports(data: dict[str, Any]) -> None:
    from transformers import AutoModelForCausalLM

    tokenizer = data["tokenizer"]
    model = lora(tiny_model(tokenizer, seed=1), rank=4, alpha=8)
    reward = grpo(model, tokenizer, data["rl"][:1], data["root"] / "grpo", steps=2, generations=2,
                  max_completion_length=8)  # fmt: skip
    assert len(reward.history) == 2 * 2  # steps x generations (one prompt per step)
    # A random model writes no valid answer: no format credit, and the total is exactly the reward's terms.
    assert all(h["format_valid"] == 0.0 for h in reward.history)
    assert all(h["total"] == pytest.approx(h["probe_accuracy"] - 0.5 * (h["over_storage"] + h["stale"]
               + h["wrong_supersede"] + h["attributed"]), abs=1e-5) for h in reward.history)  # fmt: skip
    folder = export(model, tokenizer, data["root"] / "merged")
    reloaded = AutoModelForCausalLM.from_pretrained(folder)
    assert not any("lora" in name for name, _ in reloaded.named_parameters())


def test_a_lora_seed_leaves_the_base_weights_as_they_were(data: dict[str, Any]) -> None:
    # The demo trains every seed's adapter on one loaded base and removes it before the next seed.
    tokenizer = data["tokenizer"]
    base = tiny_model(tokenizer, seed=2)
    before = {name: tensor.clone() for name, tensor in base.state_dict().items()}
    network = lora(base, rank=4, alpha=8)
    losses = sft(network, tokenizer, data["sft"][:2], data["root"] / "sft-lora", steps=2, lr=3e-2, max_length=4096,
                 batch_size=1)  # fmt: skip
    assert len(losses) == 2
    assert any(p.requires_grad for n, p in network.named_parameters() if "lora" in n)
    restored = network.unload()
    after = restored.state_dict()
    assert before.keys() == after.keys()
    assert all((before[name] == after[name]).all() for name in before)


def test_sft_refuses_rows_that_are_all_longer_than_max_length(data: dict[str, Any]) -> None:
    tokenizer = data["tokenizer"]
    with pytest.raises(ValueError, match="longer than max_length=16 tokens"):
        sft(tiny_model(tokenizer), tokenizer, data["sft"][:2], data["root"] / "sft-short", steps=1, max_length=16)


def test_lora_on_a_mixture_of_experts_adapts_the_fused_experts_and_leaves_the_router(data: dict[str, Any]) -> None:
    import torch

    from memscribe.train.tiny import tiny_moe

    tokenizer = data["tokenizer"]
    network = lora(tiny_moe(tokenizer), rank=4, alpha=8)
    trained = {name for name, p in network.named_parameters() if p.requires_grad}
    assert any(".mlp.experts." in name and "lora" in name for name in trained)  # fused 3-D expert weights
    assert any(".self_attn.q_proj.lora" in name for name in trained)
    assert not any(".mlp.gate." in name for name in trained)  # the router is left as it is
    assert network.config.output_router_logits  # its load-balancing loss counts
    losses = sft(network, tokenizer, data["sft"][:2], data["root"] / "sft-moe", steps=2, lr=3e-2, max_length=4096,
                 batch_size=1)  # fmt: skip
    assert len(losses) == 2 and all(loss == loss for loss in losses)
    network.eval()
    ids = torch.tensor([tokenizer.encode("I moved to Lisbon in May.")])
    with torch.no_grad():
        before = network(ids).logits
    folder = export(network, tokenizer, data["root"] / "moe")
    from transformers import AutoModelForCausalLM

    merged = AutoModelForCausalLM.from_pretrained(folder)
    assert not any("lora" in name for name, _ in merged.named_parameters())
    with torch.no_grad():
        assert torch.allclose(merged(ids).logits, before, atol=1e-4)


def test_a_dense_model_gets_every_linear_layer_and_no_expert_targets(data: dict[str, Any]) -> None:
    network = lora(tiny_model(data["tokenizer"]), rank=4, alpha=8)
    trained = {name for name, p in network.named_parameters() if p.requires_grad}
    assert any(".mlp.gate_proj.lora" in name for name in trained) and any(".self_attn.o_proj.lora" in name
                                                                          for name in trained)  # fmt: skip
    assert not network.peft_config["default"].target_parameters
