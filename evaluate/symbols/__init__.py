"""Scoring the ``symbols`` benchmark: the paper's per-domain, per-level, per-task accuracy.

Multiple-choice items are scored by the shared evaluator (letters, options,
rotations). Free answers are judged by :mod:`evaluate.symbols.judge` from the format
their ``meta.answer_format`` names (formulas by element counts, coefficient lists as
lists, numbers within a tolerance, English words and idioms by their words, Chinese idioms
and sentences by their characters, transcriptions by their marked positions), so a new
domain needs no new judge. A domain's
``evaluate/symbols/<domain>.py`` may add ``extra(row, response)``, per-item measures
(chemistry: the corrected SMILES of a structure-error item, by canonical form) that
:func:`tables` sums up by their type:

* a boolean: the rate over the task's items (``{"n", "rate"}``);
* a number: the mean (``{"n", "mean"}``: an edit distance);
* a dict of counts ``{"tp", "pred", "gold"}``: summed over the task (micro), then precision
  ``tp / pred`` (0 when nothing is predicted), recall ``tp / gold`` (1 when there is nothing to
  find), F1 (0 when P + R is 0), as Visual-C3's ``eval.py`` computes them, and the ratio
  ``pred / gold``.

A domain may also name its paper measures per task with ``summarise(task, extras, records)``
-> ``{name: {"value", "unit", ...}}`` (corpus-level BLEU needs the records); without it, each
extra is a measure of its own. :func:`tables_markdown` prints the domain x level accuracy
(the paper's 5 x 3 layout), accuracy per task, and the measures with their units.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections import defaultdict

from cogforge.evaluate.symbols import judge
from cogforge.evaluate.symbols.judge import is_correct  # noqa: F401  (the scorer's hook)
from cogforge.generators.symbols import LEVELS

JUDGE = judge  # what lmms-eval's utils.py embeds: standard library only


def _domain_module(name: str):
    module = f"cogforge.evaluate.symbols.{name}"
    return importlib.import_module(module) if importlib.util.find_spec(module) else None


def chance(row: dict) -> float:
    """Free answers (a formula, a coefficient list) have no guessing floor worth the name."""
    return 0.0


def strata(row: dict) -> dict[str, str]:
    m = row["meta"]
    return {"domain": m["domain"], "level": f"L{m['level']}", "paper_task": m["paper_task"],
            "error_type": m.get("error_type")}


def extra(row: dict, response: str | None) -> dict:
    module = _domain_module(row["meta"]["domain"])
    return module.extra(row, response) if module and hasattr(module, "extra") else {}


# the per-item measure behind each partial-credit task's F1, by the extra that carries it
# (culture: words, idiom words, idiom characters; language: X and misused positions)
F1_EXTRAS = ("word F1", "words", "characters", "X positions", "misused positions")


def partial_credit(row: dict, response: str | None) -> float | None:
    """The item's own value of its task's F1 measure (``cogforge.environments.score``'s
    reward when the judge does not accept the reply); None for tasks scored right or wrong."""
    extras = extra(row, response)
    name = next((n for n in F1_EXTRAS if n in extras), None)
    if name is None:
        return None
    return extras[name] if name == "word F1" else prf(**extras[name])["f1"]


def _accuracy(records: list[dict]) -> dict:
    n = len(records)
    return {"n": n, "accuracy": sum(r["correct"] for r in records) / n if n else None}


def prf(tp: int, pred: int, gold: int) -> dict:
    """Precision, recall and F1 of summed counts, with Visual-C3's ``eval.py`` conventions."""
    p = tp / pred if pred else 0.0
    r = tp / gold if gold else 1.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "ratio": pred / gold if gold else None}


def aggregate(values: list) -> dict:
    """One extra over a task's items: a rate of booleans, a mean of numbers, summed counts."""
    values = [v for v in values if v is not None]
    n = len(values)
    if not n:
        return {"n": 0}
    if all(isinstance(v, bool) for v in values):
        return {"n": n, "rate": sum(values) / n}
    if all(isinstance(v, dict) for v in values):
        sums = {k: sum(v.get(k, 0) for v in values) for k in dict.fromkeys(k for v in values for k in v)}
        return {"n": n, **sums, **prf(sums.get("tp", 0), sums.get("pred", 0), sums.get("gold", 0))}
    return {"n": n, "mean": sum(float(v) for v in values) / n}


def _measures(extras: dict) -> dict:
    """A task's measures when its domain names none: each extra by its type."""
    out = {}
    for key, a in extras.items():
        if "rate" in a:
            out[key] = {"value": a["rate"], "unit": "%"}
        elif "mean" in a:
            out[key] = {"value": a["mean"], "unit": "mean"}
        elif "f1" in a:
            out |= {f"{key} {k}": {"value": a[v], "unit": "%"} for k, v in (("P", "precision"), ("R", "recall"),
                                                                            ("F1", "f1"))}
    return out


def tables(records: list[dict]) -> dict:
    """Accuracy per domain and level (the paper's layout), per task, the domains' extras, and
    each task's paper measures (``measures``: ``{task: {name: {"value", "unit"}}}``)."""
    cells, tasks, values = defaultdict(list), defaultdict(list), defaultdict(lambda: defaultdict(list))
    for r in records:
        s = r["strata"]
        cells[(s["domain"], s["level"])].append(r)
        cells[(s["domain"], "all")].append(r)
        tasks[(s["domain"], s["level"], s["task"], s["paper_task"])].append(r)
        for key, value in (r.get("extra") or {}).items():
            values[s["task"]][key].append(value)
    extras = {t: {k: aggregate(v) for k, v in keys.items()} for t, keys in sorted(values.items())}
    measures = {}
    for (domain, _level, task, _paper), rs in sorted(tasks.items()):
        if not extras.get(task):
            continue
        module = _domain_module(domain)
        hook = getattr(module, "summarise", None)
        measures[task] = (hook(task, extras[task], rs) if hook else None) or _measures(extras[task])
    return {"by_domain_level": {f"{d} {lv}": _accuracy(rs) for (d, lv), rs in sorted(cells.items())},
            "by_task": {t: {"domain": d, "level": lv, "paper": p} | _accuracy(rs)
                        for (d, lv, t, p), rs in sorted(tasks.items())},
            "extras": {f"{t}: {k}": a for t, keys in extras.items() for k, a in keys.items()},
            "measures": measures}


def _value(measure: dict | None) -> str:
    if measure is None or measure.get("value") is None:
        return "-"
    v, unit = measure["value"], measure["unit"]
    if unit == "%":
        return f"{100 * v:.1f}"
    if unit == "BLEU":
        return f"{v:.2f}"
    return f"{v:.3f}" if unit.startswith("0-1") or unit == "ratio" else f"{v:.2f}"


def tables_markdown(results: dict) -> list[str]:
    def pct(x) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    models = results["models"]
    first = next(iter(models.values()))["tables"]
    cells = list(dict.fromkeys(c for r in models.values() for c in r["tables"]["by_domain_level"]))
    domains = list(dict.fromkeys(c.rsplit(" ", 1)[0] for c in cells))
    levels = [f"L{k}" for k in LEVELS] + ["all"]
    md = ["", "## Accuracy per domain and level (%, the paper's layout)", "",
          "Levels: " + "; ".join(f"L{k} {v.split(' ', 1)[1]}" for k, v in LEVELS.items()) + ".", "",
          "| model | domain | " + " | ".join(levels) + " |", "|" + " --- |" * (len(levels) + 2)]
    for model, r in models.items():
        for d in domains:
            md.append(f"| {model} | {d} | " + " | ".join(
                pct(r["tables"]["by_domain_level"].get(f"{d} {lv}", {}).get("accuracy")) for lv in levels) + " |")
    tasks = list(first["by_task"])
    md += ["", "## Accuracy per task (%)", "", "| task | level | paper | " + " | ".join(models) + " |",
           "|" + " --- |" * (len(models) + 3)]
    for t in tasks:
        info = first["by_task"][t]
        md.append(f"| {t} | {info['level']} | {info['paper']} | " +
                  " | ".join(pct(r["tables"]["by_task"].get(t, {}).get("accuracy")) for r in models.values()) + " |")
    rows = list(dict.fromkeys((t, name) for r in models.values() for t, ms in r["tables"].get("measures", {}).items()
                              for name in ms))
    if rows:
        md += ["", "## Paper measures per task", "",
               "% measures are shown x100; BLEU on sacrebleu's 0-100 scale; edit distance in characters.", "",
               "| task | paper | measure | unit | " + " | ".join(models) + " |", "|" + " --- |" * (len(models) + 4)]
        signatures = {}
        for t, name in rows:
            found = [r["tables"]["measures"].get(t, {}).get(name) for r in models.values()]
            unit = next(m["unit"] for m in found if m)
            signatures |= {m["signature"]: None for m in found if m and m.get("signature")}
            paper = first["by_task"].get(t, {}).get("paper", "")
            md.append(f"| {t} | {paper} | {name} | {unit} | " + " | ".join(_value(m) for m in found) + " |")
        md += [f"\nsacrebleu signature: `{s}`." for s in signatures]
    return md
