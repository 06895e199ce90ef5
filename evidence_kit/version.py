"""The package's version, in one place every layer may read."""

__all__ = ["__version__"]

__version__ = "0.1.0"
