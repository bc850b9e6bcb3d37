"""Hermes plugin folder for memscribe: copy to ``$HERMES_HOME/plugins/memscribe/`` and set
``memory.provider: memscribe`` in ``$HERMES_HOME/config.yaml``. memscribe must be installed in Hermes'
Python environment (``pip install memscribe``)."""

from memscribe.hub.feed.hermes import MemscribeProvider, register

__all__ = ["MemscribeProvider", "register"]
