"""cogforge: build, annotate, check, release and score cognitive benchmarks for multimodal models."""

__version__ = "0.1.0"
