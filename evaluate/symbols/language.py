"""Language's paper measures (handwritten Chinese), beside the accuracy the judge gives.

Every measure reads the answer the deterministic extraction finds in a reply
(:func:`evaluate.extract.extract`; an LLM judge's reading counts for accuracy only), in the
judge's normal form (:mod:`evaluate.symbols.judge`: NFKC, punctuation folded, spaces, lead
phrase, quotes and final punctuation dropped). An answer that cannot be read is empty.

* Lang T1, ``x-transcription`` (faked characters written ``X``): the reply is aligned to the
  gold transcription by a minimal edit script (:func:`judge.aligned_pairs`, the same as
  rapidfuzz's Levenshtein opcodes; position by position when nothing was added or dropped,
  which is all Visual-C3's ``eval.py`` accepts). TP = a predicted ``X``
  aligned to a gold ``X``, FP = a predicted ``X`` elsewhere, FN = a gold ``X`` not hit; a reply
  that is not a transcription of the sentence (:func:`judge.mark_counts`) has no TP. Summed
  over the task (micro, as ``eval.py``'s ``Char_Detection_Cuo_``): P, R, F1 (the paper's Eq. 1),
  and the paper's X_count_pred in both of its readings: ``x_count_pred_recall`` = TP / gold
  X (Eq. 2 as written: "correctly detected faked characters" over all faked characters) and
  ``x_count_pred_ratio`` = predicted X / gold X (what fits the paper's "high X_count_pred but
  a low F1" for a model that over-flags). The accuracy column is sentence-level detection:
  the set of X positions equals the gold set.
* Lang T2, ``marked-transcription`` (misused characters in ``[ ]``): the same over bracketed
  positions; F1 and id_count_pred, ``id_count_pred_recall`` = TP / gold misused characters
  (the paper's Eq. 3) and ``id_count_pred_ratio`` = predicted / gold.
* Lang T3, ``zh-sentence`` (the corrected sentence): exact match (Eq. 4), the normalised
  edit distance (Eq. 5: Levenshtein distance over the longer length, 0-1, lower is better)
  and the raw distance in characters (the paper's Results quote a mean of 179.7), both by
  ``rapidfuzz.distance.Levenshtein`` on the judge's normal forms, averaged over the items; an
  unreadable answer is at distance len(gold), normalised 1.
"""

from __future__ import annotations

from cogforge.evaluate.extract import extract
from cogforge.evaluate.symbols import judge

# the extra's name and the paper's name of its count measure, per answer format
READINGS = {"x-transcription": ("X positions", "x_count_pred"),
            "marked-transcription": ("misused positions", "id_count_pred")}


def _answer(response: str | None) -> str | None:
    return extract(response or "", None)[0]


def distances(answer: str | None, truth: str) -> dict:
    """Raw and normalised Levenshtein distance of a corrected sentence to the gold one."""
    from rapidfuzz.distance import Levenshtein

    got, want = judge.zh_text(answer) if answer is not None else "", judge.zh_text(truth, lead=False)
    return {"edit distance": float(Levenshtein.distance(got, want)),
            "normalised edit distance": Levenshtein.normalized_distance(got, want)}


def extra(row: dict, response: str | None) -> dict:
    kind = row["meta"].get("answer_format")
    answer = _answer(response)
    if kind in READINGS:
        counts = judge.mark_counts(answer if answer is not None else "", row["answer"], kind)
        return {READINGS[kind][0]: {k: counts[k] for k in ("tp", "pred", "gold")}}
    if kind == "zh-sentence":
        right = answer is not None and judge.free_text_correct(answer, row["answer"], kind)
        return {"exact match": right} | distances(answer, row["answer"])
    return {}


def summarise(task: str, extras: dict, records: list[dict]) -> dict:
    """The paper's measures of one language task, named, from the task's summed extras."""
    for name, reading in READINGS.values():
        if name in extras:
            m = extras[name]
            return {f"{name} P": {"value": m["precision"], "unit": "%"},
                    f"{name} R": {"value": m["recall"], "unit": "%"},
                    f"{name} F1": {"value": m["f1"], "unit": "%"},
                    f"{reading}_recall": {"value": m["recall"], "unit": "%"},
                    f"{reading}_ratio": {"value": m["ratio"], "unit": "ratio"}}
    if "exact match" in extras:
        return {"exact match": {"value": extras["exact match"]["rate"], "unit": "%"},
                "normalised edit distance": {"value": extras["normalised edit distance"]["mean"],
                                             "unit": "0-1, lower is better"},
                "edit distance": {"value": extras["edit distance"]["mean"], "unit": "characters"}}
    return {}
