"""The paper's measures of the culture and language domains, on hand-checked examples:
BLEU equal to sacrebleu's own, the Visual-C3 F1 worked example, edit distances, Chr-1/Chr-2
over a multiset of characters, and a judge that never takes a wrong Chinese answer as right."""

from __future__ import annotations

import json
import random

import pytest
from rapidfuzz.distance import Levenshtein
from sacrebleu.metrics import BLEU

from cogforge.evaluate.extract import extract
from cogforge.evaluate.score import Scorer
from cogforge.evaluate.symbols import culture, judge, language, tables, tables_markdown

TASKS = {  # task: (domain, level, paper task, answer format)
    "culture-emoji-word": ("culture", 1, "Cult T1", "word-en"),
    "culture-emoji-idiom": ("culture", 2, "Cult T2", "phrase-en"),
    "culture-emoji-chengyu": ("culture", 3, "Cult T3", "zh-idiom"),
    "culture-emoji-chengyu-long": ("culture", 3, "Cult T4", "zh-idiom"),
    "language-faked-characters": ("language", 1, "Lang T1", "x-transcription"),
    "language-misused-characters": ("language", 2, "Lang T2", "marked-transcription"),
    "language-correction": ("language", 3, "Lang T3", "zh-sentence"),
}


def row(task: str, answer: str, k: int = 0) -> dict:
    """An item as the contract fixes it: the answer, the task, and the meta the scorer reads."""
    domain, level, paper, fmt = TASKS[task]
    return {"id": f"{task}-{k}", "task": task, "answer": answer, "options": None, "split": "test", "question": "?",
            "meta": {"domain": domain, "level": level, "paper_task": paper, "answer_format": fmt}}


def scored(tmp_path, items: list[tuple[dict, str]]) -> dict:
    """Score hand-made rows and responses the way `cogforge eval score` does (JSON Lines)."""
    path = tmp_path / "model.jsonl"
    path.write_text("".join(json.dumps({"id": r["id"], "response": text}, ensure_ascii=False) + "\n"
                            for r, text in items))
    return Scorer([r for r, _ in items], "symbols").score(path)


def right(answer: str, truth: str, fmt: str) -> bool:
    return judge.is_correct(answer, {"answer": truth, "meta": {"answer_format": fmt}})


# --------------------------------------------------------------------------- the judge


@pytest.mark.parametrize("fmt, truth, wrong", [
    ("zh-idiom", "同舟共济", "同心协力"),
    ("zh-idiom", "百闻不如一见", "百闻不如"),
    ("zh-sentence", "他认真地学习。", "他认真的学习。"),
    ("x-transcription", "我们X论了这个问题。", "我们讨论了这个问题。"),
    ("marked-transcription", "他认真[的]学习。", "他认真的学习。"),
    ("exact text", "同舟共济", "同心协力"),  # a format the judge does not know: no [^a-z0-9] fallback
    ("exact text", "同舟共济", "？？"),
])
def test_a_wrong_chinese_answer_is_wrong_whatever_its_format(fmt, truth, wrong):
    assert right(truth, truth, fmt)
    assert not right(wrong, truth, fmt)
    assert not right("", truth, fmt) and not right("I cannot tell.", truth, fmt)


@pytest.mark.parametrize("answer, truth, fmt", [
    ("The idiom is 同舟共济。", "同舟共济", "zh-idiom"),
    ("答案：同舟共济", "同舟共济", "zh-idiom"),                    # full-width colon
    ("这个成语是「同舟共济」", "同舟共济", "zh-idiom"),
    ("同舟共济 (tóng zhōu gòng jì)", "同舟共济", "zh-idiom"),     # pinyin aside dropped
    ("只许州官放火，不许百姓点灯", "只许州官放火不许百姓点灯", "zh-idiom"),
    ("Answer: The idiom is \"break the ice\".", "break the ice", "phrase-en"),
    ("A piece of cake!", "piece of cake", "phrase-en"),
    ("It’s a small world", "it's a small world", "phrase-en"),  # curly apostrophe; "It's" is not a lead phrase
    ("The word is Pineapple.", "pineapple", "word-en"),
    ("pine-apple", "pineapple", "word-en"),
    ("foot ball", "football", "word-en"),
    ("改正后的句子：他认真地学习.", "他认真地学习。", "zh-sentence"),  # 。 and . fold together
    ("答案：我们Ｘ论了这个问题", "我们X论了这个问题。", "x-transcription"),  # full-width X
    ("他认真【的】学习。", "他认真[的]学习。", "marked-transcription"),
])
def test_lead_phrases_quotes_and_final_punctuation_are_dropped(answer, truth, fmt):
    assert right(answer, truth, fmt)


@pytest.mark.parametrize("answer, truth, fmt", [
    ("apple", "pineapple", "word-en"),
    ("pineapples", "pineapple", "word-en"),
    ("break the ice cube", "break the ice", "phrase-en"),
    ("菠萝", "pineapple", "word-en"),
])
def test_english_answers_need_the_same_words(answer, truth, fmt):
    assert not right(answer, truth, fmt)


def test_a_full_width_colon_and_the_idiom_phrase_are_extracted():
    assert extract("我先看每个表情。\n答案：同舟共济", None) == ("同舟共济", "final")
    assert extract("Reading the emoji.\nAnswer：pineapple", None) == ("pineapple", "final")
    assert extract("🚣 is a boat, 🤝 is together.\nThe idiom is 同舟共济.", None)[0] == "同舟共济"
    assert extract("The idiom is about luck.\nAnswer: 同舟共济", None) == ("同舟共济", "final")  # Answer: first


ALIGNMENTS = [  # gold, reply: same length, a dropped character, an added one, both, an X misplaced
    ("我们X论了X个问题", "我们X论了这个问X"),
    ("我们X论了这个问题", "我们X论这个问题"),
    ("他认真的学习", "他很认真的学习"),
    ("下课以后我们在操场上跳绳", "下课后我们再在操场跳绳了"),
    ("我长X以后想当一名X学家", "我长大以X想当一名X学家"),
]


@pytest.mark.parametrize("gold, reply", ALIGNMENTS)
def test_the_judges_alignment_is_rapidfuzz_levenshtein(gold, reply):
    """The standard-library edit script (embedded in lmms-eval) is rapidfuzz's, step for step."""
    assert judge.edit_opcodes(gold, reply) == Levenshtein.opcodes(gold, reply).as_list()
    assert judge.aligned_pairs(gold, reply) == judge.pairs_from_opcodes(Levenshtein.opcodes(gold, reply).as_list())


def test_the_judges_alignment_breaks_ties_as_rapidfuzz_does():
    rng = random.Random(26)
    for _ in range(2000):
        gold = "".join(rng.choice("我们X论了的地") for _ in range(rng.randint(0, 10)))
        reply = "".join(rng.choice("我们X论了的地") for _ in range(rng.randint(0, 10)))
        assert judge.edit_opcodes(gold, reply) == Levenshtein.opcodes(gold, reply).as_list(), (gold, reply)


def test_a_misplaced_x_is_not_paired_with_a_gold_x_nearby():
    """Longest-block matching (difflib) would pair the X written for 后 with the gold X two
    characters back; the fewest edits keep it where it is: one hit, one false alarm."""
    item = row("language-faked-characters", "我长X以后想当一名X学家")
    assert language.extra(item, "Answer: 我长大以X想当一名X学家")["X positions"] == {"tp": 1, "pred": 2, "gold": 2}


# --------------------------------------------------------------------------- language


def test_visual_c3_f1_on_the_worked_example():
    """src 我们X论了X个问题, prediction 我们X论了这个问X: one X hit, one missed, one extra."""
    item = row("language-faked-characters", "我们X论了X个问题")
    assert language.extra(item, "Answer: 我们X论了这个问X") == {"X positions": {"tp": 1, "pred": 2, "gold": 2}}
    records = [{"strata": {"task": item["task"], "domain": "language", "level": "L1", "paper_task": "Lang T1"},
                "correct": False, "extra": language.extra(item, "Answer: 我们X论了这个问X")}]
    m = tables(records)["measures"]["language-faked-characters"]
    assert m["X positions P"]["value"] == m["X positions R"]["value"] == m["X positions F1"]["value"] == 0.5
    assert m["x_count_pred_recall"]["value"] == 0.5  # TP / gold X (the paper's Eq. 2 as written)
    assert m["x_count_pred_ratio"]["value"] == 1.0   # predicted X / gold X
    assert not judge.is_correct("我们X论了这个问X", item)


def test_an_over_flagging_model_has_high_x_count_pred_ratio_and_low_f1():
    item = row("language-faked-characters", "我们X论了这个问题")
    counts = language.extra(item, "Answer: XXX论了这个问题")["X positions"]
    assert counts == {"tp": 1, "pred": 3, "gold": 1}
    assert language.extra(item, "Answer: X")["X positions"]["tp"] == 0  # not a transcription: no hit


def test_misused_characters_are_counted_by_aligned_brackets(tmp_path):
    gold = "他认真[的]学习，写[的]很好。"
    item = row("language-misused-characters", gold)
    # a dropped comma shifts nothing: the brackets are aligned, one hit and one false alarm
    counts = language.extra(item, "Answer: 他认真[的]学习写的很[好]")["misused positions"]
    assert counts == {"tp": 1, "pred": 2, "gold": 2}
    result = scored(tmp_path, [(item, "Answer: 他认真[的]学习，写[的]很好。")])
    m = result["tables"]["measures"]["language-misused-characters"]
    assert m["id_count_pred_recall"]["value"] == 1.0 and m["misused positions F1"]["value"] == 1.0
    assert result["overall"]["accuracy"] == 1.0


def test_correction_has_exact_match_and_both_edit_distances(tmp_path):
    item = row("language-correction", "他认真地学习。")
    assert language.extra(item, "Answer: 他认真的学习") == {
        "exact match": False, "edit distance": 1.0, "normalised edit distance": pytest.approx(1 / 6)}
    assert language.extra(item, "") == {"exact match": False, "edit distance": 6.0, "normalised edit distance": 1.0}
    other = row("language-correction", "我们去学校。", 1)
    result = scored(tmp_path, [(item, "Answer: 他认真地学习。"), (other, "Answer: 我门去学校")])
    m = result["tables"]["measures"]["language-correction"]
    assert m["exact match"]["value"] == 0.5
    assert m["edit distance"] == {"value": 0.5, "unit": "characters"}  # (0 + 1) / 2
    assert m["normalised edit distance"]["value"] == pytest.approx((0 + 1 / 5) / 2)


# --------------------------------------------------------------------------- culture


def test_bleu_is_sacrebleus_own_corpus_score():
    ours = culture.bleu(["not the brightest light bulb"], ["not the brightest bulb"], 2)
    theirs = BLEU(max_ngram_order=2).corpus_score(["not the brightest light bulb"], [["not the brightest bulb"]])
    assert ours["value"] == theirs.score == pytest.approx(63.2456, abs=1e-4)  # exp((ln 4/5 + ln 2/4) / 2)
    assert ours["signature"].startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:")


def test_idiom_measures_sentence_word_and_corpus_bleu(tmp_path):
    a = row("culture-emoji-idiom", "not the brightest bulb", 0)
    b = row("culture-emoji-idiom", "break the ice", 1)
    c = row("culture-emoji-idiom", "piece of cake", 2)
    result = scored(tmp_path, [(a, "Answer: not the brightest light bulb"), (b, "The phrase is: Break the ice!"),
                               (c, "I cannot tell what this is, there are too many emoji in the picture here"
                                   " and none of them reads as a phrase I know, sorry about that, truly.")])
    m = result["tables"]["measures"]["culture-emoji-idiom"]
    # sentence level: 1 right of 2 answered (P), of 3 items (R)
    assert m["sentence-level P"]["value"] == 0.5 and m["sentence-level R"]["value"] == pytest.approx(1 / 3)
    # words, a multiset per item: 4 + 3 shared of 5 + 3 predicted, of 4 + 3 + 3 gold (the third reply is unparsed)
    assert m["word-level P"]["value"] == 7 / 8 and m["word-level R"]["value"] == 7 / 10
    hyps = ["not the brightest light bulb", "break the ice", ""]
    refs = ["not the brightest bulb", "break the ice", "piece of cake"]
    for order in (1, 2):
        assert m[f"BLEU-{order}"]["value"] == BLEU(max_ngram_order=order).corpus_score(hyps, [refs]).score
    md = "\n".join(tables_markdown({"models": {"m": result}}))
    assert "| culture-emoji-idiom | Cult T2 | BLEU-2 | BLEU |" in md and "sacrebleu signature" in md


def test_word_level_scores_are_per_item_then_averaged():
    item = row("culture-emoji-word", "pineapple")
    assert culture.extra(item, "Answer: pine apple")["word F1"] == 1.0  # the judge accepts it
    got = culture.extra(item, "Answer: pineapple fruit")
    assert (got["word precision"], got["word recall"]) == (0.5, 1.0) and got["word F1"] == pytest.approx(2 / 3)
    assert culture.extra(item, "")["word F1"] == 0.0


def test_chr1_chr2_count_characters_as_a_clipped_multiset():
    """The paper's Case 7: a four-character answer to a longer idiom still has correct characters."""
    long = culture.extra(row("culture-emoji-chengyu-long", "百闻不如一见"), "The idiom is 一见如故")
    assert long["characters"] == {"tp": 3, "pred": 4, "gold": 6}              # 一, 见, 如
    assert long["characters (positional)"] == {"tp": 0, "pred": 4, "gold": 6}  # none in its place
    assert (long["Chr-1"], long["Chr-2"], long["Chr-1 (positional)"]) == (True, True, False)
    clipped = culture.extra(row("culture-emoji-chengyu", "一心一意"), "Answer: 一一一一")
    assert clipped["characters"]["tp"] == 2 and clipped["characters (positional)"]["tp"] == 2
    assert clipped["exact match"] is False


def test_tables_print_domain_by_level_and_the_measures_with_their_units(tmp_path):
    items = [(row("culture-emoji-chengyu", "同舟共济"), "答案：同舟共济"),
             (row("culture-emoji-chengyu", "一心一意", 1), "Answer: 三心二意"),
             (row("language-correction", "他认真地学习。"), "Answer: 他认真的学习。"),
             (row("culture-emoji-word", "pineapple"), "Answer: Pineapple")]
    result = scored(tmp_path, items)
    t = result["tables"]
    assert t["by_domain_level"]["culture L3"]["accuracy"] == 0.5 and t["by_domain_level"]["language L3"]["accuracy"] == 0
    chengyu = t["measures"]["culture-emoji-chengyu"]
    assert chengyu["character-level (multiset) P"]["value"] == 6 / 8 and chengyu["Chr-2"]["value"] == 1.0
    md = tables_markdown({"models": {"m": result}})
    assert "| model | domain | L1 | L2 | L3 | all |" in md
    assert "| m | culture | 100.0 | - | 50.0 | 66.7 |" in md and "| m | language | - | - | 0.0 | 0.0 |" in md
    assert "| language-correction | Lang T3 | edit distance | characters | 1.00 |" in md
