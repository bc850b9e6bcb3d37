"""Convert an exported Hugging Face folder to one GGUF file for llama.cpp (``llama-server``, llama-cpp-python).

The conversion is llama.cpp's own ``convert_hf_to_gguf.py``. No PyPI package ships it as a module, but the
llama-cpp-python sdist vendors llama.cpp, converter included, with its matching ``gguf-py``.
:func:`unpack_converter` takes the three parts the converter needs out of that sdist (``pip download
llama-cpp-python --no-binary :all: --no-deps``), and :func:`convert_to_gguf` runs it in a subprocess with this
interpreter (it imports torch, numpy, safetensors and transformers, which the train extra installs).
:func:`gguf_summary` reads a written file back with the ``gguf`` package's reader.

Needs only the standard library to import; the conversion needs the train extra, the summary the ``gguf``
package.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

from memscribe.errors import ConfigError, RuntimeFailure

__all__ = ["OUTTYPES", "convert_to_gguf", "gguf_summary", "llama_serving_command", "unpack_converter"]

OUTTYPES = ("f32", "f16", "bf16", "q8_0")
_VENDORED = "vendor/llama.cpp/"
_PARTS = ("convert_hf_to_gguf.py", "conversion/", "gguf-py/")  # the script, its model classes, its gguf-py


def unpack_converter(sdist: Path, into: Path) -> Path:
    """Extract llama.cpp's converter from a llama-cpp-python sdist (``.tar.gz``) into ``into``; returns the
    path of ``convert_hf_to_gguf.py``. Only the converter, its ``conversion`` package and ``gguf-py`` are
    extracted, with tarfile's ``data`` filter (no absolute paths, links out of the folder or devices)."""
    if not sdist.is_file():
        raise ConfigError(f"no llama-cpp-python sdist at {sdist}")
    try:
        with tarfile.open(sdist, "r:gz") as archive:
            members = [m for m in archive.getmembers() if _wanted(m.name)]
            if not any(m.name.endswith(_VENDORED + _PARTS[0]) for m in members):
                raise ConfigError(f"{sdist} holds no {_VENDORED}{_PARTS[0]}: not a llama-cpp-python sdist")
            root = members[0].name.split("/", 1)[0]
            archive.extractall(into, members=members, filter="data")
    except (tarfile.TarError, OSError) as error:
        raise ConfigError(f"cannot read {sdist} as a .tar.gz: {error}") from None
    return into / root / _VENDORED / _PARTS[0]


def _wanted(name: str) -> bool:
    head, _, rest = name.partition("/")
    return bool(head) and rest.startswith(_VENDORED) and rest[len(_VENDORED) :].startswith(_PARTS)


def convert_to_gguf(
    folder: Path, outfile: Path, *, converter: Path, outtype: str = "f16", timeout: float = 3600.0
) -> Path:
    """Convert the Hugging Face model ``folder`` to the GGUF file ``outfile`` with llama.cpp's ``converter``
    (``convert_hf_to_gguf.py``), weights stored as ``outtype``. Raises :class:`ConfigError` for a missing
    folder, converter or unknown type, and :class:`RuntimeFailure` with the converter's last output lines when
    the conversion fails (no half-written file is left)."""
    if outtype not in OUTTYPES:
        raise ConfigError(f"unknown GGUF weight type {outtype!r}; known: {', '.join(OUTTYPES)}")
    if not (folder / "config.json").is_file():
        raise ConfigError(f"{folder} is not a Hugging Face model folder (no config.json)")
    if not converter.is_file():
        raise ConfigError(f"no llama.cpp converter at {converter} (see unpack_converter)")
    outfile.parent.mkdir(parents=True, exist_ok=True)
    partial = outfile.with_name(outfile.name + ".partial")
    command = [sys.executable, str(converter), str(folder), "--outfile", str(partial), "--outtype", outtype]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        partial.unlink(missing_ok=True)
        raise RuntimeFailure(f"the GGUF conversion of {folder} ran past {timeout:.0f} s") from None
    if done.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise RuntimeFailure(f"convert_hf_to_gguf.py failed on {folder} (exit {done.returncode}):\n{tail}")
    partial.replace(outfile)
    return outfile


def gguf_summary(path: Path) -> dict[str, Any]:
    """What a GGUF file holds, read back with the ``gguf`` package: architecture, tensor count, vocabulary
    size, tokenizer model and whether a chat template is embedded."""
    from gguf import GGUFReader  # the train extra installs it; imported here so this module needs nothing

    reader = GGUFReader(str(path))

    def field(name: str) -> Any:
        found = reader.get_field(name)
        return None if found is None else found.contents()

    architecture = field("general.architecture")
    tokens = field("tokenizer.ggml.tokens") or []
    return {
        "path": str(path),
        "architecture": architecture,
        "tensors": len(reader.tensors),
        "block_count": field(f"{architecture}.block_count"),
        "vocab_size": len(tokens),
        "tokenizer_model": field("tokenizer.ggml.model"),
        "chat_template": field("tokenizer.chat_template") is not None,
        "bytes": path.stat().st_size,
    }


def llama_serving_command(gguf_file: Path, *, port: int = 8000, name: str = "memscribe-writer") -> str:
    """How to serve a GGUF file as the ``pro`` writer's model with llama.cpp (OpenAI-compatible)."""
    return (
        f"llama-server -m {gguf_file} --alias {name} --port {port} --ctx-size 8192\n"
        f"# or: python -m llama_cpp.server --model {gguf_file} --model_alias {name} --port {port} --n_ctx 8192\n"
        f"memscribe --writer pro --llm llamacpp:{name} --llm-base-url http://127.0.0.1:{port}/v1 add ..."
    )
