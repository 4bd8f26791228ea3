"""Free answers of the symbols benchmark, judged by the format ``meta.answer_format`` names.

Standard library only: lmms-eval's generated ``utils.py`` embeds this module verbatim
(exports/lmms_eval.py), so scores there match ``cogforge eval score``.

* ``formula``: a molecular formula, compared by element counts (any order, Unicode
  subscripts and spaces allowed);
* ``integer list``: coefficients such as ``2, 1, 2`` (commas, spaces or colons);
* ``number``: within ``meta.tolerance`` (absolute) of the answer;
* ``exact``: a value (``3*sqrt(2)``, ``5/2``, ``25*pi/4``, ``3√2``, ``\\frac{5}{2}``) equal to the
  answer by sympy (``simplify(a - b) == 0``); a decimal counts as the exact decimal it
  writes (``2.5`` is ``5/2``, ``1.414`` is not ``sqrt(2)``);
* ``interval``: a union of intervals (``(-oo, 1) U (2, oo)``, ``[-2, 3)``, ``R``) equal
  to the answer as a set;
* ``set``: a finite set of values (``{-1, 2}``, ``{}``) equal to the answer as a set;
* ``word-en``: an English word (Cult T1), equal ignoring case, spaces, hyphens and a
  leading article (``Pine-apple`` is ``pineapple``);
* ``phrase-en``: an English idiom or phrase (Cult T2), the same words in the same order,
  compared the same way (``A piece of cake!`` is ``piece of cake``);
* ``zh-idiom``: a Chinese idiom (Cult T3, T4), the same Han characters in the same order
  (punctuation, spaces, Latin letters and a bracketed aside such as pinyin are dropped);
* ``zh-sentence``: a Chinese sentence (Lang T3), the same text once spaces are dropped,
  punctuation folded (``。`` is ``.``, ``，`` is ``,``) and final punctuation and quotes removed;
* ``x-transcription`` (Lang T1, faked characters written ``X``) and ``marked-transcription``
  (Lang T2, misused characters in ``[ ]``): the reply is aligned to the gold transcription by
  a minimal edit script (:func:`edit_opcodes`, the same as rapidfuzz's) and is right when it
  is a transcription of the sentence and its marked positions are exactly the gold's
  (:func:`mark_counts`);
* anything else: the same text after NFKC, case-folding and dropping punctuation (a reply
  with nothing left is never right).

A reply's lead phrase (``The idiom is``, ``The word is``, ``Answer:``, ``答案：``, ``成语是``) is
dropped before it is compared, and so are quotes around it and its final punctuation. Text is
first NFKC-normalised, which folds full-width forms (``：，！？（）［］Ｘ``) to ASCII; the CJK
punctuation NFKC leaves alone is folded by ``_CJK_PUNCTUATION`` (``。`` to ``.``, ``、`` to ``,``,
``“”「」《》`` to ``"``, ``【】`` to ``[]``). No Chinese reply falls through to a comparison that
drops every non-Latin character: a wrong Chinese answer is wrong whatever its format.

Replies are untrusted: a value is parsed by sympy only after every token has been
checked (numbers, ``sqrt``, ``pi``, ``oo``, arithmetic, brackets; small exponents), so
no reply runs code or asks for a huge power. sympy is imported when a mathematical
answer is judged (lmms-eval's environment has it through torch).
"""

import re
import unicodedata

SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def atom_counts(text: str) -> dict | None:
    """Atoms per element of a formula without parentheses (C8H10N4O2, H10C8O2N4)."""
    text = re.sub(r"\s+", "", text.translate(SUBSCRIPT_DIGITS)).strip(".")
    if not re.fullmatch(r"(?:[A-Z][a-z]?\d*)+", text):
        return None
    counts: dict = {}
    for element, digits in re.findall(r"([A-Z][a-z]?)(\d*)", text):
        counts[element] = counts.get(element, 0) + int(digits or 1)
    return counts


def integers(text: str) -> list | None:
    text = re.sub(r"(?i)\b(coefficients?|answer)\b\s*:?", "", text)
    if re.search(r"[A-Za-z]", text):
        return None
    numbers = re.findall(r"\d+", text)
    return [int(n) for n in numbers] or None


def number(text: str) -> float | None:
    found = re.findall(r"-?\d+(?:\.\d+)?(?:[eE]-?\d+)?", text.replace(",", ""))
    return float(found[0]) if len(found) == 1 else None


_MATH_SPELLINGS = [("\u2212", "-"), ("\u00d7", "*"), ("\u00b7", "*"), ("\u03c0", "pi"), ("\u221e", "oo"),
                   ("\\infty", "oo"), ("\\pi", "pi"), ("\\cdot", "*"), ("\\times", "*"), ("\\left", ""),
                   ("\\right", ""), ("\u00b0", ""), ("^\\circ", ""), ("\\cup", " U "), ("\u222a", " U "),
                   ("\\emptyset", "{}"), ("\u2205", "{}"), ("\\varnothing", "{}"), ("$", "")]
_VALUE = re.compile(r"(?:\d+(?:\.\d+)?|sqrt|pi|oo|\*\*|[-+*/^()\s])*")
MAX_VALUE_CHARS = 80


def _math_text(text: str) -> str:
    """A reply's value in sympy's spelling: Unicode and LaTeX signs replaced, units dropped."""
    t = text.strip().rstrip(".")
    for old, new in _MATH_SPELLINGS:
        t = t.replace(old, new)
    while True:  # innermost first: \frac{19 \sqrt{3}}{3}
        before = t
        t = re.sub(r"\\sqrt\{([^{}]*)\}", r"sqrt(\1)", t)
        t = re.sub(r"\\d?frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", t)
        if t == before:
            break
    t = re.sub(r"\u221a\s*(\d+(?:\.\d+)?|\([^()]*\))", lambda m: "sqrt(" + m.group(1).strip("()") + ")", t)
    t = re.sub(r"(?i)\b(?:degrees?|deg|units?|square units|cm|m)\b\.?", "", t)
    t = re.sub(r"(?i)\binf(?:inity)?\b", "oo", t)
    return t.strip()


_EXPONENT = re.compile(r"\s*(?:-?\d+|\(\s*-?\d+\s*(?:/\s*\d+\s*)?\))")


def _small_powers(t: str) -> bool:
    """At most three powers, each a whole number or fraction up to 12, none raised again
    straight away: 9^9^9 or 2^(10^6) would not finish."""
    pieces = re.split(r"\^|\*\*", t)[1:]
    if len(pieces) > 3:
        return False
    for k, piece in enumerate(pieces):
        m = _EXPONENT.match(piece)
        if m is None or any(int(n) > 12 for n in re.findall(r"\d+", m.group(0))):
            return False
        if k < len(pieces) - 1 and not piece[m.end():].strip():
            return False
    return True


def exact_value(text: str):
    """The sympy value of one reply term, or None when it is not a plain exact value."""
    t = _math_text(text).replace("{", "(").replace("}", ")")
    if not t or len(t) > MAX_VALUE_CHARS or not _VALUE.fullmatch(t):
        return None
    if not _small_powers(t):
        return None
    import sympy
    from sympy.parsing.sympy_parser import (convert_xor, implicit_multiplication, parse_expr,
                                            standard_transformations)
    try:
        value = parse_expr(t, local_dict={"sqrt": sympy.sqrt, "pi": sympy.pi, "oo": sympy.oo},
                           transformations=standard_transformations + (implicit_multiplication, convert_xor))
        value = sympy.nsimplify(sympy.sympify(value), rational=True)
    except (SyntaxError, TypeError, ValueError, ZeroDivisionError, AttributeError, RecursionError):
        return None
    if value.has(sympy.zoo, sympy.nan) or not (value.is_number or value in (sympy.oo, -sympy.oo)):
        return None  # 1/0, 0/0, or not a number at all
    return value


def same_value(a, b) -> bool:
    import sympy

    if a is None or b is None:
        return False
    if not (a.is_finite and b.is_finite):  # oo - oo is nan: infinities compare as themselves
        return a == b
    return sympy.simplify(a - b) == 0


def value_set(text: str):
    """A finite set of values: ``{-1, 2}``, ``-1, 2``, ``x = -1 or x = 2``; ``{}`` or none is empty."""
    t = _math_text(text).strip()
    if re.fullmatch(r"(?i)\{\s*\}|none|no (?:zeros?|solutions?|values?)|empty(?: set)?", t):
        return []
    t = re.sub(r"(?i)\b[a-z]\s*=\s*", "", t.strip("{}"))
    parts = [p for p in re.split(r"(?i),|;|\band\b|\bor\b", t) if p.strip()]
    values = [exact_value(p) for p in parts]
    return None if not values or any(v is None for v in values) else values


def interval_set(text: str):
    """A union of intervals (and finite sets) as a sympy set, or None."""
    import sympy

    t = _math_text(text)
    if re.fullmatch(r"(?i)r|\u211d|\\mathbb\{r\}|all real(?: numbers)?|\(-oo,\s*oo\)", t.strip()):
        return sympy.Interval(-sympy.oo, sympy.oo)
    pieces = [p.strip() for p in re.split(r"\s+U\s+|\s+u\s+|(?i:\s+or\s+)", t) if p.strip()]
    out = sympy.EmptySet
    for piece in pieces or ["{}"]:
        m = re.fullmatch(r"([\[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])", piece)
        if m:
            lo, hi = exact_value(m.group(2)), exact_value(m.group(3))
            if lo is None or hi is None:
                return None
            out = sympy.Union(out, sympy.Interval(lo, hi, m.group(1) == "(", m.group(4) == ")"))
        elif piece.startswith("{"):
            values = value_set(piece)
            if values is None:
                return None
            out = sympy.Union(out, sympy.FiniteSet(*values))
        else:
            return None
    return out


# --------------------------------------------------------------------------- free text (culture, language)

# CJK punctuation that NFKC leaves as it is, folded to the ASCII sign NFKC gives its full-width twin
_CJK_PUNCTUATION = str.maketrans({"。": ".", "、": ",", "“": '"', "”": '"', "‘": "'", "’": "'", "「": '"',
                                  "」": '"', "『": '"', "』": '"', "《": '"', "》": '"', "〈": '"', "〉": '"',
                                  "【": "[", "】": "]", "〔": "(", "〕": ")", "—": "-", "–": "-", "・": "·"})
# "The idiom is", "The English word is", "Answer:", "Final answer:", "答案：", "这个成语是", ... at the start
_LEAD_PHRASE = re.compile(
    r"^(?:(?:so|thus|therefore|hence|i think|i believe)\s*,?\s+)?(?:(?:the|my|final|this|that)\s+)*"
    r"(?:(?:english|chinese|compound|corrected|correct|complete|final|four-character|whole)\s+)*"
    r"(?:answer|idiom|phrase|word|expression|saying|proverb|sentence|chengyu|transcription)\s*(?:is\b|:|=)\s*"
    r"|^(?:我认为|我觉得|所以|因此)?,?(?:最终|正确)?(?:的)?(?:答案|成语|这个成语|词语|句子|改正后的句子|修改后的句子|"
    r"更正后的句子|正确的句子|改正后|修改后)\s*(?:是|为|应为|:)\s*", re.I)
_TRIM = " \t\r\n\"'`*_.,;:!?~·-"
_ASIDE = re.compile(r"\s*\([^()]*\)\s*")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
MARKS = {"x-transcription": "Xx"}  # the characters that mark a position; marked-transcription uses [ ]
TRANSCRIPTION_SIMILARITY = 0.5


def folded(text: str) -> str:
    """NFKC, then CJK punctuation folded to ASCII (``。`` ``.``, ``，`` ``,``, ``【】`` ``[]``)."""
    return unicodedata.normalize("NFKC", text).translate(_CJK_PUNCTUATION)


def _reply_core(text: str, lead: bool = True) -> str:
    """The folded text without lead phrases, surrounding quotes and final punctuation."""
    t = folded(text).strip().strip(_TRIM)
    for _ in range(3):  # "Answer: The idiom is ..."
        if not lead:
            break
        stripped = _LEAD_PHRASE.sub("", t, count=1).strip().strip(_TRIM)
        if stripped == t or not stripped:
            break
        t = stripped
    return t


def _without_asides(text: str) -> str:
    """``pineapple (pine + apple)`` is ``pineapple``; an aside that is the whole text is kept."""
    out = _ASIDE.sub(" ", text).strip()
    return out or text


def en_words(text: str, lead: bool = True) -> list[str]:
    """An English answer's words: lower case, no punctuation (``don't`` is ``dont``; a hyphen
    splits), without a lead phrase, a bracketed aside or a leading article."""
    t = _without_asides(_reply_core(text, lead)).casefold().replace("'", "")
    words = re.sub(r"[\W_]+", " ", t).split()
    return words[1:] if len(words) > 1 and words[0] in ("a", "an", "the") else words


def zh_chars(text: str, lead: bool = True) -> str:
    """A Chinese idiom's Han characters, in order (punctuation, spaces, Latin letters and a
    bracketed aside such as pinyin dropped)."""
    return "".join(_HAN.findall(_without_asides(_reply_core(text, lead))))


def zh_text(text: str, lead: bool = True) -> str:
    """A Chinese sentence as compared: folded, no spaces, no surrounding quotes or final punctuation."""
    return re.sub(r"\s+", "", _reply_core(text, lead)).strip(_TRIM)


def marked_text(text: str, kind: str, lead: bool = True) -> tuple[str, frozenset]:
    """A transcription's characters and its marked positions.

    ``x-transcription``: ``X`` (any case, full-width too) marks a faked character and is kept
    as a character. ``marked-transcription``: a character in ``[ ]`` (or ``【】``, ``［］``) is marked;
    the brackets are not characters.
    """
    t = zh_text(text, lead)
    if kind in MARKS:
        return t, frozenset(k for k, ch in enumerate(t) if ch in MARKS[kind])
    chars, marked, inside = [], set(), False
    for ch in t:
        if ch in "[]":
            inside = ch == "["
            continue
        if inside:
            marked.add(len(chars))
        chars.append(ch)
    return "".join(chars), frozenset(marked)


def edit_opcodes(gold: str, reply: str) -> list[tuple]:
    """A minimal edit script turning ``gold`` into ``reply``, as ``(tag, i1, i2, j1, j2)`` steps
    (``equal``, ``replace``, ``insert``, ``delete``), the same steps, tie for tie, as
    ``rapidfuzz.distance.Levenshtein.opcodes`` (tested): the common prefix and suffix are equal
    blocks, and the rest is traced back through the Levenshtein table the way rapidfuzz's
    bit-parallel trace (Hyyrö 2004) breaks ties: a deletion where one is minimal, else an
    insertion where the cell before it is below its diagonal neighbour, else the diagonal.

    difflib's SequenceMatcher is not used: it matches longest blocks, not fewest edits, and
    pairs a misplaced ``X`` with a gold ``X`` a few characters away (measured on 1,251
    simulated Lang T1 replies: 28 got one true positive more than the minimal alignment, 1 less).
    """
    p = 0
    while p < min(len(gold), len(reply)) and gold[p] == reply[p]:
        p += 1
    s = 0
    while s < min(len(gold), len(reply)) - p and gold[len(gold) - 1 - s] == reply[len(reply) - 1 - s]:
        s += 1
    x, y = gold[p:len(gold) - s], reply[p:len(reply) - s]
    table = [list(range(len(y) + 1))]
    for i in range(1, len(x) + 1):
        prev, row, xi = table[-1], [i] + [0] * len(y), x[i - 1]
        for j in range(1, len(y) + 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (xi != y[j - 1]))
        table.append(row)
    edits, i, j = [], len(x), len(y)
    while i and j:
        if table[i][j] == table[i - 1][j] + 1:
            i -= 1
            edits.append(("delete", i, j))
        elif table[i][j - 1] == table[i - 1][j - 1] - 1:
            j -= 1
            edits.append(("insert", i, j))
        else:
            i, j = i - 1, j - 1
            if x[i] != y[j]:
                edits.append(("replace", i, j))
    edits += [("delete", k, 0) for k in range(i - 1, -1, -1)] + [("insert", 0, k) for k in range(j - 1, -1, -1)]
    steps, si, sj = [], 0, 0
    for tag, i, j in reversed(edits):
        i, j = i + p, j + p
        if i > si or j > sj:
            steps.append(("equal", si, i, sj, j))
        di, dj = int(tag != "insert"), int(tag != "delete")
        last = steps[-1] if steps else None
        if last and last[0] == tag and last[2] == i and last[4] == j:
            steps[-1] = (tag, last[1], i + di, last[3], j + dj)
        else:
            steps.append((tag, i, i + di, j, j + dj))
        si, sj = i + di, j + dj
    if si < len(gold) or sj < len(reply):
        steps.append(("equal", si, len(gold), sj, len(reply)))
    return steps


def pairs_from_opcodes(opcodes) -> list[tuple[int, int]]:
    """Aligned positions ``(i in gold, j in reply)`` of an edit script's ``(tag, i1, i2, j1, j2)``
    steps: equal and replaced characters are paired in order, inserted and deleted ones not."""
    pairs = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag in ("equal", "replace"):
            pairs += [(i1 + k, j1 + k) for k in range(min(i2 - i1, j2 - j1))]
    return pairs


def aligned_pairs(gold: str, reply: str) -> list[tuple[int, int]]:
    """The reply aligned to the gold text by a minimal edit script (:func:`edit_opcodes`): a
    reply that only changes characters in place is paired position by position (Visual-C3's
    ``eval.py`` requires that), one that adds or drops characters is paired around them."""
    return pairs_from_opcodes(edit_opcodes(gold, reply))


def mark_counts(reply: str, gold: str, kind: str) -> dict:
    """True positives, predicted and gold marks of a transcription (Lang T1, T2).

    A predicted mark is a true positive when it is aligned to a gold mark. A reply counts
    as a transcription of the sentence when at least half of the two texts' characters are
    aligned as equal (twice the equal pairs over both lengths >= ``TRANSCRIPTION_SIMILARITY``,
    difflib's ratio on the minimal alignment); a reply that is not (``X`` alone, a refusal)
    has no true positive, so its marks are all false positives and the gold's all missed.
    A reply more than three times the gold's length cannot be one and is not aligned.
    """
    g, gold_marks = marked_text(gold, kind, lead=False)
    r, reply_marks = marked_text(reply, kind)
    tp, similar = 0, False
    if r and len(r) <= 3 * len(g):
        steps = edit_opcodes(g, r)
        equal = sum(i2 - i1 for tag, i1, i2, _, _ in steps if tag == "equal")
        similar = 2 * equal / (len(g) + len(r)) >= TRANSCRIPTION_SIMILARITY
        tp = sum(1 for i, j in pairs_from_opcodes(steps) if i in gold_marks and j in reply_marks) if similar else 0
    return {"tp": tp, "pred": len(reply_marks), "gold": len(gold_marks), "transcription": similar}


def plain_text(text: str) -> str:
    """Any other answer: NFKC, case-folded, runs of non-word characters (Unicode-aware) as one space."""
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


def free_text_correct(answer: str, truth: str, kind) -> bool:
    """A free-text answer of the culture and language formats (and the fallback for any other)."""
    if kind in ("word-en", "phrase-en"):  # spaces and hyphens ignored: "foot ball" is "football"
        want = "".join(en_words(truth, lead=False))
        # the reply as it is, too: a phrase may begin like a lead phrase ("the word is out")
        return bool(want) and want in ("".join(en_words(answer)), "".join(en_words(answer, lead=False)))
    if kind == "zh-idiom":
        got = zh_chars(answer)
        return bool(got) and got == zh_chars(truth, lead=False)
    if kind == "zh-sentence":
        got = zh_text(answer)
        return bool(got) and got == zh_text(truth, lead=False)
    if kind in ("x-transcription", "marked-transcription"):
        c = mark_counts(answer, truth, kind)
        return c["transcription"] and c["tp"] == c["pred"] == c["gold"]
    got = plain_text(answer)
    return bool(got) and got == plain_text(truth)


def is_correct(answer: str, row: dict) -> bool:
    kind = row["meta"].get("answer_format")
    if kind == "exact":
        return same_value(exact_value(answer), exact_value(row["answer"]))
    if kind == "set":
        got, want = value_set(answer), value_set(row["answer"])
        if got is None or want is None or len(got) != len(want):
            return False
        return all(any(same_value(g, w) for g in got) for w in want) and \
            all(any(same_value(g, w) for w in want) for g in got)
    if kind == "interval":
        got, want = interval_set(answer), interval_set(row["answer"])
        return got is not None and want is not None and got.symmetric_difference(want).is_empty is True
    if kind == "formula":
        got = atom_counts(answer)
        return got is not None and got == atom_counts(row["answer"])
    if kind == "integer list":
        got = integers(answer)
        return got is not None and got == integers(row["answer"])
    if kind == "number":
        got = number(answer)
        return got is not None and abs(got - float(row["answer"])) <= float(row["meta"].get("tolerance", 0))
    return free_text_correct(answer, row["answer"], kind)
