"""General mathematics of the symbols benchmark (paper Table 1, mathematics T5, T12, T17):
symbols and short expressions, function-and-geometry problems on a grid, and analysis
read off plots, each answer re-derived by sympy in :func:`check`.

Tasks (the builder names them ``mathematics-<name>``):

* ``notation`` (Math T5, L1, multiple choice), two question kinds in turn:

  - ``meaning``: one symbol or notation of :data:`SYMBOLS` drawn large by matplotlib's
    mathtext (STIX fonts, no TeX); "what does it mean?". The table is split into groups
    of look-alike or related symbols (set relations, big operators, number sets...), and
    a question's distractors are meanings of other symbols of its own group, so each
    option text appears about as often as it is the answer (no answer-frequency cue).
    Items walk the groups round-robin, a new member of each group every round.
  - ``value``: a short expression with an exact small value (a sum, a binomial
    coefficient, a floor, a logarithm, a limit...) sampled from the parametrised
    templates of :data:`VALUE_TEMPLATES`; the distractors are the template's typical
    mistakes (off by one, the permutation count for a binomial, truncation for a floor
    of a negative number, a^(-n) read as -a^n...), topped up with neighbours. Mistakes
    made from the answer share its digits (1/8 beside 1/6 and -8), which would make the
    answer the options' centre; the triple of distractors is chosen to keep every
    option-only cue of :data:`CUES` at a quarter of the answers. The expression is kept
    in ``meta.expr`` as a sympy string (``Sum(k, (k, 1, 4))``), and the check evaluates
    it with sympy.

* ``combined`` (Math T12, L2, free exact answers): a line and/or a parabola on a grid
  whose intercepts, intersections or marked points are grid points (rejection sampling
  keeps only such figures, every marked point inside the window with a unit to spare):
  the area of the triangle a line makes with the axes, of the triangle two lines make
  with the x-axis, of the triangle of the origin and the two points where a line meets
  a parabola, the distance between those two points (an exact radical), and the slope
  of the chord through two marked points of a parabola. The check solves the
  intersections again with sympy and applies the shoelace formula.

* ``analysis`` (Math T17, L3, mixed; ``options`` is None for a free item):

  - ``derivative`` (free): f'(a) read from the tangent drawn at a marked point of a
    parabola (the tangent passes through a second grid point, so its slope is readable);
  - ``integral`` (free): the signed definite integral of a piecewise-linear f with
    corners on grid points (parts below the axis count negative);
  - ``limit`` (free): a limit at infinity or a one-sided limit at the vertical
    asymptote of f(x) = p + m/(x - r)^e, the asymptotes drawn dashed and named in the
    question (no formula is printed: the picture alone decides it);
  - ``solutions`` (multiple choice, :func:`count_options`): how many solutions f(x) = k
    has, f piecewise linear on a closed interval (no segment lies on y = k); the count
    (0-4) and k take their values in turn, independently, and the graph is moved up or
    down until they fit, so that k does not hint at the count;
  - ``claim`` (yes/no): a student's claim about a piecewise-linear f (its integral,
    where it increases or decreases, its maximum or minimum). Claims alternate correct
    (``error_type`` "none") and wrong, the wrong ones carrying the mistakes of
    :data:`ANALYSIS_ERRORS` in turn (|f| integrated, an interval's end read one unit
    past the corner where f turns, a lower local extremum taken for the global one).
    A round's correct and wrong claim state the same value or interval length, so the
    text does not tell. The check re-derives the property and, for a wrong claim,
    confirms that the named mistake produces it.

Rejection rules: no figure repeats within a task, no option equals another in value,
distractors never equal the answer, and a question whose decisive point is not a grid
point inside the window is never made.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import random
import re
from collections import Counter
from fractions import Fraction
from functools import partial

import numpy as np
from matplotlib.font_manager import FontProperties
from matplotlib.mathtext import MathTextParser

from cogforge.generators.symbols import Draft, Task, count_options, mcq_prompt, nth
from cogforge.generators.symbols._mathbase import DPI, SIZE, format_text, plot, png, sample_curve

SUB_FIELD = "general"
WINDOW = (-6, 6, -6, 6)  # every plot: a tick, grid line and label at each whole number
INNER = 5  # marked points and corners keep one unit from the window's edge

# ----------------------------------------------------------------------------- symbols

# (mathtext source, meaning, group). Within a group the symbols look alike or belong
# together, so their meanings are each other's distractors; no two meanings are equal.
SYMBOLS: list[tuple[str, str, str]] = [
    (r"\in", "is an element of", "set relations"),
    (r"\notin", "is not an element of", "set relations"),
    (r"\subset", "is a proper subset of", "set relations"),
    (r"\subseteq", "is a subset of or equal to", "set relations"),
    (r"\supset", "is a proper superset of", "set relations"),
    (r"\cup", "the union of two sets", "set operations"),
    (r"\cap", "the intersection of two sets", "set operations"),
    (r"\emptyset", "the empty set", "set operations"),
    (r"A^{c}", "the complement of a set", "set operations"),
    (r"\sum", "summation (adding many terms)", "big operators"),
    (r"\prod", "product (multiplying many terms)", "big operators"),
    (r"\int", "integral", "big operators"),
    (r"\oint", "integral around a closed curve", "big operators"),
    (r"\partial", "partial derivative", "calculus"),
    (r"\nabla", "gradient (the nabla operator)", "calculus"),
    (r"\Delta x", "a finite change in x", "calculus"),
    (r"dx", "an infinitely small change in x (differential)", "calculus"),
    (r"f\,'(x)", "the derivative of f", "calculus"),
    (r"\approx", "is approximately equal to", "equality"),
    (r"\equiv", "is identical to (congruent to)", "equality"),
    (r"\neq", "is not equal to", "equality"),
    (r"\propto", "is proportional to", "equality"),
    (r"<", "is less than", "order"),
    (r"\leq", "is less than or equal to", "order"),
    (r"\geq", "is greater than or equal to", "order"),
    (r"\ll", "is much less than", "order"),
    (r"\gg", "is much greater than", "order"),
    (r"\perp", "is perpendicular to", "geometry"),
    (r"\parallel", "is parallel to", "geometry"),
    (r"\|v\|", "norm (length) of a vector", "geometry"),  # beside ∥, not |x| (|x| is a norm too)
    (r"\angle", "angle", "geometry"),
    (r"\triangle", "triangle", "geometry"),
    (r"45^{\circ}", "degrees (a unit of angle)", "geometry"),
    (r"\mathbb{R}", "the set of real numbers", "number sets"),
    (r"\mathbb{N}", "the set of natural numbers", "number sets"),
    (r"\mathbb{Z}", "the set of integers", "number sets"),
    (r"\mathbb{Q}", "the set of rational numbers", "number sets"),
    (r"\mathbb{C}", "the set of complex numbers", "number sets"),
    (r"\Rightarrow", "implies", "logic"),
    (r"\Leftrightarrow", "if and only if", "logic"),
    (r"\wedge", "and (logical conjunction)", "logic"),
    (r"\vee", "or (logical disjunction)", "logic"),
    (r"\neg", "not (logical negation)", "logic"),
    (r"\forall", "for all", "quantifiers"),
    (r"\exists", "there exists", "quantifiers"),
    (r"\nexists", "there does not exist", "quantifiers"),
    (r"\therefore", "therefore", "quantifiers"),
    (r"\because", "because", "quantifiers"),
    (r"|x|", "absolute value", "functions"),
    (r"\lfloor x \rfloor", "floor (rounding down to an integer)", "functions"),
    (r"\lceil x \rceil", "ceiling (rounding up to an integer)", "functions"),
    (r"n!", "factorial", "functions"),
    (r"\sqrt{x}", "square root", "functions"),
    (r"\infty", "infinity", "arrows and signs"),
    (r"\pm", "plus or minus", "arrows and signs"),
    (r"x \to a", "x tends to (approaches) a", "arrows and signs"),
    (r"\mapsto", "maps to", "arrows and signs"),
]
MEANING = {source: meaning for source, meaning, _ in SYMBOLS}
GROUP = {source: group for source, _, group in SYMBOLS}

PROMPTS = {
    "meaning": "What does the mathematical symbol or notation shown in the picture mean?",
    "value": "What is the value of the expression shown in the picture?",
    "axes-triangle": "The picture shows a straight line on a grid. What is the area of the triangle that the line "
                     "forms with the two coordinate axes?",
    "two-lines": "The picture shows two straight lines on a grid; the marked points are where they meet each other "
                 "and the x-axis. What is the area of the triangle formed by the two lines and the x-axis?",
    "chord-triangle": "The picture shows a parabola and a straight line on a grid; the points P and Q where they meet "
                      "are marked. What is the area of the triangle OPQ, where O is the origin?",
    "distance": "The picture shows a parabola and a straight line on a grid; the points P and Q where they meet are "
                "marked. What is the distance between P and Q?",
    "slope": "The picture shows a parabola on a grid with two marked points A and B on it. What is the slope of the "
             "straight line through A and B?",
    "derivative": "The blue curve is the graph of a quadratic function f and the red line is tangent to it at the "
                  "marked point P, where x = {a}. What is f'({a})?",
    "integral": "The picture shows the whole graph of a function f made of straight segments whose corners lie on "
                "grid points. What is the definite integral of f(x) dx from x = {a} to x = {b}?",
    "limit": "The picture shows the graph of a function f; the dashed lines are its asymptotes. What is the limit of "
             "f(x) as {where}? If the limit is infinite, write oo or -oo.",
    "solutions": "The picture shows the whole graph of a function f (it is defined only on [{lo}, {hi}], the filled "
                 "dots are the ends of the graph). How many solutions does the equation f(x) = {k} have?",
    "claim": "The picture shows the whole graph of a function f made of straight segments whose corners lie on grid "
             "points (the filled dots are the ends of the graph). A student claims: \"{claim}\". Is the student's "
             "claim correct?",
}
LIMIT_PLACES = {"+oo": "x tends to +oo (infinity)", "-oo": "x tends to -oo (minus infinity)",
                "right": "x tends to {r} from the right (x -> {r}+)",
                "left": "x tends to {r} from the left (x -> {r}-)"}

# L3 claims: the claim's template -> the typical mistake that makes a wrong claim of it
ANALYSIS_ERRORS = {"sign of area below the axis ignored": "integral",
                   "endpoint misread": "monotone",
                   "local extremum taken as global": "extremum"}
CLAIM_TEMPLATES = ("integral", "monotone", "extremum")
# what claims state, round by round (the same for a round's correct and wrong claim)
CLAIM_INTEGRALS = (Fraction(3), Fraction(5, 2), Fraction(6), Fraction(4), Fraction(7, 2), Fraction(5),
                   Fraction(9, 2), Fraction(2), Fraction(7), Fraction(11, 2))
CLAIM_LENGTHS = (3, 2, 4, 3, 5, 2)  # of a claimed interval of monotony
CLAIM_EXTREMES = (3, 1, 4, 2, 0)  # claimed maximum (a minimum: its negative)
YES_NO = ["Yes", "No"]

# ----------------------------------------------------------------------------- mathtext pictures

_PARSER = MathTextParser("agg")
BOX = (400, 300)  # the expression fits this box, centred on the SIZE square
BASE_PT = 100.0
MAX_SCALE = 2.0  # a lone small glyph (¬, <) grows to at most 200 pt


def _ink(source: str, points: float) -> np.ndarray:
    """Coverage (0 paper .. 255 ink) of ``$source$`` at ``points``, cropped to its ink."""
    raster = _PARSER.parse(f"${source}$", dpi=DPI, prop=FontProperties(size=points, math_fontfamily="stix"))
    ink = np.asarray(raster.image)
    rows, cols = np.nonzero(ink.max(axis=1))[0], np.nonzero(ink.max(axis=0))[0]
    return ink[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]


def render_math(source: str) -> bytes:
    """``source`` (mathtext) in black, as large as fits :data:`BOX`, centred on a white square."""
    ink = _ink(source, BASE_PT)
    scale = min(BOX[0] / ink.shape[1], BOX[1] / ink.shape[0], MAX_SCALE)
    ink = _ink(source, round(BASE_PT * scale, 1))
    canvas = np.full((SIZE, SIZE), 255, dtype=np.uint8)
    h, w = ink.shape
    top, left = (SIZE - h) // 2, (SIZE - w) // 2
    canvas[top:top + h, left:left + w] = 255 - ink
    return png(np.repeat(canvas[..., None], 3, axis=2))


# ----------------------------------------------------------------------------- value templates


def _frac(v) -> str:
    return str(Fraction(v))


def _sum_k(rng):
    n = rng.randint(3, 8)
    v = n * (n + 1) // 2
    return rf"\sum_{{k=1}}^{{{n}}} k", f"Sum(k, (k, 1, {n}))", v, [n * (n - 1) // 2, (n + 1) * (n + 2) // 2, n * n, n]


def _sum_sq(rng):
    n = rng.randint(2, 5)
    v = n * (n + 1) * (2 * n + 1) // 6
    return (rf"\sum_{{k=1}}^{{{n}}} k^2", f"Sum(k**2, (k, 1, {n}))", v,
            [(n - 1) * n * (2 * n - 1) // 6, (n * (n + 1) // 2) ** 2, n * (n + 1) // 2, n * n])


def _sum_const(rng):
    n, c = rng.randint(3, 6), rng.randint(2, 5)
    return (rf"\sum_{{k=1}}^{{{n}}} {c}", f"Sum({c}, (k, 1, {n}))", n * c,
            [c, n + c, (n - 1) * c, (n + 1) * c])


def _prod(rng):
    n = rng.randint(3, 5)
    return (rf"\prod_{{k=1}}^{{{n}}} k", f"Product(k, (k, 1, {n}))", math.factorial(n),
            [n * (n + 1) // 2, math.factorial(n - 1), n * n, math.factorial(n + 1)])


def _binom(rng):
    n, k = rng.randint(4, 8), rng.randint(2, 3)
    return (rf"\binom{{{n}}}{{{k}}}", f"binomial({n}, {k})", math.comb(n, k),
            [math.perm(n, k), n * k, math.comb(n, k - 1), math.comb(n + 1, k)])


def _factorial(rng):
    n = rng.choice([0, 3, 4, 5, 6])
    if n == 0:  # 0! = 1, the classic slip is 0
        return "0!", "factorial(0)", 1, [0, 2, -1]
    return (f"{n}!", f"factorial({n})", math.factorial(n),
            [math.factorial(n - 1), n * (n - 1), n * (n + 1) // 2, n * n])


def _abs(rng):
    a = rng.randint(1, 6)
    b = rng.randint(a + 1, 9)
    return rf"|{a} - {b}|", f"Abs({a} - {b})", b - a, [a - b, a + b, -(a + b)]


def _round(rng, up: bool):
    whole, tenth = rng.randint(-6, 6), rng.randint(1, 9)
    v = Fraction(10 * whole + tenth, 10)  # whole + 0.tenth, never a whole number
    floor, ceil = math.floor(v), math.ceil(v)
    trunc = int(v)  # rounding towards zero: floor of a negative number taken as its integer part
    shown = f"{float(v):.1f}"
    if up:
        return (rf"\lceil {shown} \rceil", f"ceiling(Rational({v.numerator}, {v.denominator}))", ceil,
                [floor, trunc, ceil + 1, -ceil])
    return (rf"\lfloor {shown} \rfloor", f"floor(Rational({v.numerator}, {v.denominator}))", floor,
            [ceil, trunc, floor - 1, -floor])


def _sqrt(rng):
    n = rng.randint(3, 12)
    return rf"\sqrt{{{n * n}}}", f"sqrt({n * n})", n, [Fraction(n * n, 2), -n, n + 1, n - 1, 2 * n]


def _neg_power(rng):
    a, n = rng.choice([(2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (4, 1), (4, 2), (5, 1), (5, 2), (10, 1), (10, 2)])
    return (f"{a}^{{-{n}}}", f"{a}**(-{n})", Fraction(1, a ** n),
            [-a ** n, -a * n, Fraction(1, a * n), Fraction(-1, a ** n), a ** n])


def _frac_power(rng):
    base, p, q = rng.choice([(4, 1, 2), (9, 1, 2), (8, 1, 3), (8, 2, 3), (27, 1, 3), (27, 2, 3), (16, 1, 4),
                             (16, 3, 4), (4, 3, 2), (9, 3, 2), (25, 1, 2), (16, 1, 2)])
    root = round(base ** (1 / q))
    v = root ** p
    return (f"{base}^{{{p}/{q}}}", f"{base}**Rational({p}, {q})", v,
            [Fraction(base * p, q), Fraction(1, v), root, v * root])


def _log(rng):
    b, k = rng.choice([(2, 2), (2, 3), (2, 4), (2, 5), (3, 2), (3, 3), (3, 4), (5, 2), (5, 3), (10, 2), (10, 3)])
    return (rf"\log_{{{b}}} {b ** k}", f"log({b ** k}, {b})", k,
            [b ** (k - 1), k + 1, k - 1, Fraction(b ** k, 2)])


def _lim_sin(rng):
    a = rng.randint(2, 6)
    return (rf"\lim_{{x \to 0}}\, \dfrac{{\sin {a}x}}{{x}}", f"Limit(sin({a}*x)/x, x, 0)", a,
            [0, 1, Fraction(1, a), a + 1])


def _lim_rational(rng):
    while True:
        a, c = rng.randint(1, 6), rng.randint(2, 5)
        b, d = rng.choice([-4, -3, -2, -1, 1, 2, 3, 4]), rng.choice([-4, -3, -2, -1, 1, 2, 3, 4])
        if Fraction(a, c) != Fraction(b, d) and math.gcd(a, c) == 1:
            break
    num = f"{a if a > 1 else ''}x {'+' if b > 0 else '-'} {abs(b)}"
    den = f"{c}x {'+' if d > 0 else '-'} {abs(d)}"
    return (rf"\lim_{{x \to \infty}}\, \dfrac{{{num}}}{{{den}}}", f"Limit(({a}*x + {b})/({c}*x + {d}), x, oo)",
            Fraction(a, c), [Fraction(b, d), 0, Fraction(c, a), Fraction(a + b, c + d) if c + d else 1])


def _lim_hole(rng):
    a = rng.choice([-4, -3, -2, 3, 4, 5])
    sign = "-" if a > 0 else "+"
    return (rf"\lim_{{x \to {a}}}\, \dfrac{{x^2 - {a * a}}}{{x {sign} {abs(a)}}}",
            f"Limit((x**2 - {a * a})/(x - ({a})), x, {a})", 2 * a, [0, a, a * a, -2 * a])


# name -> sampler(rng) -> (mathtext, sympy expression string, value, typical wrong values)
VALUE_TEMPLATES = {
    "sum of k": _sum_k, "sum of squares": _sum_sq, "sum of a constant": _sum_const, "product": _prod,
    "binomial": _binom, "factorial": _factorial, "absolute value": _abs,
    "floor": partial(_round, up=False), "ceiling": partial(_round, up=True), "square root": _sqrt,
    "negative power": _neg_power, "fractional power": _frac_power, "logarithm": _log,
    "limit of sin(ax)/x": _lim_sin, "limit at infinity": _lim_rational, "limit at a hole": _lim_hole,
}


CUES = ("centrality", "longest", "shortest", "last in text order")  # what blind guessers pick from options alone


def _cue_picks(options: list[str]) -> list[str]:
    """The option each blind cue picks, ties broken by option text as cogforge.core.shortcuts breaks
    them: the one sharing most words (digits) with the others, the longest, the
    shortest, and the last in text order (every cue's tie-break)."""
    words = [set(re.findall(r"[a-z0-9]+", o.lower())) for o in options]
    shared = [sum(len(words[j] & words[k]) for k in range(len(options)) if k != j) for j in range(len(options))]

    def best(score) -> str:
        return options[max(range(len(options)), key=lambda j: (score(j), options[j]))]
    return [best(lambda j: shared[j]), best(lambda j: len(options[j])), best(lambda j: -len(options[j])), max(options)]


def _value_options(value, mistakes: list, hits: Counter, made: int, rng: random.Random) -> list[str]:
    """Three distinct wrong values for a ``value`` question.

    Typical mistakes come first; neighbours (answer +-1, +-2, its negative) fill in.
    Distractors derived from the answer share its digits (1/8 beside 1/6 and -8), so the
    answer would be the options' "centre"; among the triples of candidates the one
    chosen keeps every cue of :data:`CUES` at a quarter of the task's answers so far
    (``hits`` counts them over the ``made`` earlier items), trading a filler for one
    item's hit on one cue.
    """
    value = Fraction(value)
    typical, fillers = [], []
    for m in mistakes:
        if Fraction(m) != value and Fraction(m) not in typical:
            typical.append(Fraction(m))
    for m in (value + 1, value - 1, -value, value + 2, value - 2):
        if m != value and m not in typical and m not in fillers:
            fillers.append(m)
    answer = _frac(value)
    best, best_score = [], None
    for triple in itertools.combinations(typical + fillers[:4], 3):
        texts = [_frac(m) for m in triple]
        picks = _cue_picks([answer] + texts)
        imbalance = sum(abs(hits[c] + (p == answer) - (made + 1) / 4) for c, p in zip(CUES, picks))
        score = imbalance + sum(m not in typical for m in triple)  # a filler costs as much as a cue's hit
        if best_score is None or score < best_score:
            best, best_score = [texts], score
        elif score == best_score:
            best.append(texts)
    chosen = rng.choice(best)
    for c, p in zip(CUES, _cue_picks([answer] + chosen)):
        hits[c] += p == answer
    return chosen


# ----------------------------------------------------------------------------- notation task


def _symbol_order(rng: random.Random) -> list[str]:
    """Symbols round-robin over the groups (groups shuffled each round), a new member of
    each group every round, so every group and member gets its share of answers."""
    groups: dict[str, list[str]] = {}
    for source, _meaning, group in SYMBOLS:
        groups.setdefault(group, []).append(source)
    for members in groups.values():
        rng.shuffle(members)
    order, names = [], sorted(groups)
    for r in range(max(len(m) for m in groups.values())):
        rng.shuffle(names)
        order += [groups[g][r % len(groups[g])] for g in names]
    return order


def make_notation(ctx, count: int, rng: random.Random) -> list[Draft]:
    out, seen = [], set()
    order = _symbol_order(rng)
    templates = list(VALUE_TEMPLATES)
    meanings_made = values_made = 0
    cue_hits: Counter = Counter()  # how often each blind cue would pick a value question's answer
    for _ in range(count * 30):
        if len(out) == count:
            break
        kind = ("meaning", "value")[nth(ctx, len(out)) % 2]
        if kind == "meaning":
            source = order[nth(ctx, meanings_made, 2) % len(order)]
            meanings_made += 1
            group = [s for s, _m, g in SYMBOLS if g == GROUP[source] and s != source]
            others = [MEANING[s] for s in rng.sample(group, 3)]
            options = ctx.positions.place("mathematics-notation meaning", MEANING[source], others, rng)
            answer = MEANING[source]
            meta = {"sub_field": SUB_FIELD, "question_kind": kind, "source": source, "group": GROUP[source]}
            unit = "symbol:" + source
        else:
            name = templates[nth(ctx, values_made, 2) % len(templates)]
            tex, expr, value, mistakes = VALUE_TEMPLATES[name](rng)
            values_made += 1  # a repeat passes the turn to the next template (a few have only a handful)
            if tex in seen:
                continue
            answer = _frac(value)
            asked = sum(d.meta["question_kind"] == "value" for d in out)
            others = _value_options(value, mistakes, cue_hits, asked, rng)
            options = ctx.positions.place("mathematics-notation value", answer, others, rng)
            meta = {"sub_field": SUB_FIELD, "question_kind": kind, "source": tex, "template": name, "expr": expr}
            unit = "expression:" + expr
        seen.add(meta["source"])
        out.append(Draft(mcq_prompt(PROMPTS[kind], options), [partial(picture, "notation", meta)], options, answer,
                         unit, meta))
    return out


# ----------------------------------------------------------------------------- shared plot helpers


def _poly_str(coeffs: list[Fraction]) -> str:
    """``a*x**2 + b*x + c`` (highest power first) as a sympy-parsable string."""
    degree = len(coeffs) - 1
    terms = [f"({Fraction(c)})*x**{degree - i}" for i, c in enumerate(coeffs)]
    return " + ".join(terms)


def _poly_value(coeffs: list[Fraction], x) -> Fraction:
    out = Fraction(0)
    for c in coeffs:
        out = out * x + Fraction(c)
    return out


def _curve(coeffs: list[str], colour: int = 0) -> dict:
    c = [float(Fraction(v)) for v in coeffs]
    return sample_curve(lambda x: np.polyval(c, x), *WINDOW) | {"colour": colour}


def _line_curve(coeffs: list[str], colour: int) -> dict:
    m, b = (float(Fraction(v)) for v in coeffs)
    return {"x": [WINDOW[0], WINDOW[1]], "y": [m * WINDOW[0] + b, m * WINDOW[1] + b], "colour": colour}


def _unit(meta: dict, keys: tuple[str, ...]) -> str:
    """The split unit: a short hash of what defines the figure."""
    defining = json.dumps({k: meta.get(k) for k in keys}, sort_keys=True)
    return "figure:" + hashlib.sha256(defining.encode()).hexdigest()[:16]


def _label(point, text: str) -> dict:
    return {"x": point[0] + 0.22, "y": point[1] + 0.22, "text": text, "size": 13}


def _sample_parabola(rng: random.Random) -> tuple[list[Fraction], list[tuple[int, int]]]:
    """A parabola c(x - h)^2 + k with two grid points on it inside the window, at least
    two units apart: ``([a, b, c] coefficients, [(x1, y1), (x2, y2)])``, x1 < x2."""
    while True:
        c = rng.choice([Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2)])
        h, k = rng.randint(-3, 3), rng.randint(-5, 5)
        coeffs = [c, -2 * c * h, c * h * h + k]
        xs = [x for x in range(-INNER, INNER + 1) if _poly_value(coeffs, x).denominator == 1
              and abs(_poly_value(coeffs, x)) <= INNER]
        if len(xs) < 4:
            continue  # too little of the parabola inside the window
        x1, x2 = sorted(rng.sample(xs, 2))
        if x2 - x1 < 2:
            continue  # marked points a grid unit apart crowd each other and their labels
        return coeffs, [(x1, int(_poly_value(coeffs, x1))), (x2, int(_poly_value(coeffs, x2)))]


# ----------------------------------------------------------------------------- combined task

COMBINED_KINDS = ("axes-triangle", "two-lines", "chord-triangle", "distance", "slope")


def _combined_item(kind: str, rng: random.Random) -> tuple[dict, str] | None:
    """One figure of ``kind``: its meta (without the shared keys) and exact answer."""
    import sympy
    if kind == "axes-triangle":
        a, b = rng.choice([v for v in range(-INNER, INNER + 1) if v]), rng.choice(
            [v for v in range(-INNER, INNER + 1) if v])
        line = [Fraction(-b, a), Fraction(b)]
        return ({"line": _poly_str(line), "line_coeffs": [_frac(v) for v in line], "points": [[a, 0], [0, b]]},
                _frac(Fraction(abs(a * b), 2)))
    if kind == "two-lines":
        a1, a2 = sorted(rng.sample(range(-INNER, INNER + 1), 2))
        u, v = rng.randint(-INNER, INNER), rng.choice([w for w in range(-INNER, INNER + 1) if w])
        if u in (a1, a2) or a2 - a1 < 2:
            return None
        lines = [[Fraction(v, u - a), Fraction(-v * a, u - a)] for a in (a1, a2)]
        if abs(lines[0][0] - lines[1][0]) < Fraction(1, 2):
            return None  # nearly parallel lines make a sliver of a triangle
        return ({"lines": [_poly_str(li) for li in lines], "lines_coeffs": [[_frac(c) for c in li] for li in lines],
                 "points": [[a1, 0], [a2, 0], [u, v]]}, _frac(Fraction((a2 - a1) * abs(v), 2)))
    coeffs, (p, q) = _sample_parabola(rng)
    parabola = {"parabola": _poly_str(coeffs), "parabola_coeffs": [_frac(c) for c in coeffs],
                "points": [list(p), list(q)]}
    if kind == "slope":
        return parabola | {"labels": ["A", "B"]}, _frac(Fraction(q[1] - p[1], q[0] - p[0]))
    m = Fraction(q[1] - p[1], q[0] - p[0])
    line = [m, p[1] - m * p[0]]
    if line[0] == coeffs[1] and line[1] == coeffs[2]:
        return None
    parabola |= {"line": _poly_str(line), "line_coeffs": [_frac(c) for c in line], "labels": ["P", "Q"]}
    if kind == "chord-triangle":
        area = Fraction(abs(p[0] * q[1] - q[0] * p[1]), 2)
        return (parabola, _frac(area)) if area else None
    return parabola, str(sympy.sqrt((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2))


def make_combined(ctx, count: int, rng: random.Random) -> list[Draft]:
    out, seen = [], set()
    for _ in range(count * 50):
        if len(out) == count:
            break
        kind = COMBINED_KINDS[nth(ctx, len(out)) % len(COMBINED_KINDS)]
        made = _combined_item(kind, rng)
        if made is None:
            continue
        figure, answer = made
        meta = {"sub_field": SUB_FIELD, "question_kind": kind, "window": list(WINDOW), "answer_format": "exact",
                **figure}
        key = json.dumps(meta, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        question = PROMPTS[kind] + " " + format_text("exact", answer)
        out.append(Draft(question, [partial(picture, "combined", meta)], None, answer,
                         _unit(meta, ("line", "lines", "parabola", "points")), meta))
    return out


# ----------------------------------------------------------------------------- analysis task

ANALYSIS_KINDS = ("derivative", "integral", "limit", "solutions", "claim", "claim")
SOLUTION_LEVELS = (2, -1, 0, 3, -3, 1, -2, 4, -4)  # k of f(x) = k, in turn (9 levels, prime to the 5 answers)


def sample_polyline(rng: random.Random) -> list[list[int]]:
    """Corners of a piecewise-linear function on grid points: x from -5 or -4 to 4 or 5
    in steps of 1 to 3, y in [-5, 5], no horizontal segment."""
    lo, hi = rng.choice([-5, -4]), rng.choice([4, 5])
    xs = [lo]
    while xs[-1] < hi:
        xs.append(min(hi, xs[-1] + rng.choice([1, 2, 2, 3])))
    ys = [rng.randint(-4, 4)]
    for _ in xs[1:]:
        ys.append(rng.choice([y for y in range(-INNER, INNER + 1) if y != ys[-1]]))
    return [[x, y] for x, y in zip(xs, ys)]


def _segments(vertices):
    return list(zip(vertices, vertices[1:]))


def _signed_integral(vertices, a: int, b: int) -> tuple[Fraction, Fraction]:
    """(signed, unsigned) integral over [a, b] of the polyline (exact, by trapezoids
    split where a segment crosses the axis)."""
    signed = unsigned = Fraction(0)
    for (x0, y0), (x1, y1) in _segments(vertices):
        lo, hi = max(a, x0), min(b, x1)
        if lo >= hi:
            continue
        slope = Fraction(y1 - y0, x1 - x0)
        ylo, yhi = y0 + slope * (lo - x0), y0 + slope * (hi - x0)
        signed += (ylo + yhi) * (hi - lo) / 2
        if ylo * yhi >= 0:
            unsigned += abs(ylo + yhi) * (hi - lo) / 2
        else:  # crosses the axis inside: two triangles
            cross = lo - ylo / slope
            unsigned += (abs(ylo) * (cross - lo) + abs(yhi) * (hi - cross)) / 2
    return signed, unsigned


def _count_solutions(vertices, k: int) -> int | None:
    """Distinct solutions of f(x) = k; None when a segment lies on y = k."""
    found = set()
    for (x0, y0), (x1, y1) in _segments(vertices):
        if y0 == y1 == k:
            return None
        if (y0 - k) * (y1 - k) <= 0:
            found.add(x0 + Fraction(k - y0, y1 - y0) * (x1 - x0))
    return len(found)


def _runs(vertices, sign: int) -> list[tuple[int, int]]:
    """Maximal intervals on which the polyline increases (sign 1) or decreases (-1)."""
    runs, start = [], None
    segs = _segments(vertices)
    for i, ((x0, y0), (x1, y1)) in enumerate(segs):
        if (y1 - y0) * sign > 0:
            start = x0 if start is None else start
            if i == len(segs) - 1 or (segs[i + 1][1][1] - segs[i + 1][0][1]) * sign <= 0:
                runs.append((start, x1))
                start = None
    return runs


def _local_extrema(vertices, sign: int) -> list[int]:
    """Values at interior corners that are strict local maxima (sign 1) or minima (-1)."""
    out = []
    for (_, ya), (_, yb), (_, yc) in zip(vertices, vertices[1:], vertices[2:]):
        if (yb - ya) * sign > 0 and (yb - yc) * sign > 0:
            out.append(yb)
    return out


def _shifted(vertices, dy: int) -> list[list[int]] | None:
    """The polyline moved ``dy`` grid units up; None when a corner leaves [-5, 5]."""
    moved = [[x, y + dy] for x, y in vertices]
    return moved if all(abs(y) <= INNER for _x, y in moved) else None


def _claim(template: str, wrong: bool, round_: int, vertices, rng: random.Random) -> dict | None:
    """A claim about the polyline (moved up or down to fit, see below): its text, the
    claimed facts and the vertices it is about; None when this function cannot carry it.

    The claimed value (the integral, the extremum) and the claimed interval's length are
    set by ``round_`` alone, the same for the correct claim and the wrong claim of a
    round, so the claim's text says nothing about whether it holds (a wrong extremum
    is a lower local one, a wrong integral the larger unsigned area: left to chance,
    the values would tell)."""
    lo, hi = vertices[0][0], vertices[-1][0]
    if template == "integral":
        target = CLAIM_INTEGRALS[round_ % len(CLAIM_INTEGRALS)]
        found = []
        for dy in range(-3, 4):
            moved = _shifted(vertices, dy)
            for a, b in itertools.combinations(range(lo, hi + 1), 2) if moved else ():
                signed, unsigned = _signed_integral(moved, a, b)
                # part of the area lies below the axis, so ignoring its sign changes the value
                if b - a >= 3 and signed != unsigned and (unsigned if wrong else signed) == target:
                    found.append((moved, a, b))
        if not found:
            return None
        moved, a, b = rng.choice(found)
        return {"vertices": moved, "claim": {"template": template, "a": a, "b": b, "value": _frac(target),
                "text": f"the definite integral of f(x) dx from x = {a} to x = {b} is {_frac(target)}"}}
    sign = (1, -1)[round_ % 2]
    if template == "monotone":
        length = CLAIM_LENGTHS[(round_ // 2) % len(CLAIM_LENGTHS)]
        runs = _runs(vertices, sign)
        if wrong:  # one end read a grid unit too far, past the corner where f turns
            spans = [(q + 1 - length, q + 1) for p, q in runs if q < hi and q + 1 - length >= p] + \
                    [(p - 1, p - 1 + length) for p, q in runs if p > lo and p - 1 + length <= q]
        else:
            spans = [(s, s + length) for p, q in runs for s in range(p, q - length + 1)]
        if not spans:
            return None
        p, q = rng.choice(spans)
        word = "increasing" if sign > 0 else "decreasing"
        return {"vertices": vertices, "claim": {"template": template, "sign": sign, "interval": [p, q],
                                                "text": f"f is {word} on the interval [{p}, {q}]"}}
    target = sign * CLAIM_EXTREMES[(round_ // 2) % len(CLAIM_EXTREMES)]
    found = []
    for dy in range(-8, 9):
        moved = _shifted(vertices, dy)
        if moved is None:
            continue
        ys = [y for _x, y in moved]
        best = max(ys) if sign > 0 else min(ys)
        lesser = [v for v in _local_extrema(moved, sign) if v != best]
        if lesser and (target in lesser if wrong else target == best):
            found.append(moved)  # (a lower local extremum is there in both cases)
    if not found:
        return None
    word = "maximum" if sign > 0 else "minimum"
    return {"vertices": rng.choice(found), "claim": {"template": template, "sign": sign, "value": target,
                                                     "text": f"the {word} value of f is {target}"}}


def _analysis_item(kind: str, turn: int, rng: random.Random) -> dict | None:
    """Meta (question fields) of one item of ``kind``; None to try again."""
    if kind == "derivative":
        c = rng.choice([Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2), Fraction(1, 4), Fraction(-1, 4)])
        h, a, ya = rng.randint(-4, 4), rng.randint(-4, 4), rng.randint(-4, 4)
        k = ya - c * (a - h) ** 2
        slope = 2 * c * (a - h)
        coeffs = [c, -2 * c * h, c * h * h + k]
        tangent = [slope, ya - slope * a]
        # the slope is read off a second grid point of the tangent inside the window
        second = [x for x in range(-INNER, INNER + 1) if x != a
                  and (slope * (x - a)).denominator == 1 and abs(ya + slope * (x - a)) <= INNER]
        visible = [x for x in range(WINDOW[0], WINDOW[1] + 1) if abs(_poly_value(coeffs, x)) <= WINDOW[3]]
        if abs(slope) > 3 or not second or len(visible) < 5:
            return None  # too steep to read, no second grid point, or the curve mostly off the window
        return {"a": a, "f": _poly_str(coeffs), "f_coeffs": [_frac(v) for v in coeffs],
                "tangent": _poly_str(tangent), "tangent_coeffs": [_frac(v) for v in tangent],
                "points": [[a, ya]], "labels": ["P"], "answer": _frac(slope)}
    if kind == "limit":
        p, r = rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([-3, -2, -1, 1, 2, 3])
        m, e = rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([1, 1, 2])
        place = list(LIMIT_PLACES)[turn % 4]
        if place in ("+oo", "-oo"):
            answer = str(p)
        else:
            side = 1 if place == "right" else (-1) ** e
            answer = "oo" if m * side > 0 else "-oo"
        return {"f": f"{p} + ({m})/(x - ({r}))**{e}", "p": p, "r": r, "m": m, "e": e, "place": place,
                "answer": answer}
    vertices = sample_polyline(rng)
    if kind == "integral":
        lo, hi = vertices[0][0], vertices[-1][0]
        a, b = sorted(rng.sample(range(lo, hi + 1), 2))
        signed, unsigned = _signed_integral(vertices, a, b)
        if b - a < 3 or signed == unsigned:  # part of the area below the axis, so its sign matters
            return None
        return {"vertices": vertices, "a": a, "b": b, "answer": _frac(signed)}
    if kind == "solutions":
        # the answer (0..4) and k in turn, independently: k alone must not hint at the count (left to
        # chance, k = 5 would mostly be asked for "0"); the graph moves up or down to fit them
        want, k = turn % 5, SOLUTION_LEVELS[turn % len(SOLUTION_LEVELS)]
        found = [moved for dy in range(-8, 9)
                 if (moved := _shifted(vertices, dy)) and _count_solutions(moved, k) == want]
        if not found:
            return None
        return {"vertices": rng.choice(found), "k": k, "answer": str(want)}
    wrong = turn % 2 == 1
    template = CLAIM_TEMPLATES[(turn // 2) % len(CLAIM_TEMPLATES)]
    made = _claim(template, wrong, turn // 2 // len(CLAIM_TEMPLATES), vertices, rng)
    if made is None:
        return None
    error = next(e for e, t in ANALYSIS_ERRORS.items() if t == template) if wrong else "none"
    return made | {"error_type": error, "answer": "No" if wrong else "Yes"}


def make_analysis(ctx, count: int, rng: random.Random) -> list[Draft]:
    out, seen, turns = [], set(), {}
    for _ in range(count * 60):
        if len(out) == count:
            break
        kind = ANALYSIS_KINDS[nth(ctx, len(out)) % len(ANALYSIS_KINDS)]
        turn = nth(ctx, turns.get(kind, 0), len(ANALYSIS_KINDS))
        item = _analysis_item(kind, turn, rng)
        if item is None:
            continue
        answer = item.pop("answer")
        meta = {"sub_field": SUB_FIELD, "question_kind": kind, "window": list(WINDOW), **item}
        key = json.dumps(meta, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        turns[kind] = turn + 1
        options = None
        if kind == "solutions":
            options = count_options(ctx.positions, "mathematics-analysis solutions", int(answer), rng)
            lo, hi = item["vertices"][0][0], item["vertices"][-1][0]
            question = mcq_prompt(PROMPTS[kind].format(lo=lo, hi=hi, k=item["k"]), options)
        elif kind == "claim":
            options = list(YES_NO)  # fixed order: half the answers are each
            question = mcq_prompt(PROMPTS[kind].format(claim=item["claim"]["text"]), options)
        else:
            meta["answer_format"] = "exact"
            where = LIMIT_PLACES[item["place"]].format(r=item["r"]) if kind == "limit" else ""
            question = (PROMPTS[kind].format(a=item.get("a"), b=item.get("b"), where=where) + " "
                        + format_text("exact", answer))
        out.append(Draft(question, [partial(picture, "analysis", meta)], options, answer,
                         _unit(meta, ("f", "vertices")), meta))
    return out


# ----------------------------------------------------------------------------- pictures


def _polyline_picture(meta: dict) -> bytes:
    vertices = meta["vertices"]
    curve = {"x": [v[0] for v in vertices], "y": [v[1] for v in vertices]}
    ends = [{"x": vertices[0][0], "y": vertices[0][1]}, {"x": vertices[-1][0], "y": vertices[-1][1]}]
    return plot(WINDOW, [curve], ends)


def _limit_picture(meta: dict) -> bytes:
    p, r, m, e = meta["p"], meta["r"], meta["m"], meta["e"]
    branches = []
    for lo, hi in ((WINDOW[0], r - 0.02), (r + 0.02, WINDOW[1])):
        branches.append(sample_curve(lambda x: p + m / (x - r) ** e, lo, hi, *WINDOW[2:]))
    curve = {"x": branches[0]["x"] + [float("nan")] + branches[1]["x"],
             "y": branches[0]["y"] + [float("nan")] + branches[1]["y"]}
    asymptotes = [{"x": [r, r], "y": [WINDOW[2], WINDOW[3]], "dashed": True, "width": 1.6},
                  {"x": [WINDOW[0], WINDOW[1]], "y": [p, p], "dashed": True, "width": 1.6}]
    return plot(WINDOW, asymptotes + [curve])


def picture(task: str, meta: dict) -> bytes:
    """The item's picture, from its meta alone."""
    kind = meta["question_kind"]
    if task == "notation":
        return render_math(meta["source"])
    if kind == "limit":
        return _limit_picture(meta)
    if "vertices" in meta:
        return _polyline_picture(meta)
    curves, points, texts = [], [], []
    if "parabola_coeffs" in meta:
        curves.append(_curve(meta["parabola_coeffs"], 0))
    if "f_coeffs" in meta:
        curves.append(_curve(meta["f_coeffs"], 0))
    if "line_coeffs" in meta:
        curves.append(_line_curve(meta["line_coeffs"], 1 if curves else 0))
    if "tangent_coeffs" in meta:
        curves.append(_line_curve(meta["tangent_coeffs"], 1))
    for i, coeffs in enumerate(meta.get("lines_coeffs", [])):
        curves.append(_line_curve(coeffs, i))
    colour = 3 if kind in ("two-lines", "axes-triangle") else 0
    for i, (x, y) in enumerate(meta.get("points", [])):
        points.append({"x": x, "y": y, "colour": colour})
        if meta.get("labels"):
            texts.append(_label((x, y), meta["labels"][i]))
    return plot(WINDOW, curves, points, texts)


def pictures(task: str, meta: dict) -> list[bytes]:
    return [picture(task, meta)]


# ----------------------------------------------------------------------------- check


def _options_message(options: list | None, answer: str, right) -> str | None:
    """Exactly one option is right (``right(option) -> bool``), it is the answer, and
    the options are distinct strings."""
    if options is None:
        return None
    if len(set(options)) != len(options) or len(options) not in (2, 4):
        return f"options not 2 or 4 distinct strings: {options}"
    if answer not in options:
        return f"answer {answer!r} is not an option"
    rights = [o for o in options if right(o)]
    if rights != [answer]:
        return f"right options by re-derivation: {rights}, answer {answer!r}"
    return None


def _check_notation(question: str, options, answer: str, meta: dict) -> str | None:
    import sympy
    if not question.startswith(PROMPTS[meta["question_kind"]]):
        return "the question is not the prompt of its kind"
    if meta["question_kind"] == "meaning":
        truth = MEANING.get(meta["source"])
        if truth is None:
            return f"unknown symbol {meta['source']!r}"
        if any(o not in MEANING.values() for o in options):
            return "an option is not a meaning of the symbol table"
        return _options_message(options, answer, lambda o: o == truth)
    value = sympy.sympify(meta["expr"]).doit()
    values = [sympy.sympify(o) for o in options]
    if len(set(values)) != len(values):
        return f"options equal in value: {options}"
    return _options_message(options, answer, lambda o: sympy.simplify(sympy.sympify(o) - value) == 0)


def _shoelace(points) -> object:
    import sympy
    n = len(points)
    twice = sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1] for i in range(n))
    return sympy.Abs(twice) / 2


def _on_grid(points) -> bool:
    import sympy
    return all(sympy.sympify(c).is_integer and abs(int(c)) <= INNER for p in points for c in p)


def _check_combined(answer: str, meta: dict) -> str | None:
    import sympy
    x = sympy.Symbol("x")
    kind = meta["question_kind"]
    shown = [tuple(sympy.Integer(c) for c in p) for p in meta["points"]]
    if kind == "axes-triangle":
        line = sympy.sympify(meta["line"])
        roots = sympy.solve(line, x)
        vertices = [(roots[0], 0), (0, line.subs(x, 0)), (0, 0)]
        found = _shoelace(vertices)
        if sorted(vertices[:2], key=str) != sorted(shown, key=str):
            return f"intercepts {vertices[:2]} are not the marked points {shown}"
    elif kind == "two-lines":
        l1, l2 = (sympy.sympify(s) for s in meta["lines"])
        vertices = [(sympy.solve(l1, x)[0], 0), (sympy.solve(l2, x)[0], 0)]
        apex = sympy.solve(l1 - l2, x)[0]
        vertices.append((apex, l1.subs(x, apex)))
        found = _shoelace(vertices)
        if set(vertices) != set(shown):
            return f"the vertices {vertices} are not the marked points {shown}"
    elif kind == "slope":
        parabola = sympy.sympify(meta["parabola"])
        if any(parabola.subs(x, px) != py for px, py in shown):
            return "a marked point is not on the parabola"
        (x1, y1), (x2, y2) = shown
        found = (y2 - y1) / (x2 - x1)
    else:
        parabola, line = sympy.sympify(meta["parabola"]), sympy.sympify(meta["line"])
        meets = [(r, line.subs(x, r)) for r in sympy.solve(parabola - line, x)]
        if set(meets) != set(shown):
            return f"the line meets the parabola at {meets}, the marked points are {shown}"
        (x1, y1), (x2, y2) = meets
        if kind == "chord-triangle":
            found = _shoelace([(0, 0), (x1, y1), (x2, y2)])
        else:
            found = sympy.sqrt((x2 - x1) ** 2 + (y2 - y1) ** 2)
    if not _on_grid(shown):
        return f"a marked point is off the grid or outside the window: {shown}"
    if sympy.simplify(found - sympy.sympify(answer)) != 0:
        return f"re-derived {found}, answer {answer}"
    if kind in ("axes-triangle", "two-lines", "chord-triangle") and found == 0:
        return "degenerate triangle"
    return None


def _piecewise(vertices):
    """The polyline's segments as (x0, x1, sympy linear expression)."""
    import sympy
    x = sympy.Symbol("x")
    return [(x0, x1, sympy.Integer(y0) + sympy.Rational(y1 - y0, x1 - x0) * (x - x0))
            for (x0, y0), (x1, y1) in zip(vertices, vertices[1:])]


def _definite(expr, lo, hi, absolute: bool = False):
    """The integral of a linear ``expr`` over [lo, hi] from its antiderivative (sympy's
    Poly, much cheaper than ``integrate``); of ``|expr|`` when ``absolute``, split where
    ``expr`` changes sign."""
    import sympy
    x = sympy.Symbol("x")
    cuts = [lo] + [r for r in sympy.solve(expr, x) if lo < r < hi] * absolute + [hi]
    antiderivative = sympy.Poly(expr, x).integrate()
    parts = [antiderivative.eval(b) - antiderivative.eval(a) for a, b in zip(cuts, cuts[1:])]
    return sum((abs(p) if absolute else p for p in parts), sympy.Integer(0))


def _integral(vertices, a, b, absolute: bool = False):
    """The integral of the polyline (of its absolute value when ``absolute``) over [a, b]."""
    import sympy
    return sum((_definite(expr, max(a, x0), min(b, x1), absolute) for x0, x1, expr in _piecewise(vertices)
                if max(a, x0) < min(b, x1)), sympy.Integer(0))


def _check_claim(answer: str, meta: dict) -> str | None:
    import sympy
    x = sympy.Symbol("x")
    claim, error, vertices = meta["claim"], meta["error_type"], meta["vertices"]
    pieces = _piecewise(vertices)
    if claim["template"] == "integral":
        truth = _integral(vertices, claim["a"], claim["b"])
        holds = truth == sympy.sympify(claim["value"])
        # the mistake: |f| integrated instead of f
        absolute = _integral(vertices, claim["a"], claim["b"], absolute=True)
        mistaken = absolute == sympy.sympify(claim["value"]) and absolute != truth
    elif claim["template"] == "monotone":
        p, q = claim["interval"]
        slopes = [sympy.diff(expr, x) * claim["sign"] for x0, x1, expr in pieces if max(p, x0) < min(q, x1)]
        holds = all(s > 0 for s in slopes) and vertices[0][0] <= p < q <= vertices[-1][0]
        # the mistake: an interval of monotony with one end read a grid unit past the corner where f turns
        corners = [x0 for x0, _x1, _e in pieces] + [pieces[-1][1]]
        mistaken = not holds and any(
            all(sympy.diff(e, x) * claim["sign"] > 0 for x0, x1, e in pieces if max(pp, x0) < min(qq, x1))
            for pp, qq, moved in ((p, q - 1, q - 1), (p + 1, q, p + 1)) if pp < qq and moved in corners)
    else:
        values = [sympy.Integer(v[1]) for v in vertices]  # a piecewise-linear f takes its extremes at corners
        truth = sympy.Max(*values) if claim["sign"] > 0 else sympy.Min(*values)
        holds = truth == claim["value"]
        local = [b for a, b, c in zip(values, values[1:], values[2:])
                 if (b - a) * claim["sign"] > 0 and (b - c) * claim["sign"] > 0]
        mistaken = not holds and claim["value"] in local
    if (answer == "Yes") != holds:
        return f"the claim is {'true' if holds else 'false'} by re-derivation, the answer is {answer}"
    if holds != (error == "none"):
        return f"error_type {error!r} on a claim that is {'true' if holds else 'false'}"
    if not holds and (ANALYSIS_ERRORS.get(error) != claim["template"] or not mistaken):
        return f"the claim is false but not by the mistake {error!r}"
    return None


def _check_analysis(question: str, options, answer: str, meta: dict) -> str | None:
    import sympy
    x = sympy.Symbol("x")
    kind = meta["question_kind"]
    if kind == "derivative":
        f, tangent = sympy.sympify(meta["f"]), sympy.sympify(meta["tangent"])
        a = sympy.Integer(meta["a"])
        slope = sympy.diff(f, x).subs(x, a)
        if sympy.expand(tangent - (f.subs(x, a) + slope * (x - a))) != 0:
            return "the drawn line is not the tangent at P"
        if [list(p) for p in meta["points"]] != [[a, f.subs(x, a)]] or not _on_grid(meta["points"]):
            return "P is not the marked grid point of the graph"
        if not any(tangent.subs(x, t).is_integer and abs(tangent.subs(x, t)) <= INNER
                   for t in range(-INNER, INNER + 1) if t != a):
            return "the tangent passes through no second grid point: its slope cannot be read"
        found = slope
    elif kind in ("integral", "solutions", "claim") and not _on_grid(meta["vertices"]):
        return "a corner of the graph is off the grid or outside the window"
    elif kind == "integral":
        found = _integral(meta["vertices"], meta["a"], meta["b"])
    elif kind == "limit":
        f = sympy.sympify(meta["f"])
        place = meta["place"]
        if place in ("+oo", "-oo"):
            found = sympy.limit(f, x, sympy.oo if place == "+oo" else -sympy.oo)
        else:
            found = sympy.limit(f, x, meta["r"], "+" if place == "right" else "-")
        if f"as {LIMIT_PLACES[place].format(r=meta['r'])}" not in question:
            return "the question does not name the limit's place"
    elif kind == "solutions":
        k = meta["k"]
        roots = set()
        for x0, x1, expr in _piecewise(meta["vertices"]):
            if sympy.expand(expr - k) == 0:
                return "a segment lies on y = k"
            roots |= {r for r in sympy.solve(expr - k, x) if x0 <= r <= x1}
        found = len(roots)
        return _options_message(options, answer, lambda o: int(o) == found)
    else:
        if options != YES_NO:
            return f"a claim's options are {options}, not {YES_NO}"
        return _check_claim(answer, meta)
    if options is not None:
        return "a free item has options"
    expected = sympy.sympify(answer)
    agree = found == expected if not found.is_finite else sympy.simplify(found - expected) == 0
    if not agree:
        return f"re-derived {found}, answer {answer}"
    return None


def check(task: str, question: str, options: list | None, answer: str, meta: dict) -> str | None:
    """Re-derive the item's answer from ``meta`` with sympy (and the symbol table); None
    when it agrees and exactly one option is right, else what differs."""
    if meta.get("sub_field") != SUB_FIELD:
        return f"sub_field {meta.get('sub_field')!r}, not {SUB_FIELD!r}"
    if task == "notation":
        return _check_notation(question, options, answer, meta)
    if task == "combined":
        if options is not None or meta.get("answer_format") != "exact":
            return "combined items are free answers in the exact format"
        return _check_combined(answer, meta)
    if task == "analysis":
        return _check_analysis(question, options, answer, meta)
    return f"unknown task {task!r}"


TASKS = {
    "notation": Task(1, "Math T5", make_notation, mcq=True, filtered=False),
    "combined": Task(2, "Math T12", make_combined, mcq=False, filtered=False),
    "analysis": Task(3, "Math T17", make_analysis, mcq=False, filtered=False),
}
