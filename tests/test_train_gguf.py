"""GGUF export: llama.cpp's converter (from the llama-cpp-python sdist) turns the tiny model into a GGUF file
that reads back with its tensors, vocabulary and chat template, and whose weights give the same logits.

The converter is not on PyPI as a module: the conversion test runs when a llama-cpp-python sdist is at
``MEMSCRIBE_LLAMA_CPP_SDIST`` or in ``.cache/llama-cpp/`` (``make test-train`` downloads it there) and is
skipped otherwise. The error cases need nothing.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="the train extra is not installed")
pytest.importorskip("gguf", reason="the train extra is not installed")

from memscribe.errors import ConfigError, RuntimeFailure
from memscribe.train.to_gguf import convert_to_gguf, gguf_summary, unpack_converter

ROOT = Path(__file__).resolve().parent.parent


def _sdist() -> Path | None:
    named = os.environ.get("MEMSCRIBE_LLAMA_CPP_SDIST")
    if named:
        return Path(named)
    found = sorted((ROOT / ".cache" / "llama-cpp").glob("llama_cpp_python-*.tar.gz"))
    return found[-1] if found else None


@pytest.fixture(scope="module")
def converter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sdist = _sdist()
    if sdist is None or not sdist.is_file():
        pytest.skip("no llama-cpp-python sdist (make test-train downloads one to .cache/llama-cpp)")
    return unpack_converter(sdist, tmp_path_factory.mktemp("llama-cpp"))


@pytest.mark.timeout(1800)  # the converter is a subprocess that imports torch
def test_the_tiny_model_converts_to_a_gguf_that_reads_back_with_the_same_logits(
    converter: Path, tmp_path: Path
) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    from memscribe.train.stages import export
    from memscribe.train.tiny import tiny_llama_tokenizer, tiny_model

    texts = ["Caroline moved from Seattle to Sydney in May 2023.", '{"operations": [{"op": "ADD"}]}'] * 4
    tokenizer = tiny_llama_tokenizer(texts)
    model = tiny_model(tokenizer)
    folder = export(model, tokenizer, tmp_path / "hf")
    written = convert_to_gguf(folder, tmp_path / "out" / "tiny.gguf", converter=converter, outtype="f32")

    summary = gguf_summary(written)
    assert summary["architecture"] == "llama"
    assert summary["block_count"] == 2
    assert summary["tensors"] == len([n for n in model.state_dict() if "rotary" not in n and "lm_head" not in n])
    assert summary["vocab_size"] == len(tokenizer)
    assert summary["tokenizer_model"] == "llama"
    assert summary["chat_template"] is True
    assert not list(written.parent.glob("*.partial"))

    reloaded = AutoModelForCausalLM.from_pretrained(written.parent, gguf_file=written.name)
    ids = torch.tensor([tokenizer("Caroline moved to Sydney.")["input_ids"]])
    with torch.no_grad():
        assert torch.allclose(model(ids).logits, reloaded(ids).logits, atol=1e-4)


def test_a_failed_conversion_says_why_and_leaves_no_file(tmp_path: Path) -> None:
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    failing = tmp_path / "convert_hf_to_gguf.py"
    failing.write_text("import sys\nopen(sys.argv[3], 'w').write('half')\nsys.exit('no architecture')\n")
    with pytest.raises(RuntimeFailure, match="no architecture"):
        convert_to_gguf(folder, tmp_path / "w.gguf", converter=failing)
    assert list(tmp_path.glob("w.gguf*")) == []


def test_bad_arguments_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a Hugging Face model folder"):
        convert_to_gguf(tmp_path, tmp_path / "w.gguf", converter=tmp_path / "c.py")
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="no llama\\.cpp converter"):
        convert_to_gguf(tmp_path, tmp_path / "w.gguf", converter=tmp_path / "c.py")
    with pytest.raises(ConfigError, match="unknown GGUF weight type"):
        convert_to_gguf(tmp_path, tmp_path / "w.gguf", converter=tmp_path / "c.py", outtype="q2")


def test_an_archive_without_the_converter_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "other-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        data = b"print('hi')\n"
        info = tarfile.TarInfo("other-1.0/setup.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(ConfigError, match="not a llama-cpp-python sdist"):
        unpack_converter(archive, tmp_path / "x")
    with pytest.raises(ConfigError, match="no llama-cpp-python sdist"):
        unpack_converter(tmp_path / "missing.tar.gz", tmp_path / "x")
