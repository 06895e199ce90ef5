"""Fixtures of tests/verify reused: the redacted reference decision and a signing keypair."""

from tests.verify.conftest import keypair, redacted_master  # noqa: F401
