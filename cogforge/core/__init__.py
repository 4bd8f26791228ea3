"""The shared core: item record, build writer, config schemas, positions, parallel drawing,
statistics, plots, the SVG checker, the shortcut heuristics, the human decisions file, the
benchmark registry and reading a release.

It imports nothing of the layers above it (generators, builders, qc, exports, annotation,
evaluate, the command line); the import-linter contract in pyproject.toml keeps it so.
"""
