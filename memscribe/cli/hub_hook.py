"""``python -m memscribe.cli.hub_hook TOOL``: the recall hook client of :mod:`memscribe.hub.feed.hook`.

Installed hooks run that file by its path (``python -S …/memscribe/hub/feed/hook.py TOOL``), which skips
this package's imports; this module keeps the older ``-m`` form working, and runs the same file.
"""

from __future__ import annotations

import os
import runpy
import sys

__all__ = ["ask", "main", "run", "socket_path"]

if __name__ == "__main__":  # by path, so that memscribe.hub (the importer) is not loaded on the prompt path
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runpy.run_path(os.path.join(here, "hub", "feed", "hook.py"), run_name="__main__")
    sys.exit(0)
else:
    from memscribe.hub.feed.hook import ask, main, run, socket_path
