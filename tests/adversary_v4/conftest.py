"""The auditor's signing keys (tests/verify/conftest.py), for the signed timing site."""

from tests.verify.conftest import keypair

__all__ = ["keypair"]
