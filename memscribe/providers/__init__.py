"""Providers: embedders and chat models behind narrow ports."""
