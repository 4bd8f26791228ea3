"""The re-derivation that the checks of several tasks share, with sympy and from meta or the
question alone (never from the generator's shape): parsing, values at probe points,
critical points, periods, the solutions of f = 0, and the check that the drawing is
``meta["f"]``."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

from cogforge.generators.symbols._functions.shapes import evaluate

X = sp.Symbol("x", real=True)
T = sp.Symbol("t", real=True)
EPS = sp.Rational(1, 1000)


def _sym(text) -> sp.Expr:
    if isinstance(text, (int, float)):
        return sp.nsimplify(text)
    return _parsed(text)


@lru_cache(maxsize=4096)
def _parsed(text: str) -> sp.Expr:
    return sp.sympify(text, locals={"x": X, "t": T})


def _vals(expr: sp.Expr, pts) -> np.ndarray:
    """Values of a sympy expression at points (NaN where undefined), from sympy's own
    printing of it (parsed from meta or from the question, never the generator's shape)."""
    return evaluate(str(expr), np.array([float(v) for v in pts], float))


def _value(expr: sp.Expr, v) -> float | None:
    y = _vals(expr, [v])[0]
    return float(y) if np.isfinite(y) else None


def _same_function(a: sp.Expr, b: sp.Expr, pts) -> bool:
    """Equal (both undefined, or within 1e-9) at every point."""
    va, vb = _vals(a, pts), _vals(b, pts)
    defined = np.isfinite(va)
    return bool(np.array_equal(defined, np.isfinite(vb)) and np.all(np.abs(va[defined] - vb[defined]) <= 1e-9))


def _probe_points(window) -> list:
    """Rational points spread over the window, off the grid (no asymptote falls on them)."""
    lo, hi = window[0], window[1]
    return [sp.Rational(lo) + sp.Rational(hi - lo) * sp.Rational(2 * j + 1, 38) + sp.Rational(1, 97)
            for j in range(19)]


def _check_plot(meta: dict) -> str | None:
    """The drawing agrees with meta['f']: every piece's expression equals f inside its
    range; filled dots lie on f, open dots do not."""
    f = _sym(meta["f"])
    for p in meta["plot"].get("pieces", []):
        lo, hi = float(_sym(p["lo"])), float(_sym(p["hi"]))
        pts = [lo + (hi - lo) * j / 7 for j in (1, 3, 5, 6)]
        if not _same_function(_sym(p["expr"]), f, pts):
            return f"drawn piece {p['expr']} on [{p['lo']}, {p['hi']}] is not f = {meta['f']}"
    for d in meta["plot"].get("dots", []):
        v = _value(f, _sym(d["x"]))
        on = v is not None and abs(v - float(_sym(d["y"]))) < 1e-9
        if on == d["open"]:
            return f"dot at ({d['x']}, {d['y']}) is {'open' if d['open'] else 'filled'} but f there is {v}"
    return None


def _poly_or_none(f: sp.Expr, var: sp.Symbol = X):
    """f as a polynomial in ``var`` (None when it is not one)."""
    if f.has(sp.Abs, sp.sin, sp.cos, sp.log, sp.exp, sp.Mod, sp.sign):
        return None
    try:
        p = sp.Poly(f, var)
    except sp.PolynomialError:
        return None
    return p if p.gens == (var,) else None


def _critical(f: sp.Expr) -> list:
    """Where f' is zero or undefined (the corner of |x - h|)."""
    if f.has(sp.Abs):
        return sorted({z for a in f.atoms(sp.Abs) for z in sp.solve(a.args[0], X) if z.is_real})
    return sorted({z for z in sp.solve(sp.diff(f, X), X) if z.is_real})


def _periods_of(f: sp.Expr) -> list:
    """The periods of the periodic atoms (sin, cos: 2*pi/w; Mod(w*x + c, m): m/w)."""
    out = []
    for a in f.atoms(sp.sin, sp.cos):
        out.append(2 * sp.pi / sp.Poly(a.args[0], X).coeffs()[0])
    for a in f.atoms(sp.Mod):
        out.append(a.args[1] / sp.Poly(a.args[0], X).coeffs()[0])
    return [sp.nsimplify(abs(p)) for p in out]


def _solutions(e: sp.Expr, var: sp.Symbol = X) -> tuple[list, sp.Expr | None]:
    """Real solutions of e = 0 and the period they repeat with (None: no repetition). A
    sine or cosine of a linear argument u = w*x + c is solved for u, then for x; a
    polynomial by its real roots."""
    trig = list(e.atoms(sp.sin, sp.cos))
    if len(trig) == 1 and sp.degree(trig[0].args[0], var) == 1:
        u = sp.Dummy("u", real=True)
        arg = trig[0].args[0]
        w, c = sp.Poly(arg, var).all_coeffs()
        roots = sp.solve(e.subs(trig[0], trig[0].func(u)), u)
        return [(r - c) / w for r in roots if r.is_real], sp.Abs(2 * sp.pi / w)
    poly = _poly_or_none(e, var)
    if poly is not None:
        return sorted(set(sp.real_roots(poly))), None
    return [z for z in sp.solve(e, var) if z.is_real], None
