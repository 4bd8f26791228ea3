"""Language (paper Table 1, language rows T1-T3): handwritten-looking Chinese sentences
with faked and misused characters, drawn from our own sentences or imported from
Visual-C3.

Tasks (ids ``language-<name>``):

* ``faked-characters`` (T1): one or two characters of a sentence are faked glyphs (a
  real character with a stroke removed, added, lengthened or moved, or a component
  swapped; :mod:`generators.symbols._fakes` checks that none is a real character). The
  answer is the sentence as written with each faked character ``X`` (Visual-C3's form);
* ``misused-characters`` (T2): one or two real characters wrong in context, at the
  curated sites of ``symbols_misuse_sites.tsv`` (each the pair of a rule of
  ``symbols_confusions.tsv``); no fakes. The answer is the sentence as written with each
  misused character in square brackets;
* ``correction`` (T3): fakes, misuses or both (misuses only where the sentence has a
  curated site); the answer is the corrected sentence.

Sentences are split units: one ``sentence_id`` is in one split across the three tasks.
The tasks share out the sentences (misuse tasks first, as fewer sentences have sites),
so a sentence serves two tasks only when the counts ask for more sentences than there
are. Items imported from Visual-C3 (``--input visualc3=FOLDER``) come first; generated
ones fill each task to its count.

``meta`` holds what redraws the picture and recomputes the answer (the sentence id,
the fakes' recipes, the substitutions, the style, the character boxes), never the answer
string itself; prompts never show the sentence. Finding safe fakes is the slow part, and
the boxes come from the drawing, so ``make`` finds an item's fakes and draws its picture in
one job of its own seed, on every core (:func:`cogforge.core.parallel.draw_all`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from cogforge.core.errors import UserError, read_text
from cogforge.core.parallel import draw_all
from cogforge.generators.symbols import DomainConfig, Draft, Task, nth, resolve

DOMAIN = "language"
INPUTS = ("visualc3",)  # --input visualc3=FOLDER (a Visual-C3 split folder)
DEFAULT_COUNTS = {"faked-characters": 150, "misused-characters": 150, "correction": 150}
ANSWER_FORMATS = {"faked-characters": "x-transcription", "misused-characters": "marked-transcription",
                  "correction": "zh-sentence"}
CREDITS = [
    "Character strokes: hanzi-writer-data 2.0.1 (npm; Arphic Public License), from Make Me a Hanzi, "
    "itself derived from Arphic PL KaitiM GB and Arphic PL UKai.",
    "Handwriting font: Arphic PL UKai from Debian fonts-arphic-ukai (Arphic Public License).",
    "Sentences, confusion rules and misuse sites: `generators/data/symbols_sentences.tsv`, "
    "`symbols_confusions.tsv`, `symbols_misuse_sites.tsv`, written for cogforge.",
    "Imported items (when given): Visual-C3 (THUKElab), under its own terms.",
]
FAKE = "X"
PUNCTUATION = frozenset("。，？！；：、")
HAN = re.compile(r"[\u4e00-\u9fff]")
FAKES_PER_SENTENCE = (1, 2)
MISUSES_PER_SENTENCE = (1, 2)
CORRECTION_KINDS = ("fakes", "misuses", "both")  # a sentence with no curated site gets fakes
SPARE = 8  # sentences planned beyond the count, for those in which no safe fake is found

_FAKED = ("some of its characters are faked: each looks like a Chinese character written in the same hand but "
          "is not a real character (a stroke is missing, added, lengthened or moved, or a component is swapped)")
_MISUSED = ("some of its characters are misused: real characters, but the wrong ones in this context "
            "(characters often confused with the right one)")
PROMPTS = {
    "faked-characters": ("The image shows a handwritten Chinese sentence; " + _FAKED + ". Transcribe the sentence "
                         "exactly as written, punctuation included, writing the capital letter X in place of each "
                         "faked character. Give the transcription on the last line as 'Answer: SENTENCE'."),
    "misused-characters": ("The image shows a handwritten Chinese sentence; " + _MISUSED + ". Transcribe the "
                           "sentence exactly as written, punctuation included, and put each misused character in "
                           "square brackets. Give the transcription on the last line as 'Answer: SENTENCE'."),
    "correction": ("The image shows a handwritten Chinese sentence with errors: faked characters (each looks like a "
                   "Chinese character but is not a real one: a stroke is missing, added, lengthened or moved, or a "
                   "component is swapped), misused characters (real characters, but the wrong ones in this "
                   "context), or both. Write the corrected sentence: each faked or misused character replaced by "
                   "the character the sentence needs, every other character and the punctuation as written. Give "
                   "it on the last line as 'Answer: SENTENCE'."),
}
# an imported misused-character line that also has faked characters keeps them as X
_ALSO_FAKED = (" Some characters are faked (not real characters): write the capital letter X for each of them.")


def prompt(task: str, has_fakes: bool = False) -> str:
    """The prompt of a task (the same for generated and imported items)."""
    text = PROMPTS[task]
    if task == "misused-characters" and has_fakes:
        head, tail = text.split(" Give the transcription")
        text = head + _ALSO_FAKED + " Give the transcription" + tail
    return text


class LanguageDataError(UserError):
    """A curated language data file (sentences, confusions, misuse sites) that is wrong."""


class Config(DomainConfig):
    """``[domains.language]`` in ``builders/symbols.toml``."""

    DOMAIN = "language"
    DEFAULT_COUNTS = DEFAULT_COUNTS
    sentences: str = "generators/data/symbols_sentences.tsv"
    confusions: str = "generators/data/symbols_confusions.tsv"
    misuse_sites: str = "generators/data/symbols_misuse_sites.tsv"
    visualc3: list[str] = []  # Visual-C3 split folders; also --input visualc3=FOLDER


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Sentence:
    id: str
    text: str
    line: int


@dataclass(frozen=True)
class Rule:
    right: str
    wrong: str
    rule: str  # when ``right`` is required and why ``wrong`` is wrong there
    example: str
    line: int

    @property
    def key(self) -> str:
        return f"{self.right}→{self.wrong}"


@dataclass(frozen=True)
class Site:
    sentence_id: str
    position: int  # 0-based in the sentence, punctuation counted
    right: str
    wrong: str
    why: str
    line: int


def _rows(path: Path, header: tuple[str, ...], what: str) -> list[tuple[int, list[str]]]:
    """A tab-separated file's rows after its header, as ``(line, fields)``; every field
    non-empty and trimmed."""
    text = read_text(path, what, error=LanguageDataError)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].rstrip("\r").split("\t") != list(header):
        raise LanguageDataError(f"the header must be {chr(9).join(header)!r} (tab-separated)", path, 1)
    out = []
    for number, line in enumerate(lines[1:], 2):
        fields = line.rstrip("\r").split("\t")
        if len(fields) != len(header) or any(not f or f != f.strip() for f in fields):
            raise LanguageDataError(f"expected {len(header)} non-empty tab-separated fields without surrounding "
                                    f"spaces ({', '.join(header)}); fix the line", path, number)
        out.append((number, fields))
    return out


def _is_han(ch: str) -> bool:
    return len(ch) == 1 and bool(HAN.fullmatch(ch))


def load_sentences(path: Path, strokes: Path) -> list[Sentence]:
    """``id<TAB>sentence`` lines: Han characters with stroke data in ``strokes`` and the
    full-width punctuation of :data:`PUNCTUATION`; no id or sentence twice."""
    out, ids, texts = [], {}, {}
    for number, (sid, text) in _rows(path, ("id", "sentence"), "sentence file"):
        for ch in text:
            if ch in PUNCTUATION:
                continue
            if not _is_han(ch):
                raise LanguageDataError(f"{sid}: {ch!r} is neither a Han character nor full-width punctuation "
                                        f"({''.join(sorted(PUNCTUATION))})", path, number)
            if not (strokes / f"{ch}.json").is_file():
                raise LanguageDataError(f"{sid}: {ch} has no stroke data in {strokes}; rewrite the sentence "
                                        "without it", path, number)
        if sid in ids:
            raise LanguageDataError(f"id {sid} already on line {ids[sid]}", path, number)
        if text in texts:
            raise LanguageDataError(f"{sid}: the sentence is already on line {texts[text]}", path, number)
        ids[sid], texts[text] = number, number
        out.append(Sentence(sid, text, number))
    if not out:
        raise LanguageDataError("no sentences", path)
    return out


def load_confusions(path: Path, strokes: Path) -> dict[tuple[str, str], Rule]:
    """``right<TAB>wrong<TAB>rule<TAB>example`` lines: one directed pair a line."""
    out: dict[tuple[str, str], Rule] = {}
    for number, (right, wrong, rule, example) in _rows(path, ("right", "wrong", "rule", "example"),
                                                       "confusion file"):
        if not (_is_han(right) and _is_han(wrong)) or right == wrong:
            raise LanguageDataError("right and wrong must be two different Han characters", path, number)
        for ch in (right, wrong):
            if not (strokes / f"{ch}.json").is_file():
                raise LanguageDataError(f"{ch} has no stroke data in {strokes}", path, number)
        if (right, wrong) in out:
            raise LanguageDataError(f"the pair {right}→{wrong} is already on line {out[right, wrong].line}",
                                    path, number)
        if right not in example:
            raise LanguageDataError(f"the example does not contain {right}", path, number)
        out[right, wrong] = Rule(right, wrong, rule, example, number)
    return out


def load_sites(path: Path, sentences: list[Sentence], rules: dict[tuple[str, str], Rule]) -> list[Site]:
    """``sentence_id<TAB>position<TAB>right<TAB>wrong<TAB>why`` lines: the sentence's
    character at the position is ``right`` and the pair is a rule of the confusion file."""
    by_id = {s.id: s for s in sentences}
    out, seen = [], {}
    header = ("sentence_id", "position", "right", "wrong", "why")
    for number, (sid, position, right, wrong, why) in _rows(path, header, "misuse site file"):
        if sid not in by_id:
            raise LanguageDataError(f"unknown sentence id {sid}", path, number)
        text = by_id[sid].text
        if not position.isdigit() or int(position) >= len(text):
            raise LanguageDataError(f"position {position} is not a 0-based index of {sid} ({len(text)} "
                                    "characters, punctuation counted)", path, number)
        p = int(position)
        if text[p] != right:
            raise LanguageDataError(f"{sid}[{p}] is {text[p]}, not {right}", path, number)
        if (right, wrong) not in rules:
            raise LanguageDataError(f"the pair {right}→{wrong} is no rule of the confusion file", path, number)
        if (sid, p, wrong) in seen:
            raise LanguageDataError(f"the same site is already on line {seen[sid, p, wrong]}", path, number)
        seen[sid, p, wrong] = number
        out.append(Site(sid, p, right, wrong, why, number))
    return out


# --------------------------------------------------------------------------- answers and pictures


def written(sentence: str, substitutions: list[dict]) -> str:
    """The sentence as written: each substitution's wrong character in place."""
    chars = list(sentence)
    for s in substitutions:
        chars[s["index"]] = s["wrong"]
    return "".join(chars)


def answer(task: str, sentence: str, fakes: list[dict], substitutions: list[dict]) -> str:
    """A generated item's answer from the plain sentence and ``meta``'s fakes and substitutions."""
    if task == "correction":
        return sentence
    chars = list(written(sentence, substitutions))
    for f in fakes:
        chars[f["index"]] = FAKE
    if task == "misused-characters":
        for s in substitutions:
            chars[s["index"]] = f"[{chars[s['index']]}]"
    return "".join(chars)


def _cells(text: str, fakes: list[dict]) -> list:
    from cogforge.generators.symbols import _fakes

    cells: list = list(text)
    for f in fakes:
        cells[f["index"]] = _fakes.apply(recipe(f))
    return cells


def recipe(fake: dict) -> dict:
    """A fake's recipe as :func:`_fakes.apply` takes it (``meta`` adds the index)."""
    return {k: v for k, v in fake.items() if k != "index"}


def render(sentence: str, fakes: list[dict], substitutions: list[dict], style: dict) -> tuple[bytes, list]:
    """The picture of a generated item and its character boxes, from the plain sentence and
    ``meta`` (QC draws it again with this)."""
    from cogforge.generators.symbols import _hanzi

    png, found = _hanzi.render_sentence(_cells(written(sentence, substitutions), fakes), _hanzi.Style.from_dict(style))
    return png, [list(b) for b in found]


# --------------------------------------------------------------------------- domain


def load_data(config: dict) -> tuple[list[Sentence], dict[tuple[str, str], Rule], list[Site]]:
    """The sentences, confusion rules and misuse sites a ``[domains.language]`` table names."""
    from cogforge.generators.symbols import _hanzi

    strokes = _hanzi.stroke_folder()
    sentences = load_sentences(resolve(config["sentences"]), strokes)
    rules = load_confusions(resolve(config["confusions"]), strokes)
    return sentences, rules, load_sites(resolve(config["misuse_sites"]), sentences, rules)


def prepare(config: dict, inputs: dict[str, list[str]], progress: bool) -> SimpleNamespace:
    from cogforge.generators.symbols import _fakes, _hanzi, _visualc3

    sentences, rules, sites = load_data(config)
    # read once here, before the pictures are made on every core: the workers share these
    _fakes.index()
    for ch in sorted({ch for s in sentences for ch in s.text} | {r.wrong for r in rules.values()}):
        _hanzi.glyph(ch)
    dropped: Counter = Counter()
    imported: dict[str, list[Draft]] = {task: [] for task in DEFAULT_COUNTS}
    folders = list(config["visualc3"]) + list(inputs.get("visualc3", []))
    for folder in folders:
        found, left = _visualc3.load(resolve(folder), prompt)
        dropped.update(left)
        for task, drafts in found.items():
            for d in drafts:
                d.meta["answer_format"] = ANSWER_FORMATS[task]
            imported[task] += drafts
    wanted = counts(config)
    for task, drafts in imported.items():
        if len(drafts) > wanted[task]:
            dropped[f"{task} (imported beyond the count)"] += len(drafts) - wanted[task]
            del drafts[wanted[task]:]
    generated = {task: wanted[task] - len(imported[task]) for task in DEFAULT_COUNTS}
    return SimpleNamespace(sentences={s.id: s for s in sentences}, rules=rules,
                           sites=_by_sentence(sites), imported=imported,
                           order=share_out(sentences, {s.sentence_id for s in sites}, generated),
                           dropped=dropped,
                           sources={"sentences": "generated", "visualc3": [str(f) for f in folders]})


def counts(config: dict) -> dict[str, int]:
    return DEFAULT_COUNTS | dict(config["counts"])


def _by_sentence(sites: list[Site]) -> dict[str, list[Site]]:
    out: dict[str, list[Site]] = {}
    for site in sites:
        out.setdefault(site.sentence_id, []).append(site)
    return out


def share_out(sentences: list[Sentence], with_sites: set[str], wanted: dict[str, int]) -> dict[str, list[str]]:
    """Each task's sentence ids in the order it takes them: first its share (no sentence
    in two shares while unused ones remain), then every other eligible sentence (when
    fakes cannot be made in some, or the count asks for more sentences than there are).

    The misuse task can only use sentences with a curated site, so it chooses first;
    correction takes the other sentences with sites, then the rest; faked characters
    takes what is left. Sentences are taken in the order of their id's hash, so the
    shares do not depend on the file's order."""
    def order(ids):
        return sorted(ids, key=lambda i: hashlib.sha256(f"language:{i}".encode()).hexdigest())

    every = order(s.id for s in sentences)
    sited = [i for i in every if i in with_sites]
    plain = [i for i in every if i not in with_sites]
    used: Counter = Counter()
    out = {}
    for task, eligible in (("misused-characters", sited), ("correction", sited + plain),
                           ("faked-characters", plain + sited)):
        share = [i for i in eligible if not used[i]][:wanted.get(task, 0)]
        if len(share) < wanted.get(task, 0):  # reuse the least used sentences
            rest = sorted((i for i in eligible if i not in share), key=lambda i: used[i])
            share += rest[:wanted[task] - len(share)]
        used.update(share)
        out[task] = share + [i for i in eligible if i not in set(share)]
    return out


def _make_fakes(sentence: str, n: int, rng: random.Random, avoid: set[int]) -> list[dict]:
    """Up to ``n`` fakes at distinct positions of ``sentence`` (not in ``avoid``), each a
    recipe of :func:`_fakes.make_fake` (a character it cannot fake safely is skipped)."""
    from cogforge.generators.symbols import _fakes

    positions = [k for k, ch in enumerate(sentence) if _is_han(ch) and k not in avoid]
    rng.shuffle(positions)
    out = []
    for k in positions:
        made = _fakes.make_fake(sentence[k], rng) if n else None
        if made is None:
            continue
        made = json.loads(json.dumps(made))  # the form meta keeps (tuples become lists), drawn the same
        out.append({"index": k, "char": sentence[k], **{key: v for key, v in made.items() if key != "char"}})
        if len(out) == n:
            break
    return sorted(out, key=lambda f: f["index"])


PUNCTUATION = set("。，、；：？！…—“”‘’（）《》")


def no_line_starts_with_punctuation(sentence: str, per_line: int) -> int:
    """Characters a line, from ``per_line`` up, such that no line of the sentence begins
    with a punctuation mark: on essay paper a writer squeezes it into the line before."""
    while any(sentence[k] in PUNCTUATION for k in range(per_line, len(sentence), per_line)):
        per_line += 1
    return per_line


def _picture(sentence: str, substitutions: list[dict], n_fakes: int, seed: int) -> tuple:
    """One item's fakes, style, character boxes and picture, from its own seed alone (made
    on every core: finding safe fakes is the slow part of the domain)."""
    from cogforge.generators.symbols import _hanzi

    rng = random.Random(seed)
    fakes = _make_fakes(sentence, n_fakes, rng, {s["index"] for s in substitutions})
    style = json.loads(json.dumps(_hanzi.Style.draw(rng).to_dict()))
    style["per_line"] = no_line_starts_with_punctuation(sentence, style["per_line"])
    if n_fakes and not fakes:
        return fakes, style, [], b""
    png, found = render(sentence, fakes, substitutions, style)
    return fakes, style, found, png


def _substitutions(ctx, sid: str, n: int, rng: random.Random) -> list[dict]:
    sites = list(ctx.sites.get(sid, []))
    rng.shuffle(sites)
    out, taken = [], set()
    for site in sites:
        if site.position in taken:
            continue
        taken.add(site.position)
        out.append({"index": site.position, "correct": site.right, "wrong": site.wrong,
                    "rule": ctx.rules[site.right, site.wrong].key})
        if len(out) == n:
            break
    return sorted(out, key=lambda s: s["index"])


def _plan(ctx, task: str, sid: str, turn: int, rng: random.Random) -> tuple:
    """A sentence's misuses, number of fakes and picture seed; ``turn`` picks what a
    correction item of a sentence with curated sites shows. A stream item's knobs
    (``ctx.knobs``: ``fakes``, ``misuses``) set the numbers the build draws."""
    knobs = getattr(ctx, "knobs", {})
    # a knob asks for what it sets: a correction item with the knob misuses shows misuses
    # (and maybe fakes), with the knob fakes shows fakes
    kinds = [k for k in CORRECTION_KINDS
             if not (k == "fakes" and "misuses" in knobs) and not (k == "misuses" and "fakes" in knobs)]
    kind = "fakes" if task == "faked-characters" else "misuses" if task == "misused-characters" else \
        kinds[turn % len(kinds)] if sid in ctx.sites else "fakes"
    substitutions = [] if kind == "fakes" else _substitutions(
        ctx, sid, knobs.get("misuses", rng.choice(MISUSES_PER_SENTENCE)), rng)
    n_fakes = 0 if kind == "misuses" else knobs.get("fakes", rng.choice(FAKES_PER_SENTENCE))
    return ctx.sentences[sid], substitutions, n_fakes, rng.randrange(2 ** 63)


def _draft(ctx, task: str, plan: tuple, made: tuple) -> Draft | None:
    """The item of a plan and its picture; None when no safe fake was found."""
    (sentence, substitutions, n_fakes, _seed), (fakes, style, char_boxes, png) = plan, made
    if n_fakes and not fakes:
        ctx.dropped[f"{task} (no safe fake in {sentence.id})"] += 1
        return None
    meta = {"sentence_id": sentence.id, "fakes": fakes, "substitutions": substitutions, "style": style,
            "char_boxes": char_boxes, "answer_format": ANSWER_FORMATS[task]}
    return Draft(prompt(task), [png], None, answer(task, sentence.text, fakes, substitutions), sentence.id, meta)


def _maker(task: str):
    def make(ctx, count: int, rng: random.Random) -> list[Draft]:
        out = list(ctx.imported[task][:count])
        # a few spare sentences: one in which no safe fake is found is replaced by the next
        plans = []
        for sid in ctx.order[task][:max(0, count - len(out)) + SPARE]:
            plans.append(_plan(ctx, task, sid, len(plans), rng))
        made = draw_all([functools.partial(_picture, s.text, subs, n, seed) for s, subs, n, seed in plans],
                        progress=False, desc=f"language {task}")
        for plan, picture in zip(plans, made):
            if len(out) >= count:
                break
            draft = _draft(ctx, task, plan, picture)
            if draft:
                out.append(draft)
        return out
    return make


def _streamer(task: str):
    def stream(ctx, count: int, rng: random.Random) -> list[Draft]:
        """One item: a sentence drawn from every sentence the task can use (with replacement;
        the build shares them out between the tasks), planned and drawn as the build does."""
        plan = _plan(ctx, task, rng.choice(ctx.order[task]), nth(ctx, 0), rng)
        sentence, substitutions, n_fakes, seed = plan
        draft = _draft(ctx, task, plan, _picture(sentence.text, substitutions, n_fakes, seed))
        knobs = getattr(ctx, "knobs", {})
        if draft is None or any(len(draft.meta[key]) != knobs[knob]
                                for knob, key in (("fakes", "fakes"), ("misuses", "substitutions")) if knob in knobs):
            return []  # not as many fakes or misuses as the knob asks: the sentence has no more (drawn again)
        return [draft]
    return stream


# a stream item's knobs (``builders/symbols.py``): faked and misused characters per sentence
STREAM_KNOBS = {"faked-characters": {"fakes": FAKES_PER_SENTENCE}, "misused-characters": {"misuses": MISUSES_PER_SENTENCE},
                "correction": {"fakes": FAKES_PER_SENTENCE, "misuses": MISUSES_PER_SENTENCE}}

TASKS = {
    "faked-characters": Task(1, "Lang T1", _maker("faked-characters"), mcq=False,
                             stream=_streamer("faked-characters")),
    "misused-characters": Task(2, "Lang T2", _maker("misused-characters"), mcq=False,
                               stream=_streamer("misused-characters")),
    "correction": Task(3, "Lang T3", _maker("correction"), mcq=False, stream=_streamer("correction")),
}
