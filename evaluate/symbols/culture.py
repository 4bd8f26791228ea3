"""Culture's paper measures (emoji rebuses), beside the accuracy the judge gives.

Every measure reads the answer the deterministic extraction finds in a reply
(:func:`evaluate.extract.extract`; an LLM judge's reading counts for accuracy only), in the
judge's normal form (:mod:`evaluate.symbols.judge`: lead phrase, quotes and final
punctuation dropped, NFKC). An answer that cannot be read counts as an empty prediction.

* Cult T1, ``word-en`` (the paper: "Precision, Recall, and F1-score by comparing predicted
  words ... against those in the ground truth"): word-level P/R/F1 per item over the
  multisets of words (SQuAD style: shared words over predicted words, over gold words), then
  averaged over the items (macro). An answer the judge accepts (``pine apple`` for
  ``pineapple``) scores 1.
* Cult T2, ``phrase-en``: sentence level, P = exactly right / answered, R = exactly right /
  items; word level, shared words (clipped multiset) summed over the task, over predicted
  words (P) and gold words (R) (micro); corpus BLEU-1 and BLEU-2 by sacrebleu
  (``BLEU(max_ngram_order=1|2)``: uniform weights over orders 1..n and the brevity penalty,
  the paper's Eq. 6-7), on the judge's lower-cased, punctuation-free words; the signature is
  kept with the score.
* Cult T3 and T4, ``zh-idiom``: exact match (the paper's word-level accuracy: the whole
  idiom, Han characters only); character-level P/R/F1 where a **correct character** is one of
  the gold's characters as a *multiset* (bag of characters, counts clipped: a character
  predicted twice is correct at most as often as the gold has it), summed over the task
  (micro): P = correct / predicted characters, R = correct / gold characters; Chr-1 and Chr-2,
  the share of items with at least one and at least two correct characters. The positional
  variant (a character is correct when it is the gold's character at the same position) is
  reported beside it under its own name. The paper's GPT-4o similarity score (1-5) needs a
  model and is not computed.

P, R and F1 from counts follow Visual-C3's ``eval.py``: P = 0 when nothing is predicted,
R = 1 when there is nothing to find, F1 = 0 when P + R = 0 (``evaluate/symbols/__init__.py``).
"""

from __future__ import annotations

from collections import Counter

from cogforge.evaluate.extract import extract
from cogforge.evaluate.symbols import judge

BLEU_ORDERS = (1, 2)


def _answer(response: str | None) -> str | None:
    return extract(response or "", None)[0]


def shared(pred, gold) -> int:
    """How many of ``pred``'s elements are in ``gold``, counts clipped (a multiset intersection)."""
    return sum((Counter(pred) & Counter(gold)).values())


def positional(pred, gold) -> int:
    """How many positions hold the same element in both."""
    return sum(a == b for a, b in zip(pred, gold))


def word_scores(pred: list[str], gold: list[str], right: bool) -> dict:
    """One item's word-level precision, recall and F1 (SQuAD style); 1 when the judge accepts it."""
    if right:
        return {"word precision": 1.0, "word recall": 1.0, "word F1": 1.0}
    common = shared(pred, gold)
    p = common / len(pred) if pred else 0.0
    r = common / len(gold) if gold else 0.0
    return {"word precision": p, "word recall": r, "word F1": 2 * p * r / (p + r) if p + r else 0.0}


def extra(row: dict, response: str | None) -> dict:
    kind = row["meta"].get("answer_format")
    answer = _answer(response)
    right = answer is not None and judge.free_text_correct(answer, row["answer"], kind)
    if kind == "word-en":
        pred = judge.en_words(answer) if answer is not None else []
        return word_scores(pred, judge.en_words(row["answer"], lead=False), right)
    if kind == "phrase-en":
        pred = judge.en_words(answer) if answer is not None else []
        gold = judge.en_words(row["answer"], lead=False)
        return {"sentence": {"tp": int(right), "pred": int(answer is not None and bool(pred)), "gold": 1},
                "words": {"tp": shared(pred, gold), "pred": len(pred), "gold": len(gold)}}
    if kind == "zh-idiom":
        pred = judge.zh_chars(answer) if answer is not None else ""
        gold = judge.zh_chars(row["answer"], lead=False)
        bag, place = shared(pred, gold), positional(pred, gold)
        return {"exact match": right,
                "characters": {"tp": bag, "pred": len(pred), "gold": len(gold)},
                "Chr-1": bag >= 1, "Chr-2": bag >= 2,
                "characters (positional)": {"tp": place, "pred": len(pred), "gold": len(gold)},
                "Chr-1 (positional)": place >= 1, "Chr-2 (positional)": place >= 2}
    return {}


def bleu(hypotheses: list[str], references: list[str], order: int) -> dict:
    """Corpus BLEU-``order`` by sacrebleu (0-100) and its signature."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(max_ngram_order=order)
    score = metric.corpus_score(hypotheses, [references])
    return {"value": score.score, "unit": "BLEU", "signature": str(metric.get_signature())}


def _prf(counts: dict, name: str, label: str) -> dict:
    return {f"{label} P": {"value": counts[name]["precision"], "unit": "%"},
            f"{label} R": {"value": counts[name]["recall"], "unit": "%"},
            f"{label} F1": {"value": counts[name]["f1"], "unit": "%"}}


def summarise(task: str, extras: dict, records: list[dict]) -> dict:
    """The paper's measures of one culture task, named, from the task's summed extras and
    (for corpus BLEU) its records."""
    out: dict = {}
    if "word F1" in extras:
        out = {f"word-level {label} (per item)": {"value": extras[k]["mean"], "unit": "%"}
               for label, k in (("P", "word precision"), ("R", "word recall"), ("F1", "word F1"))}
    if "sentence" in extras:
        out = _prf(extras, "sentence", "sentence-level") | _prf(extras, "words", "word-level")
        hypotheses, references = [], []
        for r in records:
            answer = _answer(r.get("response"))
            hypotheses.append(" ".join(judge.en_words(answer)) if answer is not None else "")
            references.append(" ".join(judge.en_words(r["truth"], lead=False)))
        for order in BLEU_ORDERS:
            out[f"BLEU-{order}"] = bleu(hypotheses, references, order)
    if "characters" in extras:
        out = {"exact match": {"value": extras["exact match"]["rate"], "unit": "%"}}
        out |= _prf(extras, "characters", "character-level (multiset)")
        out |= {k: {"value": extras[k]["rate"], "unit": "%"} for k in ("Chr-1", "Chr-2")}
        out |= _prf(extras, "characters (positional)", "character-level (positional)")
        out |= {k: {"value": extras[k]["rate"], "unit": "%"} for k in ("Chr-1 (positional)", "Chr-2 (positional)")}
    return out
