"""The OpenClaw plugin's own tests (`node --test` in integrations/openclaw) against a real store, run with
this interpreter's memscribe."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = Path(__file__).parents[1] / "integrations" / "openclaw"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_openclaw_plugin_passes_node_test() -> None:
    assert NODE is not None
    env = {**os.environ, "MEMSCRIBE_PYTHON": sys.executable}
    done = subprocess.run([NODE, "--test", "test/"], cwd=PLUGIN, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# pass 4" in done.stdout and "# fail 0" in done.stdout
