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
* anything else: the same text after lower-casing and dropping punctuation.

Replies are untrusted: a value is parsed by sympy only after every token has been
checked (numbers, ``sqrt``, ``pi``, ``oo``, arithmetic, brackets; small exponents), so
no reply runs code or asks for a huge power. sympy is imported when a mathematical
answer is judged (lmms-eval's environment has it through torch).
"""

import re

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
    return re.sub(r"[^a-z0-9]+", " ", answer.lower()).strip() == re.sub(r"[^a-z0-9]+", " ", row["answer"].lower()).strip()
