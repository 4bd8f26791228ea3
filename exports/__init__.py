"""Exports: a checked build becomes an immutable, versioned release."""
