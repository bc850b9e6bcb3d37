"""Native dependencies that must load together in one process, in any order."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("order", [("usearch.index", "onnxruntime"), ("onnxruntime", "usearch.index")])
def test_vector_index_and_onnx_runtime_load_in_either_order(order: tuple[str, str]) -> None:
    # usearch builds that bundle numkong crashed the interpreter when onnxruntime was imported after them.
    code = f"import {order[0]}; import {order[1]}; print('ok')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-500:]
