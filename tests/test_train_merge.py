"""A demo seed's saved LoRA adapter, merged into its base by ``memscribe train merge``, is the model the demo
exported; ``--json`` output is JSON alone; held-out requests answered in batches get the answers they get one at
a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl", reason="the train extra is not installed")
pytest.importorskip("peft", reason="the train extra is not installed")

from click.testing import CliRunner

from memscribe.cli.main import cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def test_the_saved_adapter_merged_into_its_base_is_the_demos_exported_model(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    from memscribe.cli.train_cmds import _tiny_loader
    from memscribe.train.stages import export

    out = tmp_path / "demo"
    run = CliRunner().invoke(cli, ["--json", "train", "demo", "--tiny", "--lora-rank", "4", "--out", str(out),
                                   "--seeds", "0", "--train-scenarios", "1", "--eval-scenarios", "1",
                                   "--eval-chunks", "2", "--sft-steps", "2", "--sft-lr", "5e-2", "--grpo-steps", "1",
                                   "--max-new-tokens", "8"])  # fmt: skip
    assert run.exit_code == 0, run.output
    result = json.loads((out / "demo.json").read_text(encoding="utf-8"))
    assert json.loads(run.stdout)["runs"] == result["runs"]  # the trainers print nothing into --json output
    adapter = Path(result["runs"][0]["adapter"])
    assert (adapter / "adapter_config.json").is_file()
    assert sum(f.stat().st_size for f in adapter.iterdir()) < 1_000_000  # the adapter alone, not the model

    base_model, tokenizer = _tiny_loader()()  # the same untrained weights the demo started from
    base = export(base_model, tokenizer, tmp_path / "base")
    merged = CliRunner().invoke(cli, ["train", "merge", "--model", str(base), "--adapter", str(adapter),
                                      "--out", str(tmp_path / "merged")])  # fmt: skip
    assert merged.exit_code == 0, merged.output
    assert "vllm serve" in merged.output

    ids = torch.tensor([tokenizer.encode("I moved to Lisbon in May.")])
    folders = {"base": base, "merged": tmp_path / "merged", "demo": result["model"]}
    logits = {name: AutoModelForCausalLM.from_pretrained(folder)(ids).logits for name, folder in folders.items()}
    assert torch.allclose(logits["merged"], logits["demo"], atol=1e-5)
    assert not torch.allclose(logits["merged"], logits["base"], atol=1e-3)  # the adapter did change the model


def test_merge_names_a_folder_that_holds_no_adapter(tmp_path: Path) -> None:
    from memscribe.cli.train_cmds import _tiny_loader
    from memscribe.train.stages import export

    model, tokenizer = _tiny_loader()()
    base = export(model, tokenizer, tmp_path / "base")
    empty = tmp_path / "not-an-adapter"
    empty.mkdir()
    run = CliRunner().invoke(cli, ["train", "merge", "--model", str(base), "--adapter", str(empty),
                                   "--out", str(tmp_path / "merged")])  # fmt: skip
    assert run.exit_code == 1 and f"cannot merge {empty}" in run.output
    assert not (tmp_path / "merged").exists()


def test_batched_greedy_answers_equal_the_answers_one_at_a_time() -> None:
    from memscribe.cli.train_cmds import _tiny_loader
    from memscribe.train.generation import greedy_answers

    model, tokenizer = _tiny_loader()()
    model.eval()
    prompts = [[{"role": "user", "content": text}] for text in
               ("I live in Oslo.", "We adopted a cat called Pepper last spring, she is tiny.", "Hi!")]  # fmt: skip
    one_by_one = greedy_answers(model, tokenizer, prompts, max_new_tokens=6, batch_size=1)
    assert greedy_answers(model, tokenizer, prompts, max_new_tokens=6, batch_size=3) == one_by_one
    assert len(one_by_one) == 3 and all(isinstance(text, str) for text in one_by_one)
    with pytest.raises(ValueError, match="batch_size"):
        greedy_answers(model, tokenizer, prompts, max_new_tokens=6, batch_size=0)
