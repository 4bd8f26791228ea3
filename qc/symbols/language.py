"""Language answers and pictures re-derived from ``meta`` and the curated data.

Generated items:

* the sentence is the curated one of ``meta.sentence_id`` (also the item's split unit);
* every fake is made again from its recipe (:func:`generators.symbols._fakes.check`):
  its position holds its source character, and the glyph is still no real character and
  visibly differs from its source;
* every substitution is a curated misuse site of that sentence, and its rule is the
  site's pair of the confusion file;
* the task's errors: faked characters only fakes, misused characters only substitutions,
  correction at least one error; never two errors at one position;
* the answer is computed again (``X`` for fakes, brackets around misused characters, or
  the plain sentence) and the prompt is the task's own (it never shows the sentence);
* the picture is drawn again from the sentence, fakes, substitutions and style and must
  give the item's bytes and ``char_boxes``.

Imported (Visual-C3) items: the picture opens, and the answer has the form of the source
line that ``meta`` records (``X`` exactly at the fakes, brackets exactly at the
misused characters, the target with every error corrected).
"""

from __future__ import annotations

import io
import json

from PIL import Image, UnidentifiedImageError

from cogforge.qc.core import Build, CheckResult, Finding

DEFAULTS = {"sentences": "generators/data/symbols_sentences.tsv",
            "confusions": "generators/data/symbols_confusions.tsv",
            "misuse_sites": "generators/data/symbols_misuse_sites.tsv"}


def _errors_problem(task: str, fakes: list, substitutions: list) -> str | None:
    indices = [f["index"] for f in fakes] + [s["index"] for s in substitutions]
    if len(set(indices)) != len(indices):
        return f"two errors at one position: {sorted(indices)}"
    if task == "faked-characters" and (substitutions or not fakes):
        return "a faked-characters item needs fakes and no substitutions"
    if task == "misused-characters" and (fakes or not substitutions):
        return "a misused-characters item needs substitutions and no fakes"
    if task == "correction" and not indices:
        return "a correction item has no error"
    return None


def _generated_problem(item, data, fake_check) -> str | None:
    from cogforge.generators.symbols import language

    sentences, rules, sites = data
    m, task = item.meta, item.task.removeprefix("language-")
    sentence = sentences.get(m["sentence_id"])
    if sentence is None:
        return f"sentence {m['sentence_id']!r} is not in the sentence file"
    if m.get("split_unit") != m["sentence_id"]:
        return f"split unit {m.get('split_unit')!r} is not the sentence id"
    problem = _errors_problem(task, m["fakes"], m["substitutions"])
    if problem:
        return problem
    for f in m["fakes"]:
        if not 0 <= f["index"] < len(sentence) or sentence[f["index"]] != f["char"]:
            return f"fake at {f['index']}: the sentence has no {f['char']} there"
        why = fake_check(language.recipe(f))
        if why:
            return f"fake of {f['char']} at {f['index']} made again from its recipe: {why}"
    for s in m["substitutions"]:
        if (m["sentence_id"], s["index"], s["correct"], s["wrong"]) not in sites:
            return f"substitution {s['correct']}→{s['wrong']} at {s['index']} is no curated misuse site"
        rule = rules.get((s["correct"], s["wrong"]))
        if rule is None or s["rule"] != rule.key:
            return f"substitution at {s['index']}: rule {s['rule']!r} is not the confusion file's pair"
    want = language.answer(task, sentence, m["fakes"], m["substitutions"])
    if item.answer != want:
        return f"answer {item.answer!r}, meta gives {want!r}"
    if item.question != language.prompt(task):
        return "the prompt is not the task's prompt"
    if m.get("answer_format") != language.ANSWER_FORMATS[task]:
        return f"answer_format {m.get('answer_format')!r}"
    return None


def _imported_problem(item, build: Build) -> str | None:
    from cogforge.generators.symbols import language

    m, task = item.meta, item.task.removeprefix("language-")
    try:
        with Image.open(io.BytesIO((build.path / item.images[0]).read_bytes())) as image:
            image.load()
    except (UnidentifiedImageError, OSError) as err:
        return f"the imported picture cannot be read ({err})"
    fakes = {f["index"]: f["char"] for f in m["fakes"]}
    subs = {s["index"]: s for s in m["substitutions"]}
    if task == "correction":
        target = item.answer
        if any(target[k] != ch for k, ch in fakes.items()) or any(target[k] != s["correct"] for k, s in subs.items()):
            return "the corrected sentence does not hold the corrections meta records"
        source = "".join(language.FAKE if k in fakes else subs[k]["wrong"] if k in subs else ch
                         for k, ch in enumerate(target))
    else:  # the source line, with brackets around the misused characters in misused-characters
        cells = _cells_of(item.answer) if task == "misused-characters" else list(item.answer)
        bracket = task == "misused-characters"
        if [k for k, c in enumerate(cells) if c == language.FAKE] != sorted(fakes):
            return "the X positions are not meta's fakes"
        if any(cells[k] != (f"[{s['wrong']}]" if bracket else s["wrong"]) for k, s in subs.items()) or \
                sum(c.startswith("[") for c in cells) != (len(subs) if bracket else 0):
            return "the misused characters are not (only) where meta's substitutions are"
        source = "".join(c.strip("[]") if len(c) == 3 else c for c in cells)
    if m.get("char_boxes") and len(m["char_boxes"]) != len(source):
        return f"{len(m['char_boxes'])} boxes for {len(source)} characters"
    if m.get("answer_format") != language.ANSWER_FORMATS[task]:
        return f"answer_format {m.get('answer_format')!r}"
    return None


def _cells_of(marked: str) -> list[str]:
    """A bracketed transcription as one entry a character (``[的]`` is one)."""
    out, k = [], 0
    while k < len(marked):
        if marked[k] == "[" and k + 2 < len(marked) and marked[k + 2] == "]":
            out.append(marked[k:k + 3])
            k += 3
        else:
            out.append(marked[k])
            k += 1
    return out


def check(build: Build, items: list) -> CheckResult:
    from cogforge.generators.symbols import _fakes, language

    out = CheckResult()
    config = DEFAULTS | build.manifest.get("config", {}).get("domains", {}).get("language", {})
    sentences, rules, sites = language.load_data(config)
    data = ({s.id: s.text for s in sentences}, rules,
            {(s.sentence_id, s.position, s.right, s.wrong) for s in sites})
    checked: dict[str, str | None] = {}

    def fake_check(recipe: dict) -> str | None:
        key = json.dumps(recipe, sort_keys=True)
        if key not in checked:
            checked[key] = _fakes.check(recipe)[1]
        return checked[key]

    wrong = redrawn = imported = 0
    for item in items:
        m = item.meta
        try:
            problem = _imported_problem(item, build) if m.get("imported") else \
                _generated_problem(item, data, fake_check)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            problem = f"cannot be re-derived: {err!r}"
        if problem:
            wrong += 1
            out.findings.append(Finding("error", "language", item.id, problem))
        if m.get("imported"):
            imported += 1
            continue
        if item.meta["sentence_id"] not in data[0]:
            continue
        try:
            png, boxes = language.render(data[0][m["sentence_id"]], m["fakes"], m["substitutions"], m["style"])
        except (KeyError, TypeError, ValueError) as err:
            png, boxes = b"", [repr(err)]
        if [png] != [(build.path / rel).read_bytes() for rel in item.images] or boxes != m["char_boxes"]:
            redrawn += 1
            out.findings.append(Finding("error", "language-images", item.id,
                                        "drawing meta again does not give the item's image bytes and boxes"))
    out.stats = {"items": len(items), "imported": imported, "fakes_checked": len(checked),
                 "answers_not_rederived": wrong, "images_not_reproduced": redrawn}
    return out
