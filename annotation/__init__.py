"""Annotation: Label Studio projects out, human decisions back in as data."""
