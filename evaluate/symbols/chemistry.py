"""Chemistry's further measure: the corrected molecule of a structure-error item, by
canonical SMILES (RDKit). Formulas and coefficient lists are judged by
:mod:`evaluate.symbols.judge` from ``meta.answer_format``."""

from __future__ import annotations

import re

_CORRECTED = re.compile(r"corrected\s+smiles\s*[:=]\s*[`\"']*([^\s`\"']+)", re.I)


def corrected_smiles(response: str) -> str | None:
    found = _CORRECTED.findall(response or "")
    return found[-1] if found else None


def extra(row: dict, response: str | None) -> dict:
    """For a structure-error item: is the corrected molecule the intended one (canonical SMILES)?"""
    if row["task"] != "chemistry-structure-error":
        return {}
    from cogforge.generators.symbols._molecules import canonical

    given = corrected_smiles(response or "")
    ok = given is not None and canonical(given) is not None and canonical(given) == canonical(
        row["meta"]["reference_smiles"])
    return {"corrected molecule": ok}
