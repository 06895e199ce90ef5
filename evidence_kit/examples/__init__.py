"""Example evidence that the toolkit can write for demos and tests."""
