"""evidence-kit: turn LLM-serving A/B/A experiments into decisions anyone can check."""

__all__ = ["__version__"]

__version__ = "0.1.0"
