"""CONSTRUCTURE's scoring strata: the paper's Figures 9 and 10 report accuracy by the
abstraction level of the concept a question is about (level 0 = most abstract)."""

from __future__ import annotations


def strata(row: dict) -> dict[str, str | None]:
    meta = row["meta"]
    level = meta["concept"]["level"] if row["task"] == "atomic" else meta["question_level"]
    return {"concept level": None if level is None else f"level {level}", "split": row["split"]}
