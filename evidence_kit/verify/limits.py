"""Limits of verify by URL that the command line names before anything is fetched (so that verifying a folder
never imports the HTTP client)."""

from __future__ import annotations

__all__ = ["DEFAULT_DEADLINE_S"]

# The whole download, every file: a server that answers every read in time, a byte at a time, is still cut off.
DEFAULT_DEADLINE_S = 600.0
