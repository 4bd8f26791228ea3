"""CogEvolve's scoring: ordering answers, per-tier tables and the masked control.

Tiers 1 and 2 are multiple choice and scored by the generic scorer; this module adds
their tables (accuracy per task, accuracy per cognitive role and the role confusion
matrix). Tier 3 (``3a``, ``3a-masked``, ``3b``, ``3b-svg``) asks for an order of
meaning IDs, ending with ``Final Sequence: [B] -> [A] -> [C]``; the gold answer is
written ``B -> A -> C``.

Reading a sequence (``parse_sequence``). The last "Final Sequence" marker whose
line, or else the next non-empty line, reads as a sequence wins; with no such
marker, the last line that is nothing but a sequence of IDs joined by ``->``,
``→``, ``>``, ``,`` or ``;``. An ID may be written ``B``,
``[B]``, ``[ID B]``, ``Image B``, ``"B"`` (so a JSON list reads too); markdown
emphasis, backticks, a final full stop and parenthesised glosses are ignored. The
candidate is chosen by its form alone and only then checked: a repeated ID, or a set
of IDs other than the item's, makes the answer unparsed; an earlier draft in the
reasoning does not rescue a malformed final sequence.

Tier-3 metrics, per item:

* exact match (EM): the predicted order is the gold order;
* pairwise accuracy (PA): the share of the n(n-1)/2 gold pairs kept in order;
* Kendall's tau between the gold positions and the predicted positions. For a
  permutation tau = 2 * PA - 1 (the paper's identity).

An unparsed answer (or a missing one) counts EM 0, PA 0 and tau 0, and the tables
report how many there were, with PA and tau over the parsed answers alone beside
the all-item means (on those the identity holds exactly).

The scorer's accuracy (``is_correct``) sees the answer that ``evaluate/extract.py``
found (text after "Final Sequence:" or a short reply); the tables parse each full
response, so a sequence given only as the last line of a long reply counts in the
tables' EM but not in the scorer's accuracy.
"""

from __future__ import annotations

import math
import re

TIER1 = ("1a", "1b-i2t", "1b-t2i")
ROLES = ("Prototype", "Metaphor", "Metonymy")
TIER3 = ("3a", "3a-masked", "3b", "3b-svg")
PATH_STRATA = ("N=2", "N>2")

_ARROW = re.compile(r"[–—]+>|[→⟶➔➜➝➞➡⇒⟹⇨]")
_SEPARATOR = re.compile(r"-+>|=+>|>|,|;")
_ID = re.compile(r"[\[(\"'{]*\s*(?:(?i:id|image|img|meaning|sense|definition|option)\s*[#:]?\s*)?"
                 r"([A-Za-z])\s*[\])\"'}]*")
_GLOSS = re.compile(r"\(([^()]*)\)")
_MARKER = re.compile(r"final\s+sequence\s*[*_]*\s*(?:is\b|:|=)?\s*[*_]*\s*:?", re.I)


def _ids_in(segment: str, lenient: bool) -> list[str] | None:
    """The IDs of a segment that is nothing but a sequence of IDs, else None.

    ``lenient`` (after a "Final Sequence" marker) also takes lower-case IDs, a single ID
    and IDs separated by spaces alone; a bare line needs capitals and a separator.
    """
    text = _ARROW.sub("->", segment)
    text = _GLOSS.sub(lambda m: m.group(0) if _ID.fullmatch(m.group(1).strip()) else " ", text)
    text = text.replace("*", " ").replace("`", " ").strip().rstrip(".").strip()
    if not text:
        return None
    parts = _SEPARATOR.split(text)
    if len(parts) == 1:
        if not lenient:
            return None
        parts = text.split()
    out = []
    for part in parts:
        m = _ID.fullmatch(part.strip())
        if m is None or (not lenient and not m.group(1).isupper()):
            return None
        out.append(m.group(1).upper())
    return out


def _candidates(text: str):
    """Segments to read, best first: after each marker (last first), then each line (last first)."""
    for m in reversed(list(_MARKER.finditer(text))):
        rest = text[m.end():]
        line, _, after = rest.partition("\n")
        yield line, True
        following = next((l for l in after.splitlines() if l.strip()), None)
        if following is not None:  # "Final Sequence:" alone on its line, the order below it
            yield following, True
    for line in reversed(text.splitlines()):
        yield line, False


def parse_sequence(text: str, ids: list[str] | None = None) -> list[str] | None:
    """The order of IDs a response gives, or None when it gives none that is well formed.

    Args:
        text: the model's response (reasoning included) or an extracted answer.
        ids: the item's IDs; when given, a sequence with another set of IDs is None.
    """
    if not text:
        return None
    for segment, lenient in _candidates(text):
        found = _ids_in(segment, lenient)
        if found is None:
            continue
        if len(set(found)) != len(found):
            return None
        if ids is not None and set(found) != {i.upper() for i in ids}:
            return None
        return found
    return None


def _gold(row_id: str, answer: str) -> list[str]:
    gold = parse_sequence(answer)
    if gold is None or len(gold) < 2:
        raise ValueError(f"item {row_id}: gold answer {answer!r} is not an order of IDs like 'B -> A -> C'")
    return gold


def sequence_scores(predicted: list[str] | None, gold: list[str]) -> dict[str, float]:
    """Exact match, pairwise accuracy and Kendall's tau of one prediction (0, 0, 0 when unparsed)."""
    from scipy.stats import kendalltau

    if predicted is None or set(predicted) != set(gold) or len(predicted) != len(gold):
        return {"exact_match": 0.0, "pairwise_accuracy": 0.0, "kendall_tau": 0.0}
    where = [predicted.index(g) for g in gold]
    pairs = [(i, j) for i in range(len(gold)) for j in range(i + 1, len(gold))]
    kept = sum(where[i] < where[j] for i, j in pairs)
    return {"exact_match": float(predicted == gold), "pairwise_accuracy": kept / len(pairs),
            "kendall_tau": float(kendalltau(list(range(len(gold))), where).statistic)}


# --------------------------------------------------------------------------- scoring plugin


def is_correct(answer: str, row: dict) -> bool:
    """Tier 3: the sequence in ``answer`` is the gold order exactly."""
    if row["task"] not in TIER3:
        raise ValueError(f"item {row['id']}: task {row['task']!r} has open answers, but evaluate/cogevolve.py "
                         f"judges open answers only for {', '.join(TIER3)}")
    gold = _gold(row["id"], row["answer"])
    return parse_sequence(answer, gold) == gold


def random_answer(rng, row: dict) -> str:
    """Tier 3: a uniformly random order of the item's IDs, the guess ``chance`` counts on."""
    gold = _gold(row["id"], row["answer"])
    return " -> ".join(rng.sample(gold, len(gold)))


def chance(row: dict) -> float:
    """Tier 3: one order among n! (multiple choice gets 1/options from the scorer)."""
    if row["task"] in TIER3:
        n = row["meta"].get("n") or len(_gold(row["id"], row["answer"]))
        return 1 / math.factorial(n)
    if row["options"]:
        return 1 / len(row["options"])
    raise ValueError(f"item {row['id']}: no chance level for open task {row['task']!r}")


def strata(row: dict) -> dict[str, str | None]:
    """Path length for tier 3 (the paper's N=2 / N>2), the gold role for tier 2, and the split."""
    meta = row["meta"]
    out: dict[str, str | None] = {}
    if row["task"] in TIER3:
        out["stratum"] = meta.get("stratum")
    elif row["task"] == "2":
        out["role"] = meta.get("role")
    out["split"] = row["split"]
    return out


def _accuracy(records: list[dict]) -> dict:
    return {"n": len(records), "accuracy": sum(r["correct"] for r in records) / len(records)}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ordering(items: list[tuple[dict, bool]]) -> dict:
    """Tier-3 cell: ``items`` are (per-item scores, parsed) pairs."""
    parsed = [s for s, ok in items if ok]
    return {"n": len(items), "unparsed": len(items) - len(parsed),
            "exact_match": _mean([s["exact_match"] for s, _ in items]),
            "pairwise_accuracy": _mean([s["pairwise_accuracy"] for s, _ in items]),
            "kendall_tau": _mean([s["kendall_tau"] for s, _ in items]),
            "pairwise_accuracy_parsed": _mean([s["pairwise_accuracy"] for s in parsed]),
            "kendall_tau_parsed": _mean([s["kendall_tau"] for s in parsed])}


def tables(records: list[dict]) -> dict:
    """The paper's tables from the scorer's per-item records.

    Returns the tiers present: ``tier 1`` (n and accuracy per task), ``tier 2``
    (accuracy per gold role and ``all``; ``confusion`` as {gold role: {predicted role
    or "unparsed": count}}), ``tier 3`` ({task: {N=2, N>2, all: EM, PA, tau, unparsed}},
    each response parsed in full) and ``masked control`` (3a against 3a-masked, with
    ``difference`` = 3a minus 3a-masked: what naming the word adds).
    """
    by_task: dict[str, list[dict]] = {}
    for r in records:
        by_task.setdefault(r["strata"]["task"], []).append(r)
    out: dict[str, dict] = {}
    tier1 = {t: _accuracy(by_task[t]) for t in TIER1 if t in by_task}
    if tier1:
        out["tier 1"] = tier1
    if "2" in by_task:
        group = by_task["2"]
        accuracy = {role: _accuracy([r for r in group if r["truth"] == role])
                    for role in ROLES if any(r["truth"] == role for r in group)}
        confusion = {}
        for role in accuracy:
            row = dict.fromkeys([*ROLES, "unparsed"], 0)
            for r in group:
                if r["truth"] == role:
                    row[r["answer"] if r["answer"] in ROLES else "unparsed"] += 1
            confusion[role] = row
        out["tier 2"] = {"accuracy": accuracy | {"all": _accuracy(group)}, "confusion": confusion}
    tier3 = {}
    for task in TIER3:
        if task not in by_task:
            continue
        cells: dict[str, list[tuple[dict, bool]]] = {s: [] for s in (*PATH_STRATA, "all")}
        for r in by_task[task]:
            gold = _gold(r["id"], r["truth"])
            predicted = parse_sequence(r["response"] or "", gold)
            scores = sequence_scores(predicted, gold)
            stratum = r["strata"].get("stratum") or ("N=2" if len(gold) == 2 else "N>2")
            cells.setdefault(stratum, []).append((scores, predicted is not None))
            cells["all"].append((scores, predicted is not None))
        tier3[task] = {s: _ordering(items) for s, items in cells.items() if items}
    if tier3:
        out["tier 3"] = tier3
    if "3a" in tier3 and "3a-masked" in tier3:
        control = {}
        for stratum in (*PATH_STRATA, "all"):
            named, masked = tier3["3a"].get(stratum), tier3["3a-masked"].get(stratum)
            if named is None or masked is None:
                continue
            pick = ("n", "exact_match", "kendall_tau")
            control[stratum] = {"3a": {k: named[k] for k in pick}, "3a-masked": {k: masked[k] for k in pick},
                                "difference": {k: named[k] - masked[k] for k in ("exact_match", "kendall_tau")}}
        out["masked control"] = control
    return out


def tables_markdown(results: dict) -> list[str]:
    """The report's lines for :func:`tables`, laid out like the paper's Tables 1-5 and 8."""
    def pct(x) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    def num(x) -> str:
        return "-" if x is None else f"{x:.3f}"

    models = results["models"]
    md = []
    first = next(iter(models.values()))["tables"]
    if "tier 1" in first:
        tasks = list(first["tier 1"])
        md += ["", "## Tier 1 (accuracy %, paper Table 1)", "", "| model | " + " | ".join(tasks) + " |",
               "|" + " --- |" * (len(tasks) + 1)]
        for model, r in models.items():
            md.append(f"| {model} | " + " | ".join(pct(r["tables"]["tier 1"].get(t, {}).get("accuracy"))
                                                    for t in tasks) + " |")
    if "tier 2" in first:
        roles = list(first["tier 2"]["accuracy"])
        md += ["", "## Tier 2: Prototype / Metaphor / Metonymy (accuracy %, paper Table 2)", "",
               "| model | " + " | ".join(roles) + " |", "|" + " --- |" * (len(roles) + 1)]
        for model, r in models.items():
            md.append(f"| {model} | " + " | ".join(pct(r["tables"]["tier 2"]["accuracy"].get(k, {}).get("accuracy"))
                                                    for k in roles) + " |")
        for model, r in models.items():
            confusion = r["tables"]["tier 2"]["confusion"]
            cols = list(next(iter(confusion.values()))) if confusion else []
            md += ["", f"Confusion ({model}; rows: gold role, columns: answer)", "",
                   "| gold | " + " | ".join(cols) + " |", "|" + " --- |" * (len(cols) + 1)]
            md += [f"| {gold} | " + " | ".join(str(row[c]) for c in cols) + " |" for gold, row in confusion.items()]
    if "tier 3" in first:
        md += ["", "## Tier 3: path ordering (paper Tables 4 and 5)", "",
               "| model | task | stratum | n | exact match (%) | pairwise (%) | Kendall tau | unparsed |",
               "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for model, r in models.items():
            for task, cells in r["tables"]["tier 3"].items():
                for stratum, c in cells.items():
                    md.append(f"| {model} | {task} | {stratum} | {c['n']} | {pct(c['exact_match'])} | "
                              f"{pct(c['pairwise_accuracy'])} | {num(c['kendall_tau'])} | {c['unparsed']} |")
    if "masked control" in first:
        md += ["", "## Masked-word control (paper Table 8): 3a with the word named and masked", "",
               "| model | stratum | EM named (%) | EM masked (%) | difference | tau named | tau masked |",
               "| --- | --- | --- | --- | --- | --- | --- |"]
        for model, r in models.items():
            for stratum, c in r["tables"]["masked control"].items():
                md.append(f"| {model} | {stratum} | {pct(c['3a']['exact_match'])} | {pct(c['3a-masked']['exact_match'])}"
                          f" | {pct(c['difference']['exact_match'])} | {num(c['3a']['kendall_tau'])} | "
                          f"{num(c['3a-masked']['kendall_tau'])} |")
    return md
