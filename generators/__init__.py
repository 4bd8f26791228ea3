"""Generators: pure functions from a specification to media bytes."""
