"""Built-in history sources, one module per tool family. Each is registered through the
``memscribe.hub_sources`` entry-point group in memscribe's package metadata, like any third-party source."""
