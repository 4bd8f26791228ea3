"""Faked Chinese characters: a real character's strokes edited so that the result is no
character at all (Visual-C3's "faked characters"), and the checks that it is none.

A fake is a *recipe* (``{"char": "桥", "op": "remove", "stroke": 7}``) applied to the
pinned stroke data (``_hanzi``); only recipes are stored, never edited stroke data (the
Arphic Public License asks modified glyph data to carry its own notice and licence), and
QC re-derives every glyph from its recipe. The operations: a stroke removed, added (a
copy of one of the character's strokes, shifted), lengthened (stretched along its own
direction from one end), moved, or the radical (``radStrokes``) swapped for another
character's radical fitted into the same box.

A candidate is kept only when it coincides with no real character of the stroke data
(all 9,574, simplified and traditional) by these tests, and differs visibly from its source:

* the same set of stroke outlines as a real character;
* normalised-median distance: each stroke's centre line resampled to 8 points, the
  glyph scaled to its median box, strokes matched one to one (Hungarian) against every
  real character with as many strokes (the source left out), mean point distance below
  ``MEDIAN_NEAR`` or, for glyphs of few strokes, mean times strokes below ``TOTAL_NEAR``;
* bitmap IoU (64 x 64, the em box) against every real character but the source at or
  above ``IOU_NEAR``;
* the same median distance against the real characters of one stroke more or fewer, each
  stroke left over costing ``STROKE_PENALTY`` (猫 without 田's centre vertical reads as 猎);
* and against the source: at least ``MIN_CHANGED`` pixels of that bitmap changed and, when
  the stroke count is kept, a median distance of at least ``SELF_MEDIAN``.

It must also be seen in the picture (:func:`subtle`): a stroke added or moved goes at least
``MIN_SHIFT`` (15% of the em) and off its old place, a lengthened one grows by ``MIN_GROWTH``
and ``MIN_FACTOR``, and at the smallest em a style draws (``VISIBLE_SIZE`` px) at least
``FAR_MIN`` pixels, ``FAR_BLOB`` of them together, lie more than a pixel from the other
glyph's ink. A swapped radical comes from a GB2312 character, so no traditional-only
component (頁, a full 言 on the left) stands out in simplified text.

One more guard reaches beyond the stroke data: the Kai font draws 19,128 Hanzi, about 9,600
of them missing from the data, and a swapped radical often makes one of those (作 with 扌 is
拃). A fake that matches such a font glyph better than its own source's font glyph (IoU of
at least ``FONT_NEAR``) is rejected too.

Only characters of ``MIN_STROKES`` or more are faked. The real characters' medians and
bitmaps are an index computed once from the data (about 12 s of one core, spread over all)
and cached beside them in ``.cache/hanzi-writer-data`` (keyed by the data's hash and
``INDEX_VERSION``); with it and cheap lower bounds a check takes a few milliseconds.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import tempfile
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path

import numpy as np

from cogforge.core.parallel import draw_all
from cogforge.generators.symbols import _hanzi
from cogforge.generators.symbols._hanzi import Glyph

INDEX_VERSION = 4
BITMAP = 64  # one uint64 a row
POINTS = 8  # points a median is resampled to
MIN_STROKES = 7  # simpler characters often turn into others under one edit (会 less its 𠃋 reads as 今 or 令)

# Thresholds, measured on hanzi-writer-data 2.0.1 with this module's metrics (median
# distance: ink-box normalised, 8 points a stroke, Hungarian, mean Euclidean distance; IoU:
# 64 x 64 em-box bitmaps). Real near pairs by median distance: 未/末 .037, 己/已 .034, 日/曰 .065,
# 土/士 .089, 干/千 .116, 人/入 .195; 400 random real characters of 6+ strokes, the nearest
# other real one: 1st percentile .039, 5th .053, 10th .062, median .094 (the nearest pairs are
# variant forms: 稅/税 .017, 悅/悦 .033, 晉/晋 .044). One-stroke edits of 王 that are other
# characters: 王-0 -> 土 .025, 王-1 -> 工 .014, 王-2 -> 三 .020, 王-3 -> 干 .116 (下 .105): a
# mean under .06 catches the first three, the total (mean x strokes) under .4 the last (.35).
# Candidate fakes of 6+ strokes (1,551 measured): the nearest other real character at .11
# (median) for removed and added strokes, so the rule rejects about 2% of them.
# Highest IoU of a real character with another: median .52, 95th percentile .68, 99th .73,
# largest seen .80 (缴/繳); candidate fakes reach .70 in about 1%.
# After a blind audit the limits were raised: a fake of 给 read as 绐 (nearest 绍 at .066)
# gives a mean under .07; 会 less its 𠃋 (5 strokes, .096 from 令) a total under .5.
MEDIAN_NEAR = 0.07
TOTAL_NEAR = 0.5
# A fake is also compared with the real characters of one stroke more or fewer: the strokes
# matched one to one as above, each stroke left over costs STROKE_PENALTY, and the sum over
# the larger count is held to the same limit. 猫 without 田's centre vertical (10 strokes) is
# .058 from 猎 (11; its strokes alone .044 apart) and reads as it: rejected.
STROKE_PENALTY = 0.2
IOU_NEAR = 0.72  # above what 99% of real characters reach with their nearest neighbour
# Visibly different from the source: pixels of the 64 x 64 bitmap changed (a dot of 带 is
# 57, looked at in the sentence pipeline), and for an edit that keeps the stroke count, a
# median distance from the source at least this (a stroke lengthened by half: about .02).
MIN_CHANGED = 40
SELF_MEDIAN = 0.015
# Seen when the picture is seen: the change measured at the smallest em a style draws (cell
# 56 px x em .78 = 44 px; VISIBLE_SIZE is a little above), as pixels of either glyph more than
# a pixel away from any ink of the other (a stroke nudged by less than its width changes
# nothing there). The audit's fakes that nobody saw: 班 with a fourth horizontal squeezed into
# 王 33, 的 with a copied vertical prolonging itself 29, 机 without 木's horizontal 28, 猫 without
# 田's centre vertical 8, 带 without a dot 27; seen: 给 without ㇏ 65, 拍 without 𠃍 104.
VISIBLE_SIZE = 48
FAR_MIN = 65  # far pixels in all (a second audit found fakes at 55-60 seen only with effort)
FAR_BLOB = 40  # in one connected piece (很 with its small 丿 moved off: 61 in all, 29 at most in one)
# A moved stroke must land in the open: at least this share of its pixels (at VISIBLE_SIZE)
# more than a pixel away from the glyph's other strokes. Moved onto other strokes it hides
# there (the second audit's 姨: 16% in the open, read as a stroke missing and found only zoomed).
MOVE_IN_THE_OPEN = 0.25
# A stroke added (a copy) or moved goes at least this far (em units: 15% of the em, about
# two stroke widths), and does not touch where the stroke was: a copy shifted along itself
# reads as the stroke drawn longer (吃's hook, 的's vertical in the audit), not as a stroke more.
MIN_SHIFT = 150
# A lengthened stroke grows by at least this much (em units) and this factor: 爸's last
# stroke or 弟's hook grown by 30% were hard to see in a sentence.
MIN_GROWTH = 160
MIN_FACTOR = 1.5
# The Kai font (UKai) draws 19,128 Hanzi, the stroke data 9,574: a fake must not look more
# like one of the others (in the font's design) than like its source. Font glyph vs the
# stroke data's glyph of the same character: IoU 5th percentile .51, median .73, and the
# font's top match in 98% of 300 characters; a character's best other font match: median
# .48, 95th percentile .59. Below FONT_NEAR no font glyph is taken for a match.
FONT_NEAR = 0.42


# --------------------------------------------------------------------------- medians


_FRACTIONS = np.linspace(0.0, 1.0, POINTS)


def resample_all(medians) -> np.ndarray:
    """(strokes, POINTS, 2): every centre line as POINTS points equally spaced along it."""
    lengths = np.array([len(m) for m in medians])
    pts = np.concatenate([np.asarray(m, dtype=np.float64).reshape(-1, 2) for m in medians])
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    last = first + lengths - 1
    seg = np.hypot(*np.diff(pts, axis=0, prepend=pts[:1]).T)
    seg[first] = 0.0  # no length across strokes
    cum = np.cumsum(seg)
    start, total = cum[first], cum[last] - cum[first]
    t = start[:, None] + total[:, None] * _FRACTIONS[None, :]  # (S, P)
    i = np.searchsorted(cum, t, side="right") - 1
    i = np.clip(i, first[:, None], np.maximum(last - 1, first)[:, None])
    j = np.minimum(i + 1, last[:, None])
    span = cum[j] - cum[i]
    w = np.where(span > 0, (t - cum[i]) / np.where(span > 0, span, 1.0), 0.0)
    return pts[i] + (pts[j] - pts[i]) * w[..., None]


def normalised_medians(g: Glyph) -> np.ndarray:
    """(strokes, POINTS, 2): the medians scaled to their box, each axis on its own (a thin
    box is not stretched beyond a third of the wide side), so that a glyph compares by
    shape, not by the size it happens to have in the em box."""
    if not g.medians:
        return np.zeros((0, POINTS, 2))
    pts = resample_all(g.medians)
    lo, hi = pts.reshape(-1, 2).min(axis=0), pts.reshape(-1, 2).max(axis=0)
    ext = hi - lo
    ext = np.maximum(ext, max(ext.max() / 3, 1.0))
    centre = (lo + hi) / 2
    return (pts - centre) / ext + 0.5


def stroke_costs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(..., n, m): mean point distance between every stroke of ``a`` (n, P, 2) and of
    ``b`` (..., m, P, 2)."""
    d = a[:, None, :, :] - b[..., None, :, :, :]
    return np.sqrt((d ** 2).sum(axis=-1)).mean(axis=-1)


def median_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean point distance of the best one-to-one stroke matching (same stroke count)."""
    from scipy.optimize import linear_sum_assignment  # scipy.optimize takes a second to import

    cost = stroke_costs(a, b)
    rows, cols = linear_sum_assignment(cost)
    return float(cost[rows, cols].mean())


# --------------------------------------------------------------------------- index


def stroke_key(strokes) -> int:
    """A hash of the set of stroke outlines (order-free)."""
    h = hashlib.sha256("\n".join(sorted(strokes)).encode()).digest()
    return int.from_bytes(h[:8], "little") & 0x7FFF_FFFF_FFFF_FFFF


def pack(bitmap: np.ndarray) -> np.ndarray:
    """A 64 x 64 boolean bitmap as 64 uint64 words."""
    return np.packbits(bitmap, axis=1, bitorder="little").view("<u8").reshape(BITMAP).astype(np.uint64)


ARRAYS = ("chars", "counts", "offsets", "medians", "bits", "ink", "keys", "rad_boxes", "font_chars",
          "font_bits")


_COLUMNS = [np.uint64(0xFFFF << (16 * k)) for k in range(4)]


def blocks(bits: np.ndarray) -> np.ndarray:
    """(..., 16): the ink of each 16 x 16 block of packed bitmaps (..., 64). For any two
    bitmaps IoU <= sum(min) / sum(max) over the blocks: a cheap bound that rules out
    most characters before their bits are compared."""
    per = np.stack([np.bitwise_count(bits & m) for m in _COLUMNS], axis=-1).astype(np.int16)  # (..., 64, 4)
    return per.reshape(*bits.shape[:-1], 4, 16, 4).sum(axis=-2).reshape(*bits.shape[:-1], 16)


@dataclass
class Index:
    """Every real character of the stroke data, ready to compare against."""

    chars: np.ndarray  # (N,) str
    counts: np.ndarray  # (N,) strokes
    offsets: np.ndarray  # (N + 1,) into medians
    medians: np.ndarray  # (sum of counts, POINTS, 2) normalised
    bits: np.ndarray  # (N, 64) uint64
    ink: np.ndarray  # (N,) pixels set
    keys: np.ndarray  # (N,) stroke-set hashes
    rad_boxes: np.ndarray  # (N, 4) x0, y0, x1, y1 of the radical's medians (nan: none)
    font_chars: np.ndarray  # (M,) Hanzi of the Kai font that the stroke data lack
    font_bits: np.ndarray  # (M, 64) their font glyphs, as the bits above

    def __post_init__(self):
        self.position = {str(c): i for i, c in enumerate(self.chars)}
        self.blocks = blocks(self.bits)
        self.font_ink = np.bitwise_count(self.font_bits).sum(axis=1)
        self.font_blocks = blocks(self.font_bits)
        self._by_count: dict[int, tuple[np.ndarray, ...]] = {}

    def by_count(self, n: int) -> tuple[np.ndarray, ...]:
        """The characters with ``n`` strokes: their positions, medians (K, n, POINTS, 2),
        stroke centroids (K, n, 2) and glyph centroids (K, 2)."""
        if n not in self._by_count:
            which = np.flatnonzero(self.counts == n)
            meds = np.stack([self.medians[self.offsets[i]:self.offsets[i + 1]] for i in which]) if len(which) \
                else np.zeros((0, n, POINTS, 2), dtype=np.float32)
            cents = meds.mean(axis=2)
            self._by_count[n] = (which, meds, cents, cents.mean(axis=1))
        return self._by_count[n]


def _data_hash(folder: Path) -> str:
    """What the index is made from: the data's file names and sizes, and the font's size."""
    h = hashlib.sha256((folder / "package.json").read_bytes())
    h.update(f"font:{_hanzi.FONT.stat().st_size if _hanzi.FONT.is_file() else 0}\n".encode())
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            h.update(f"{entry.name}:{entry.stat().st_size}\n".encode())
    return h.hexdigest()[:16]


def _record_glyph(path: Path) -> Glyph:
    return _hanzi.glyph_from_record(path.stem, json.loads(path.read_text(encoding="utf-8")))


def _index_rows(paths: list[Path]) -> list[tuple]:
    """One index row per character file (a job for a worker process)."""
    rows = []
    for path in paths:
        g = _record_glyph(path)
        if not g.strokes or len(g.strokes) != len(g.medians):
            continue
        bitmap = _hanzi.rasterise(g, BITMAP)
        rows.append((g.char, len(g.strokes), normalised_medians(g).astype(np.float32), pack(bitmap),
                     int(bitmap.sum()), stroke_key(g.strokes), _rad_box(g)))
    return rows


def font_hanzi() -> list[str]:
    """The Hanzi (CJK Unified Ideographs and Extension A) the Kai font draws."""
    from fontTools.ttLib import TTCollection

    cmap = TTCollection(str(_hanzi.font_file()), lazy=True)[_hanzi.FONT_INDEX].getBestCmap()
    return [chr(c) for c in sorted(cmap) if 0x3400 <= c <= 0x4DBF or 0x4E00 <= c <= 0x9FFF]


def _font_rows(chars: list[str]) -> list[np.ndarray]:
    return [pack(_hanzi.font_bitmap(ch, BITMAP)) for ch in chars]


def build_index(folder: Path) -> Index:
    """The index computed from the stroke data and the font (about 20 s of one core, on
    every core)."""
    paths = sorted(p for p in folder.glob("*.json") if len(p.stem) == 1)
    jobs = [partial(_index_rows, paths[k:k + 128]) for k in range(0, len(paths), 128)]
    rows = [row for part in draw_all(jobs, progress=False) for row in part]
    chars, counts, meds, bits, ink, keys, rad = zip(*rows)
    known = set(chars)
    lacking = [ch for ch in font_hanzi() if ch not in known]
    jobs = [partial(_font_rows, lacking[k:k + 256]) for k in range(0, len(lacking), 256)]
    font_bits = [b for part in draw_all(jobs, progress=False) for b in part]
    counts = np.array(counts, dtype=np.int32)
    return Index(np.array(chars), counts, np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
                 np.concatenate(meds).astype(np.float32), np.stack(bits), np.array(ink, dtype=np.int32),
                 np.array(keys, dtype=np.int64), np.array(rad, dtype=np.float64), np.array(lacking),
                 np.stack(font_bits) if font_bits else np.zeros((0, BITMAP), dtype=np.uint64))


def _rad_box(g: Glyph) -> tuple[float, float, float, float]:
    """The box of the radical's medians when the radical is a component of its own (beside,
    above or below the rest: the two boxes share under a fifth of the smaller); else nan."""
    if not g.rad_strokes or len(g.rad_strokes) >= len(g.strokes):
        return (math.nan,) * 4
    rad = set(g.rad_strokes)
    r = np.concatenate([np.asarray(g.medians[i], dtype=np.float64) for i in sorted(rad)])
    o = np.concatenate([np.asarray(m, dtype=np.float64) for i, m in enumerate(g.medians) if i not in rad])
    (rx0, ry0), (rx1, ry1) = r.min(axis=0), r.max(axis=0)
    (ox0, oy0), (ox1, oy1) = o.min(axis=0), o.max(axis=0)
    overlap = max(0.0, min(rx1, ox1) - max(rx0, ox0)) * max(0.0, min(ry1, oy1) - max(ry0, oy0))
    smaller = min(max(rx1 - rx0, 40.0) * max(ry1 - ry0, 40.0), max(ox1 - ox0, 40.0) * max(oy1 - oy0, 40.0))
    if overlap > smaller / 5:
        return (math.nan,) * 4
    return (float(rx0), float(ry0), float(rx1), float(ry1))


def _save(index: Index, path: Path) -> None:
    """Written whole or not at all: a temporary file in the same folder, then renamed."""
    buf = io.BytesIO()
    np.savez(buf, **{k: getattr(index, k) for k in ARRAYS})
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".fakes-index-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buf.getvalue())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the cache is as readable as the data
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@lru_cache(maxsize=2)
def _index(folder: Path) -> Index:
    path = folder / f".fakes-index-v{INDEX_VERSION}-{_data_hash(folder)}.npz"
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                return Index(**{k: data[k] for k in ARRAYS})
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is computed again
    index = build_index(folder)
    _save(index, path)
    for stale in folder.glob(".fakes-index-v*.npz"):  # other versions of the code or the data
        if stale != path:
            stale.unlink(missing_ok=True)
    return index


def index() -> Index:
    """The index of the real characters (from the cache when there)."""
    return _index(_hanzi.stroke_folder())


# --------------------------------------------------------------------------- comparing


@dataclass(frozen=True)
class Scan:
    """How close a glyph comes to the real characters (one left out: a fake's source)."""

    exact: str | None  # a real character with the same stroke outlines (none left out)
    median_char: str | None  # nearest by median distance, same stroke count (None: none within the limit)
    median: float  # its distance (inf: none within the limit)
    iou_char: str | None  # highest bitmap IoU (None: none of IoU .5 or more)
    iou: float
    bitmap: np.ndarray  # the glyph's packed bitmap


def median_limit(strokes: int) -> float:
    """Below this median distance a glyph of ``strokes`` strokes reads as the other character."""
    return max(MEDIAN_NEAR, TOTAL_NEAR / max(strokes, 1))


def _nearest_by_medians(g: Glyph, skip: int, limit: float) -> tuple[int, float]:
    """The position of the nearest character with as many strokes, and its distance;
    (-1, inf) when none is nearer than ``limit``. Cheap lower bounds first: a glyph's mean
    point is no farther from another's than their matched strokes' mean distance, nor
    are two strokes' centroids, so most characters are ruled out without matching."""
    ix = index()
    which, meds, cents, middles = ix.by_count(len(g.strokes))
    if not len(which):
        return -1, math.inf
    a = normalised_medians(g).astype(np.float32)
    ac = a.mean(axis=1)
    keep = np.flatnonzero((np.hypot(*(middles - ac.mean(axis=0)).T) < limit) & (which != skip))
    if not len(keep):
        return -1, math.inf
    cc = np.sqrt(((ac[None, :, None, :] - cents[keep][:, None, :, :]) ** 2).sum(axis=-1))  # (K, n, n)
    bound = np.maximum(cc.min(axis=2).mean(axis=1), cc.min(axis=1).mean(axis=1))
    keep = keep[bound < limit]
    if not len(keep):
        return -1, math.inf
    from scipy.optimize import linear_sum_assignment

    cost = stroke_costs(a, meds[keep])
    bound = np.maximum(cost.min(axis=2).mean(axis=1), cost.min(axis=1).mean(axis=1))
    best, best_d = -1, limit
    for k in np.argsort(bound, kind="stable"):
        if bound[k] >= best_d:
            break
        rows, cols = linear_sum_assignment(cost[k])
        d = float(cost[k][rows, cols].mean())
        if d < best_d:
            best, best_d = int(which[keep[k]]), d
    return (best, best_d) if best >= 0 else (-1, math.inf)


def _nearest_by_one_stroke(g: Glyph, skip: int, limit: float) -> tuple[int, float]:
    """Like :func:`_nearest_by_medians` among the characters of one stroke more or fewer:
    strokes matched one to one, each left over costing ``STROKE_PENALTY``, the sum taken
    over the larger count (``limit`` is that of the larger count). Stroke centroids bound
    the cost from below first."""
    from scipy.optimize import linear_sum_assignment

    ix = index()
    n = len(g.strokes)
    a = normalised_medians(g).astype(np.float32)
    ac = a.mean(axis=1)
    best, best_d = -1, math.inf
    for m in (n - 1, n + 1):
        which, meds, cents, _ = ix.by_count(m)
        if m < 1 or not len(which):
            continue
        big = max(n, m)
        cut = min(limit, best_d) * big - STROKE_PENALTY  # the matched strokes' sum must stay below
        cc = np.sqrt(((ac[None, :, None, :] - cents[:, None, :, :]) ** 2).sum(axis=-1))  # (K, n, m)
        bound = cc.min(axis=2).sum(axis=1) if n < m else cc.min(axis=1).sum(axis=1)
        keep = np.flatnonzero((bound < cut) & (which != skip))
        if not len(keep):
            continue
        cost = stroke_costs(a, meds[keep])
        bound = cost.min(axis=2).sum(axis=1) if n < m else cost.min(axis=1).sum(axis=1)
        for k in np.argsort(bound, kind="stable"):
            if (bound[k] + STROKE_PENALTY) / big >= min(limit, best_d):
                break
            rows, cols = linear_sum_assignment(cost[k])
            d = (float(cost[k][rows, cols].sum()) + STROKE_PENALTY) / big
            if d < min(limit, best_d):
                best, best_d = int(which[keep[k]]), d
    return best, best_d


def _exact(g: Glyph) -> str | None:
    ix = index()
    hit = np.flatnonzero(ix.keys == stroke_key(g.strokes))
    return str(ix.chars[hit[0]]) if len(hit) else None


def _best_iou(packed: np.ndarray, skip: int, floor: float) -> tuple[int, float]:
    """The position of the real character of highest bitmap IoU (at least ``floor``) and
    the IoU; (-1, 0) when none reaches the floor."""
    ix = index()
    ink = int(np.bitwise_count(packed).sum())
    mine = blocks(packed)
    bound = np.minimum(ix.blocks, mine).sum(axis=1) / np.maximum(np.maximum(ix.blocks, mine).sum(axis=1), 1)
    near = np.flatnonzero(bound >= floor)
    near = near[near != skip]
    if not len(near):
        return -1, 0.0
    inter = np.bitwise_count(ix.bits[near] & packed).sum(axis=1)
    iou = inter / np.maximum(ix.ink[near] + ink - inter, 1)
    k = int(np.argmax(iou))
    return (int(near[k]), float(iou[k])) if iou[k] >= floor else (-1, 0.0)


def scan(g: Glyph, skip: str | None = None, limit: float | None = None, iou_floor: float = IOU_NEAR) -> Scan:
    """Compare a glyph with every real character of the stroke data.

    Args:
        g: the glyph.
        skip: a character left out of the median and IoU tests (a fake's source: a fake of a
            complex character is by design mostly its source's ink; :func:`visible` tests it).
        limit: search the median distance only below this (default: :func:`median_limit`;
            ``math.inf`` finds the nearest however far).
        iou_floor: look for the highest IoU only at or above this (lower: slower).
    """
    ix = index()
    skip_at = ix.position.get(skip, -1) if skip else -1
    at, d = _nearest_by_medians(g, skip_at, median_limit(len(g.strokes)) if limit is None else limit)
    packed = pack(_hanzi.rasterise(g, BITMAP))
    k, iou = _best_iou(packed, skip_at, iou_floor)
    return Scan(_exact(g), str(ix.chars[at]) if at >= 0 else None, d,
                str(ix.chars[k]) if k >= 0 else None, iou, packed)


def nearest_real(g: Glyph) -> tuple[str, float, float]:
    """The nearest real character other than the glyph's own (by median distance among
    characters with as many strokes; by bitmap IoU when there are none), its median
    distance and its bitmap IoU with the glyph."""
    s = scan(g, skip=g.char, limit=math.inf, iou_floor=0.0)
    ix = index()
    char = s.median_char or s.iou_char or ""
    if not char:
        return "", math.inf, 0.0
    other = ix.bits[ix.position[char]]
    inter = int(np.bitwise_count(other & s.bitmap).sum())
    union = int(np.bitwise_count(other | s.bitmap).sum())
    return char, s.median, inter / max(union, 1)


def coincides(g: Glyph) -> str | None:
    """Why the glyph would read as a real character (None: it would not): it has a real
    character's strokes, is too close to its own ``char`` (a fake's source) to be seen to
    differ, or is near another character by medians or bitmaps. Cheapest test first."""
    exact = _exact(g)
    if exact is not None:
        return f"has the strokes of {exact}"
    ix = index()
    packed = pack(_hanzi.rasterise(g, BITMAP))
    source = _hanzi.glyph(g.char)
    why = visible(g, source, packed) if source is not None else None
    if why:
        return why
    skip = ix.position.get(g.char, -1)
    at, d = _nearest_by_medians(g, skip, median_limit(len(g.strokes)))
    if at >= 0:
        return f"median distance {d:.3f} to {ix.chars[at]}"
    at, d = _nearest_by_one_stroke(g, skip, median_limit(len(g.strokes) + 1))
    if at >= 0:
        more = "more" if ix.counts[at] > len(g.strokes) else "fewer"
        return f"median distance {d:.3f} to {ix.chars[at]} (a stroke {more})"
    k, iou = _best_iou(packed, skip, IOU_NEAR)
    if k >= 0:
        return f"bitmap IoU {iou:.2f} with {ix.chars[k]}"
    return _like_a_font_character(g.char, packed)


def _like_a_font_character(source: str, packed: np.ndarray) -> str | None:
    """Why the glyph reads as a character the stroke data lack but the Kai font has (None:
    it does not): it matches that font glyph better than its source's font glyph. A swapped
    radical often makes such a character (作 with 扌 is 拃, 第 with 艹 is 苐). The font's design
    differs from the stroke data's, so only this comparison, not a threshold alone, tells."""
    ix = index()
    if not len(ix.font_chars):
        return None
    own = pack(_hanzi.font_bitmap(source, BITMAP)) if source else np.zeros(BITMAP, dtype=np.uint64)
    own_iou = int(np.bitwise_count(own & packed).sum()) / max(int(np.bitwise_count(own | packed).sum()), 1)
    floor = max(FONT_NEAR, own_iou)
    ink = int(np.bitwise_count(packed).sum())
    mine = blocks(packed)
    bound = np.minimum(ix.font_blocks, mine).sum(axis=1) / np.maximum(
        np.maximum(ix.font_blocks, mine).sum(axis=1), 1)
    near = np.flatnonzero(bound > floor)
    if not len(near):
        return None
    inter = np.bitwise_count(ix.font_bits[near] & packed).sum(axis=1)
    iou = inter / np.maximum(ix.font_ink[near] + ink - inter, 1)
    k = int(np.argmax(iou))
    if iou[k] <= floor:
        return None
    return f"looks like {ix.font_chars[near[k]]} (in the font, not the stroke data): IoU {iou[k]:.2f} > {own_iou:.2f}"


def is_real(g: Glyph) -> bool:
    """Whether the glyph coincides with some real character of the stroke data (its own
    ``char`` included)."""
    return coincides(g) is not None


def far_pixels(g: Glyph, source: Glyph, size: int = VISIBLE_SIZE) -> tuple[int, int]:
    """Pixels of either glyph (``size`` x ``size``) more than a pixel away from the other's
    ink, in all and in the largest connected piece: how much of the change is seen."""
    from scipy import ndimage

    a, b = _hanzi.rasterise(source, size), _hanzi.rasterise(g, size)
    near = np.ones((3, 3), dtype=bool)
    far = (b & ~ndimage.binary_dilation(a, near)) | (a & ~ndimage.binary_dilation(b, near))
    labels, n = ndimage.label(far, structure=near)
    return int(far.sum()), int(np.bincount(labels.ravel())[1:].max()) if n else 0


def subtle(recipe: dict, g: Glyph, source: Glyph) -> str | None:
    """Why the edit would not be seen in the picture (None: it would): too short a shift
    or growth, a copy or move that touches the stroke's old place, or too few far pixels."""
    from scipy import ndimage

    op = recipe["op"]
    if op in ("add", "move"):
        shift = math.hypot(recipe["dx"], recipe["dy"])
        if shift < MIN_SHIFT:
            return f"stroke {recipe['stroke']} shifted by only {shift:.0f} of {_hanzi.EM}"
        i = recipe["stroke"]
        moved = g.strokes[i + 1] if op == "add" else g.strokes[i]
        old = _hanzi.rasterise(Glyph(g.char, (source.strokes[i],), ()), BITMAP)
        new = _hanzi.rasterise(Glyph(g.char, (moved,), ()), BITMAP)
        if (ndimage.binary_dilation(old) & new).any():
            return f"stroke {i} {'copied' if op == 'add' else 'moved'} onto its own place"
        if op == "move":
            alone = _hanzi.rasterise(Glyph(g.char, (moved,), ()), VISIBLE_SIZE)
            rest = _hanzi.rasterise(Glyph(g.char, tuple(s for k, s in enumerate(g.strokes) if k != i), ()),
                                    VISIBLE_SIZE)
            shown = (alone & ~ndimage.binary_dilation(rest, np.ones((3, 3), dtype=bool))).sum() / max(1, alone.sum())
            if shown < MOVE_IN_THE_OPEN:
                return f"stroke {i} moved onto other strokes ({shown:.0%} of it in the open)"
    elif op == "lengthen":
        m = np.asarray(source.medians[recipe["stroke"]], dtype=np.float64)
        growth = (float(recipe["factor"]) - 1) * float(np.hypot(*(m[-1] - m[0])))
        if growth < MIN_GROWTH or float(recipe["factor"]) < MIN_FACTOR:
            return f"stroke {recipe['stroke']} grows by only {growth:.0f} of {_hanzi.EM} (x{recipe['factor']})"
    total, piece = far_pixels(g, source)
    if total < FAR_MIN or (piece < FAR_BLOB and op != "swap"):  # a swap changes a whole component
        return (f"only {total} pixels ({piece} together) of {VISIBLE_SIZE} x {VISIBLE_SIZE} visibly differ "
                f"from {source.char}")
    return None


def visible(g: Glyph, source: Glyph, packed: np.ndarray | None = None) -> str | None:
    """Why the fake would not be seen to differ from its source (None: it would)."""
    a = pack(_hanzi.rasterise(g, BITMAP)) if packed is None else packed
    b = index().bits[index().position[source.char]] if source.char in index().position \
        else pack(_hanzi.rasterise(source, BITMAP))
    changed = int(np.bitwise_count(a ^ b).sum())
    if changed < MIN_CHANGED:
        return f"only {changed} pixels differ from {source.char}"
    if len(g.strokes) == len(source.strokes):
        d = median_distance(normalised_medians(g), normalised_medians(source))
        if d < SELF_MEDIAN:
            return f"median distance {d:.3f} to its source {source.char}"
    return None


# --------------------------------------------------------------------------- operations


def _affine(a: float, b: float, c: float, d: float, e: float, f: float) -> np.ndarray:
    return np.array([[a, b, c], [d, e, f]], dtype=np.float64)


def _stroke_matrix(op: str, g: Glyph, i: int, recipe: dict) -> np.ndarray:
    if op == "move":
        return _affine(1, 0, recipe["dx"], 0, 1, recipe["dy"])
    # lengthen: stretch along the line from the median's first to last point, from one end
    m = np.asarray(g.medians[i], dtype=np.float64)
    anchor = m[0] if recipe.get("anchor", "start") == "start" else m[-1]
    u = m[-1] - m[0]
    norm = float(np.hypot(*u))
    u = u / norm if norm else np.array([1.0, 0.0])
    f = float(recipe["factor"])
    lin = np.eye(2) + (f - 1) * np.outer(u, u)
    shift = anchor - lin @ anchor
    return _affine(lin[0, 0], lin[0, 1], shift[0], lin[1, 0], lin[1, 1], shift[1])


OPS = {"remove": ("stroke",), "add": ("stroke", "dx", "dy"), "lengthen": ("stroke", "anchor", "factor"),
       "move": ("stroke", "dx", "dy"), "swap": ("donor",)}


def apply(recipe: dict) -> Glyph:
    """The faked glyph of a recipe, from the recipe and the stroke data alone; a recipe
    that cannot be applied (unknown operation, missing key, no such stroke) is a
    ValueError saying why."""
    op = recipe.get("op")
    if op not in OPS:
        raise ValueError(f"unknown fake operation {op!r} in {recipe!r}; known: {', '.join(OPS)}")
    missing = [k for k in ("char", *OPS[op]) if k not in recipe]
    if missing:
        raise ValueError(f"fake recipe {recipe!r} lacks {', '.join(missing)}")
    source = _hanzi.glyph(recipe["char"])
    if source is None:
        raise ValueError(f"no stroke data for {recipe['char']!r}")
    if "stroke" in recipe and not (isinstance(recipe["stroke"], int) and 0 <= recipe["stroke"] < len(source.strokes)):
        raise ValueError(f"{recipe['char']} has no stroke {recipe['stroke']!r} (it has {len(source.strokes)})")
    strokes, medians = list(source.strokes), list(source.medians)
    if op == "remove":
        i = recipe["stroke"]
        del strokes[i], medians[i]
    elif op == "add":
        j = recipe["stroke"]
        m = _affine(1, 0, recipe["dx"], 0, 1, recipe["dy"])
        strokes.insert(j + 1, _hanzi.transform_path(strokes[j], m))
        medians.insert(j + 1, _hanzi.transform_median(medians[j], m))
    elif op in ("lengthen", "move"):
        i = recipe["stroke"]
        m = _stroke_matrix(op, source, i, recipe)
        strokes[i] = _hanzi.transform_path(strokes[i], m)
        medians[i] = _hanzi.transform_median(medians[i], m)
    elif op == "swap":
        donor = _hanzi.glyph(recipe["donor"])
        if donor is None:
            raise ValueError(f"no stroke data for donor {recipe['donor']!r}")
        box, dbox = _rad_box(source), _rad_box(donor)
        if math.isnan(box[0]) or math.isnan(dbox[0]):
            raise ValueError(f"{recipe['char']} or {recipe['donor']} has no radical of its own to swap")
        sx = (box[2] - box[0]) / max(dbox[2] - dbox[0], 1.0)
        sy = (box[3] - box[1]) / max(dbox[3] - dbox[1], 1.0)
        m = _affine(sx, 0, box[0] - sx * dbox[0], 0, sy, box[1] - sy * dbox[1])
        first = min(source.rad_strokes)
        keep = [k for k in range(len(strokes)) if k not in set(source.rad_strokes)]
        new_s = [_hanzi.transform_path(donor.strokes[k], m) for k in donor.rad_strokes]
        new_m = [_hanzi.transform_median(donor.medians[k], m) for k in donor.rad_strokes]
        before = [k for k in keep if k < first]
        after = [k for k in keep if k > first]
        strokes = [strokes[k] for k in before] + new_s + [strokes[k] for k in after]
        medians = [medians[k] for k in before] + new_m + [medians[k] for k in after]
    return Glyph(source.char, tuple(strokes), tuple(medians), ())


def _room(source: Glyph) -> tuple[float, float, float, float]:
    """Where a fake's centre lines may go: the em box a margin inside its edges, or as far
    as the source's own reach beyond it."""
    pts = np.concatenate([np.asarray(m, dtype=np.float64) for m in source.medians])
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    return min(40.0, x0), min(-84.0, y0), max(984.0, x1), max(860.0, y1)


def _inside(g: Glyph, room: tuple[float, float, float, float]) -> bool:
    return all(_inside_shifted(m, 0, 0, room) for m in g.medians)


def _inside_shifted(median, dx: float, dy: float, room: tuple[float, float, float, float]) -> bool:
    x0, y0, x1, y1 = room
    return all(x0 <= x + dx <= x1 and y0 <= y + dy <= y1 for x, y in median)


def _proposals(g: Glyph, rng: random.Random):
    """Candidate recipes in a random order: a few of each operation (drawn lazily: most
    characters are faked by the first or second)."""
    n, ch, room = len(g.strokes), g.char, _room(g)
    # an operation chosen at random gets a few tries before the next: removal passes the
    # checks most often and would otherwise make most fakes
    kinds = ["remove", "add", "lengthen", "move", "swap"]
    rng.shuffle(kinds)
    ops = [op for op in kinds for _ in range(3 if op == "swap" else 8)]
    # long strokes first: an edit of a dot is seldom seen at the size a sentence is drawn
    lengths = [float(np.hypot(*np.diff(np.asarray(m, dtype=np.float64), axis=0).T).sum()) for m in g.medians]
    strokes = list(range(n))

    def pick() -> int:
        return rng.choices(strokes, weights=lengths)[0]

    swapped = False
    for op in ops:
        if op == "remove":
            yield {"char": ch, "op": "remove", "stroke": pick()}
        elif op in ("add", "move"):
            i = pick()
            m = np.asarray(g.medians[i], dtype=np.float64)
            # across the stroke, give or take 45 degrees: shifted along itself it reads as longer
            ang = math.atan2(*(m[-1] - m[0])[::-1]) + rng.choice([-1, 1]) * math.pi / 2 + rng.uniform(-0.8, 0.8)
            r = rng.uniform(MIN_SHIFT, 280 if op == "add" else 240)
            dx, dy = round(r * math.cos(ang)), round(r * math.sin(ang))
            if _inside_shifted(g.medians[i], dx, dy, room):  # else it would leave the em box
                yield {"char": ch, "op": op, "stroke": i, "dx": dx, "dy": dy}
        elif op == "lengthen":
            i = pick()
            grow = rng.uniform(MIN_GROWTH, 340) / max(lengths[i], 1.0)  # long strokes would leave the box
            recipe = {"char": ch, "op": "lengthen", "stroke": i, "anchor": rng.choice(["start", "end"]),
                      "factor": round(max(MIN_FACTOR, 1 + grow), 2)}
            m = _stroke_matrix("lengthen", g, i, recipe)
            if _inside_shifted(_hanzi.transform_median(g.medians[i], m), 0, 0, room):
                yield recipe
        elif not swapped:
            swapped = True
            donor = _donor(g, rng)
            if donor:
                yield {"char": ch, "op": "swap", "donor": donor}


# Simplified radicals (讠钅饣纟贝车马鱼韦, as in these characters). Unicode's later blocks hold
# the simplified forms of many traditional characters, beyond both the stroke data and the
# font (讠 with 也 is 𬣙, from 訑), so a swap brings none of them in.
SIMPLIFIED_RADICALS = "说钱饭红财轮驰鲤韧"


def _radical_shape(g: Glyph) -> np.ndarray:
    """The radical's medians, normalised on their own."""
    return normalised_medians(Glyph(g.char, tuple(g.strokes[i] for i in g.rad_strokes),
                                    tuple(g.medians[i] for i in g.rad_strokes)))


@lru_cache(maxsize=1)
def _simplified_shapes() -> tuple[np.ndarray, ...]:
    return tuple(_radical_shape(_hanzi.glyph(c)) for c in SIMPLIFIED_RADICALS if _hanzi.glyph(c))


def _simplified(g: Glyph) -> bool:
    """Whether the character's radical is one of the simplified ones."""
    if not g.rad_strokes:
        return False
    mine = _radical_shape(g)
    return any(len(ref) == len(mine) and median_distance(mine, ref) < 0.08 for ref in _simplified_shapes())


@lru_cache(maxsize=2)
def _in_gb2312(chars: tuple[str, ...]) -> np.ndarray:
    return np.array([_is_gb2312(c) for c in chars], dtype=bool)


def _simplified_text() -> np.ndarray:
    """(N,) whether each indexed character is in GB2312: a donor is one, so its radical
    appears in simplified text in that place (no 頁 or full 言 beside simplified neighbours)."""
    return _in_gb2312(tuple(index().chars.tolist()))


def _donor(g: Glyph, rng: random.Random) -> str | None:
    """A character whose radical sits in a box of about the same place and shape, and is
    no simplified radical."""
    box = _rad_box(g)
    if math.isnan(box[0]):
        return None
    ix = index()
    rb = ix.rad_boxes
    w, h = box[2] - box[0], box[3] - box[1]
    with np.errstate(invalid="ignore"):
        dw = (rb[:, 2] - rb[:, 0]) / max(w, 1.0)
        dh = (rb[:, 3] - rb[:, 1]) / max(h, 1.0)
        centre = np.hypot((rb[:, 0] + rb[:, 2]) / 2 - (box[0] + box[2]) / 2,
                          (rb[:, 1] + rb[:, 3]) / 2 - (box[1] + box[3]) / 2)
        # stroke widths scale with the box: no more than the hand's own pen varies (about 10%)
        ok = (dw > 0.9) & (dw < 1.12) & (dh > 0.9) & (dh < 1.12) & (centre < 60) & (ix.counts >= 4)
    pool = np.flatnonzero(ok & _simplified_text())
    for _ in range(3 if len(pool) else 0):
        donor = str(ix.chars[pool[rng.randrange(len(pool))]])
        if not _simplified(_hanzi.glyph(donor)):
            return donor
    return None


def check(recipe: dict) -> tuple[Glyph, str | None]:
    """The recipe's glyph and why it is no good (None: a safe fake)."""
    g = apply(recipe)
    source = _hanzi.glyph(recipe["char"])
    if not _inside(g, _room(source)):
        return g, "leaves the em box"
    if recipe["op"] == "swap" and not _is_gb2312(recipe["donor"]):
        return g, f"donor {recipe['donor']} is not a simplified (GB2312) character"
    return g, subtle(recipe, g, source) or coincides(g)


def _is_gb2312(ch: str) -> bool:
    try:
        ch.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def make_fake(ch: str, rng: random.Random) -> dict | None:
    """A recipe for a safe fake of ``ch`` ({"char", "op", ...parameters}); None when the
    character has no stroke data, fewer than ``MIN_STROKES`` strokes, or no candidate
    passes the checks."""
    source = _hanzi.glyph(ch)
    if source is None or len(source.strokes) < MIN_STROKES:
        return None
    for recipe in _proposals(source, rng):
        _, why = check(recipe)
        if why is None:
            return recipe
    return None
