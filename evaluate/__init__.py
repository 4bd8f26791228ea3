"""Evaluation: a release plus model outputs become scores and reports."""
