"""The ``memscribe`` command line (click + rich), an application over the public SDK."""
