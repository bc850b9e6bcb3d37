"""The two training stages over TRL, LoRA via peft, and export to a folder a model server can load.

Needs the ``train`` extra (torch, transformers, TRL, peft); importing this module without it raises a
:class:`~memscribe.errors.ConfigError` that says how to install it.

* :func:`sft` — stage 1: supervised distillation of a teacher writer's answers (the ``sft`` rows of
  :mod:`memscribe.train.dataset`) with TRL's ``SFTTrainer``, the loss on the answer only.
* :func:`grpo` — stage 2: TRL's ``GRPOTrainer`` on the ``rl`` rows; the reward of a completion is
  :meth:`memscribe.train.environment.MemoryEnv.step` on its chunk (:class:`EnvReward`).
* :func:`export` — merges a LoRA adapter (when there is one) and saves model and tokenizer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memscribe.errors import ConfigError

try:
    import torch
    from datasets import Dataset
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import PreTrainedModel, PreTrainedTokenizerBase, PrinterCallback
    from trl.trainer.distillation_config import DistillationConfig
    from trl.trainer.distillation_trainer import DistillationTrainer
    from trl.trainer.grpo_config import GRPOConfig
    from trl.trainer.grpo_trainer import GRPOTrainer
    from trl.trainer.sft_config import SFTConfig
    from trl.trainer.sft_trainer import SFTTrainer
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ConfigError(f'the training stages need the train extra: pip install "memscribe[train]" ({error})') from None

from memscribe.train.dataset import scenario_from_dict
from memscribe.train.environment import MemoryEnv
from memscribe.train.generation import device, prompt_ids
from memscribe.train.judge import Judgement, StepJudge
from memscribe.train.rewards import RewardWeights

__all__ = [
    "EnvReward",
    "distill",
    "export",
    "grpo",
    "load_model",
    "lora",
    "same_tokenizer",
    "serving_command",
    "sft",
]


def load_model(path: str, gguf: str | None = None, *, adapter: str | None = None) -> tuple[Any, Any]:
    """Model and tokenizer from a Hugging Face folder, or from the GGUF file ``gguf`` inside ``path``; with
    ``adapter`` (a folder a peft model saved, e.g. a demo seed's ``adapter``) that LoRA adapter merged into it.
    The model is moved to a CUDA device when PyTorch sees one.

    transformers dequantises a GGUF checkpoint to full-precision weights but still marks the model as
    GGUF-quantised, and its Trainer refuses to train such a model; the mark is removed here, since nothing
    quantised is left. A tokenizer without a pad token gets its end-of-sequence token as one.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    options = {"gguf_file": gguf} if gguf else {}
    # use_kernels=False: on a CUDA device transformers otherwise swaps layers for kernels it downloads from the
    # Hugging Face hub, and an offline machine fails to load the model at all.
    model: Any = AutoModelForCausalLM.from_pretrained(path, use_kernels=False, **options)
    tokenizer = AutoTokenizer.from_pretrained(path, **options)
    quantizer = getattr(model, "hf_quantizer", None)
    if gguf and quantizer is not None:
        quantizer.remove_quantization_config(model)  # transformers' own way to drop the mark
        for module in model.modules():
            config: Any = getattr(module, "config", None)
            if getattr(config, "_is_quantized", False):
                config._is_quantized = False
    if adapter is not None:
        model = PeftModel.from_pretrained(model, adapter).merge_and_unload()
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model.to(device()), tokenizer


def lora(model: PreTrainedModel, *, rank: int = 8, alpha: int = 16) -> Any:
    """``model`` with a LoRA adapter on every linear projection (attention and MLP).

    A mixture-of-experts model keeps its experts as fused 3-D parameters (``mlp.experts.gate_up_proj`` and
    ``down_proj`` in transformers 5): those are adapted by name (``target_parameters``) beside its linear
    layers, its routers are left as they are, and the routers' load-balancing loss is turned on, so that
    fine-tuning does not collapse routing onto a few experts."""
    experts = _experts(model)
    targets: Any = "all-linear"
    extra: dict[str, Any] = {}
    if experts:  # peft's "all-linear" would adapt the routers too
        targets = sorted({name.rsplit(".", 1)[-1] for name, module in model.named_modules()
                          if isinstance(module, torch.nn.Linear) and not name.endswith("lm_head")})  # fmt: skip
        extra = {"target_parameters": experts}
        model.config.output_router_logits = True
    config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0, target_modules=targets, task_type="CAUSAL_LM",
                        **extra)  # fmt: skip
    return get_peft_model(model, config)


def _experts(model: PreTrainedModel) -> list[str]:
    """The fused expert weights (``mlp.experts.gate_up_proj``, ...), named from the layer down as peft matches
    them; empty for a dense model."""
    experts = set()
    for name, parameter in model.named_parameters():
        parts = name.split(".")
        if parameter.dim() == 3 and "experts" in parts[:-1]:
            experts.add(".".join(parts[parts.index("experts") - 1 :]))
    return sorted(experts)


def _run_trainer(
    trainer_class: Any, config_class: Any, out_dir: Path, rows: Sequence[dict[str, Any]], *, steps: int, lr: float,
    seed: int, batch_size: int = 2, config: dict[str, Any] | None = None, **trainer_args: Any,
) -> Any:  # fmt: skip
    """One TRL trainer over ``rows`` with the settings every stage shares (CPU unless CUDA is seen, no
    checkpoints, no reporting, a loss logged every step), trained; returns the trainer."""
    args = config_class(
        output_dir=str(out_dir),
        max_steps=steps,
        learning_rate=lr,
        per_device_train_batch_size=batch_size,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        seed=seed,
        use_cpu=not torch.cuda.is_available(),
        bf16=_bf16(),  # TRL defaults to bf16 autocast, which runs ~10x slower on a CPU without bf16 matmuls
        disable_tqdm=True,
        **(config or {}),
    )
    trainer = trainer_class(args=args, train_dataset=Dataset.from_list(list(rows)), **trainer_args)
    # With its progress bar off, the Trainer prints every log line to stdout, which would corrupt the CLI's
    # --json output; the losses are read from trainer.state.log_history instead.
    trainer.remove_callback(PrinterCallback)
    trainer.train()
    return trainer


def _bf16() -> bool:
    """bf16 mixed precision only on a CUDA device that supports it; fp32 on a CPU."""
    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())


def _losses(trainer: Any) -> list[float]:
    return [float(e["loss"]) for e in trainer.state.log_history if "loss" in e]


def sft(
    model: Any,
    tokenizer: PreTrainedTokenizerBase,
    rows: Sequence[dict[str, Any]],
    out_dir: Path,
    *,
    steps: int = 20,
    lr: float = 2e-4,
    max_length: int = 1024,
    batch_size: int = 2,
    seed: int = 0,
) -> list[float]:
    """Stage 1 on ``sft`` rows; returns the training loss of every step. The loss is on the answer only:
    each row is split into its prompt (the request) and its completion (the assistant's answer)."""
    kept = [row for row in rows if len(prompt_ids(tokenizer, row["messages"][:-1])) < max_length]
    if not kept:
        raise ValueError(f"every request is longer than max_length={max_length} tokens: nothing left to learn")
    data = [{"prompt": row["messages"][:-1], "completion": row["messages"][-1:]} for row in kept]
    trainer = _run_trainer(SFTTrainer, SFTConfig, out_dir, data, steps=steps, lr=lr, seed=seed,
                           batch_size=batch_size, config={"max_length": max_length, "completion_only_loss": True},
                           model=model, processing_class=tokenizer)  # fmt: skip
    return _losses(trainer)


def distill(
    model: Any,
    teacher: Any,
    tokenizer: PreTrainedTokenizerBase,
    rows: Sequence[dict[str, Any]],
    out_dir: Path,
    *,
    steps: int = 20,
    lr: float = 1e-4,
    max_completion_length: int = 256,
    seed: int = 0,
) -> list[float]:
    """Stage 1, token-level on-policy distillation (TRL ``DistillationTrainer``): the student answers the
    ``rl`` rows' requests itself and is trained towards ``teacher``'s next-token distribution (generalised JSD).
    Teacher and student must share the tokenizer. Returns the loss of every step."""
    trainer = _run_trainer(DistillationTrainer, DistillationConfig, out_dir, [{"prompt": r["prompt"]} for r in rows],
                           steps=steps, lr=lr, seed=seed, config={"max_completion_length": max_completion_length},
                           model=model, teacher_model=teacher, processing_class=tokenizer)  # fmt: skip
    return _losses(trainer)


def same_tokenizer(first: PreTrainedTokenizerBase, second: PreTrainedTokenizerBase) -> bool:
    """Whether two tokenizers map every token to the same id (token-level distillation needs it)."""
    return bool(first.get_vocab() == second.get_vocab())


class EnvReward:
    """A GRPO reward function: each completion's total reward from its scenario's :class:`MemoryEnv`.

    With a ``judge`` (:class:`~memscribe.train.judge.StepJudge`), ``judge_weight`` times its mean operation
    score is added; a rollout the judge failed on gets no judge term (``judge_failed`` 1 in its history entry,
    the error in ``judgements``), never a silent zero. With ``carry``, each scenario's environment starts
    chunk k + 1 from the bank the latest rollout of chunk k wrote (:meth:`MemoryEnv.start`), not the reference's."""

    __name__ = "memory_reward"

    def __init__(
        self, workdir: Path, *, horizon: int = 1, weights: RewardWeights | None = None, judge: StepJudge | None = None,
        judge_weight: float = 0.5, carry: bool = False, env_weight: float = 1.0,
    ) -> None:  # fmt: skip
        self.workdir = workdir
        self.env_weight = env_weight
        self.carry = carry
        self.horizon = horizon
        self.weights = weights or RewardWeights()
        self.judge = judge
        self.judge_weight = judge_weight
        self.envs: dict[str, MemoryEnv] = {}
        self.history: list[dict[str, float | int]] = []
        self.judgements: list[Judgement] = []

    def env(self, scenario: dict[str, Any] | str, protocol: str = "pro") -> MemoryEnv:
        if isinstance(scenario, str):
            scenario = json.loads(scenario)
        assert isinstance(scenario, dict)
        key = f"{protocol}-{scenario['scenario_id']}" if protocol != "pro" else str(scenario["scenario_id"])
        if key not in self.envs:
            self.envs[key] = MemoryEnv(
                scenario_from_dict(scenario),
                self.workdir / key,
                horizon=self.horizon,
                protocol=protocol,
                carry=self.carry,
            )
        return self.envs[key]

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], *, scenario: Sequence[Any], chunk: Sequence[Any],
        protocol: Sequence[Any] | None = None, **_: Any,
    ) -> list[float]:  # fmt: skip
        rewards = []
        names = protocol if protocol is not None else ["pro"] * len(completions)
        for prompt, completion, data, k, name in zip(prompts, completions, scenario, chunk, names, strict=True):
            env, text = self.env(data, str(name)), _text(completion)
            reward = env.step(int(k), text)
            entry, total = reward.as_dict(self.weights), self.env_weight * reward.total(self.weights)
            if self.judge is not None:
                judgement = self.judge.judge(_messages(prompt), env.operations(int(k), text))
                self.judgements.append(judgement)
                entry["judge_failed"] = int(judgement.score is None)
                if judgement.score is not None:
                    entry["judge"] = round(judgement.score, 6)
                    total += self.judge_weight * judgement.score
            entry["total"] = round(total, 6)
            self.history.append(entry)
            rewards.append(total)
        return rewards


def _messages(prompt: Any) -> list[dict[str, Any]]:
    """A prompt as chat messages: TRL passes the row's message list, or a plain string."""
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    return [dict(m) for m in prompt if isinstance(m, dict)]


def _text(completion: Any) -> str:
    """A completion's text: TRL passes a string, or for chat prompts a list with one assistant message."""
    if isinstance(completion, str):
        return completion
    return "".join(str(m.get("content", "")) for m in completion if isinstance(m, dict))


def grpo(
    model: Any,
    tokenizer: PreTrainedTokenizerBase,
    rows: Sequence[dict[str, Any]],
    out_dir: Path,
    *,
    steps: int = 10,
    lr: float = 1e-5,
    generations: int = 4,
    max_completion_length: int = 256,
    horizon: int = 1,
    seed: int = 0,
    judge: StepJudge | None = None,
    judge_weight: float = 0.5,
    carry: bool = False,
    env_weight: float = 1.0,
) -> EnvReward:
    """Stage 2 on ``rl`` rows; returns the reward function, whose ``history`` holds every scored rollout.
    ``judge`` adds the step-level teacher judge's term, ``carry`` carries policy-written banks across
    chunks, and ``env_weight=0`` leaves the judge's score alone as the reward (:class:`EnvReward`)."""
    data = [
        {"prompt": r["prompt"], "scenario": json.dumps(r["scenario"]), "chunk": r["chunk"],
         "protocol": r.get("protocol", "pro")}
        for r in rows
    ]  # fmt: skip
    reward = EnvReward(out_dir / "env", horizon=horizon, judge=judge, judge_weight=judge_weight, carry=carry,
                       env_weight=env_weight)  # fmt: skip
    config = {"num_generations": generations, "max_completion_length": max_completion_length, "temperature": 1.0,
              "beta": 0.0}  # fmt: skip
    _run_trainer(GRPOTrainer, GRPOConfig, out_dir, data, steps=steps, lr=lr, seed=seed, batch_size=generations,
                 config=config, model=model, reward_funcs=[reward], processing_class=tokenizer)  # fmt: skip
    return reward


def export(model: Any, tokenizer: PreTrainedTokenizerBase, out_dir: Path) -> Path:
    """Merge a LoRA adapter into its base (when ``model`` has one) and save model and tokenizer."""
    merged = model.merge_and_unload() if isinstance(model, PeftModel) else model
    out_dir.mkdir(parents=True, exist_ok=True)
    merged.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    return out_dir


def serving_command(folder: Path) -> str:
    """How to serve an exported folder as the ``pro`` writer's model (OpenAI-compatible)."""
    return (
        f"vllm serve {folder} --served-model-name memscribe-writer --port 8000\n"
        f"# or: python -m sglang.launch_server --model-path {folder} --port 8000\n"
        f"# or: memscribe train export-gguf --model {folder} --out writer.gguf --llama-cpp-sdist SDIST.tar.gz\n"
        "#     llama-server -m writer.gguf --alias memscribe-writer --port 8000\n"
        "memscribe --writer pro --llm vllm:memscribe-writer --llm-base-url http://127.0.0.1:8000/v1 add ..."
    )
