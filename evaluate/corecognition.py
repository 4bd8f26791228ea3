"""Scoring CoreCognition as the paper does (Li et al., ICML 2025, section 3.3 and 5).

The shared scorer extracts answers in layers (templates and the deterministic parser
first, the judge only when they fail; the fail rate is reported) and, when the
predictions hold every rotation of the options, scores circular evaluation (the
proportion of rotations answered correctly). This module adds:

* strata: concept, stage, family, type (MC or TF) and role (control or manipulated);
* per-concept and per-stage accuracy, raw and normalised by chance as the paper's
  Appendix E does (accuracy / chance, since concepts mix true/false and 2-5 options);
* the concept-hacking table per concept (the paper's Table 4): for each pair, *core
  knowledge* when both halves are right, *shortcut* when the control is right and the
  manipulated twin wrong, *core deficit* when the control is wrong (whatever the twin);
  an item is right when answered correctly in the options' original order.
"""

from __future__ import annotations

from collections import defaultdict

STAGES = ("Sensorimotor", "Concrete Operational", "Formal Operational")
OUTCOMES = ("core knowledge", "shortcut", "core deficit")


def strata(row: dict) -> dict[str, str]:
    m = row["meta"]
    return {"concept": m["concept"], "stage": m["stage"], "family": m["family"], "type": m["type"],
            "role": m["role"]}


def extra(row: dict, response: str | None) -> dict:
    """What the pair table needs: each record's pair and role."""
    return {"pair_id": row["meta"]["pair_id"], "role": row["meta"]["role"], "options": len(row["options"])}


def _accuracy(records: list[dict]) -> dict:
    n = len(records)
    if not n:
        return {"n": 0, "accuracy": None, "chance": None, "normalised": None}
    acc = sum(r["correct"] for r in records) / n
    chance = sum(1 / r["extra"]["options"] for r in records) / n
    return {"n": n, "accuracy": acc, "chance": chance, "normalised": acc / chance}


def pair_outcome(control: bool, manipulated: bool) -> str:
    """The paper's Table 4: a wrong control is a core deficit whatever the twin says."""
    if not control:
        return "core deficit"
    return "core knowledge" if manipulated else "shortcut"


def tables(records: list[dict]) -> dict:
    by_concept, by_stage, pairs = defaultdict(list), defaultdict(list), defaultdict(dict)
    for r in records:
        s = r["strata"]
        by_concept[s["concept"]].append(r)
        by_stage[s["stage"]].append(r)
        pairs[r["extra"]["pair_id"]][r["extra"]["role"]] = (s["concept"], r["correct"])
    hacking = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
    for members in pairs.values():
        if set(members) != {"control", "manipulated"}:
            continue  # half a pair scored (a split or a file of one half)
        concept = members["control"][0]
        hacking[concept][pair_outcome(members["control"][1], members["manipulated"][1])] += 1
    total = dict.fromkeys(OUTCOMES, 0)
    for counts in hacking.values():
        for k, v in counts.items():
            total[k] += v
    return {"by_concept": {c: _accuracy(rs) for c, rs in sorted(by_concept.items())},
            "by_stage": {st: _accuracy(by_stage[st]) for st in STAGES if st in by_stage},
            "concept_hacking": {c: dict(v) for c, v in sorted(hacking.items())} | {"all": total}}


def tables_markdown(results: dict) -> list[str]:
    def pct(x) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    models = results["models"]
    first = next(iter(models.values()))["tables"]
    md = ["", "## Accuracy per concept (%; normalised = accuracy / chance, the paper's Appendix E)", "",
          "| concept | n | " + " | ".join(f"{m} | {m} norm." for m in models) + " |",
          "|" + " --- |" * (2 + 2 * len(models))]
    for concept, info in first["by_concept"].items():
        cells = []
        for r in models.values():
            a = r["tables"]["by_concept"].get(concept, {})
            cells += [pct(a.get("accuracy")), "-" if a.get("normalised") is None else f"{a['normalised']:.2f}"]
        md.append(f"| {concept} | {info['n']} | " + " | ".join(cells) + " |")
    md += ["", "## Accuracy per stage (%)", "", "| stage | " + " | ".join(models) + " |",
           "|" + " --- |" * (len(models) + 1)]
    for stage in first["by_stage"]:
        md.append(f"| {stage} | " + " | ".join(pct(r["tables"]["by_stage"].get(stage, {}).get("accuracy"))
                                               for r in models.values()) + " |")
    md += ["", "## Concept hacking (pairs; the paper's Table 4)", "",
           "Core knowledge: control and twin right. Shortcut: control right, twin wrong. "
           "Core deficit: control wrong.", "",
           "| concept | " + " | ".join(f"{m}: {o}" for m in models for o in OUTCOMES) + " |",
           "|" + " --- |" * (1 + len(models) * len(OUTCOMES))]
    for concept in first["concept_hacking"]:
        md.append(f"| {concept} | " + " | ".join(str(r["tables"]["concept_hacking"].get(concept, {}).get(o, 0))
                                                 for r in models.values() for o in OUTCOMES) + " |")
    return md
