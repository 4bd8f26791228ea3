"""CogEvolve's own checks: graphs, schemas and every answer re-derived from the graph.

Independent of the builder: graphs are validated against WordNet through nltk
(:func:`generators.cogevolve.graphs.validate`); every schema SVG is read back from
the build and passed through :mod:`cogforge.svgcheck` (one core, reused, identical
across a word's images) and re-rendered to the PNG bytes the items show; every
answer is recomputed from the graph in ``meta`` (the gloss of the sentence's sense,
the role from the incoming edge's label, the path order from the edges) and from
what the model is shown (the listed definitions, the images in order, the SVG text).

Shortcut audits, next to chance with Wilson intervals: for Tier 3, ordering a path
by WordNet sense number, by SemCor tag count and, for images, by fewest drawn
elements or smallest PNG first; the first option for Tiers 1a/1b; the majority role
for Tier 2. A baseline more than 5 points above chance warns, one whose whole
interval lies above that line is an error.

Pictures (:func:`picture_checks`): each word's core is the curated drawing of its
prototype (no two words share a drawing that was not curated for both); each setting
(the backdrop) and each frame (how the picture is built: field, table, sheet, shelf,
people) draws prototypes and extensions, and, once it has MIN_ITEMS pictures, about as
often as the build does; "the image whose setting (frame) is most often a prototype's
comes first" is audited on Tier 3b like the other baselines; a colour swatch is painted
in the colour its sense names (hue and lightness of the rendered PNG against ``cogevolve_colours.tsv``).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

from cogforge.qc.core import Build, CheckResult, Finding
from cogforge.core.shortcuts import wilson

TIER3 = ("3a", "3a-masked", "3b", "3b-svg")
MARGIN = 0.05
MIN_ITEMS = 30  # a stratum this small is reported, not judged: sampling noise exceeds the margin
# Options for the shared checks (qc/checks.py): tasks are as large as their sources
# (sentences, schemas, paths), and 1a/2 are read from their sentence.
UNBALANCED_BY_DESIGN = frozenset({"task"})
QUESTION_IS_EVIDENCE = frozenset({"1a", "2"})


def chance(item) -> float:
    """Chance of a free answer: one ordering of N IDs in N!."""
    if item.task in TIER3:
        return 1 / math.factorial(item.meta["n"])
    return 1 / len(item.options) if item.options else 0.0


def _graph(meta: dict) -> dict:
    g = meta["graph"]
    return {"word": meta["word"], "source": g["source"], "prototype": g["prototype"],
            "senses": {s["key"]: s for s in g["senses"]}, "edges": [list(e) for e in g["edges"]]}


def _role(graph: dict, key: str) -> str | None:
    if key == graph["prototype"]:
        return "Prototype"
    labels = {label for _s, t, label in graph["edges"] if t == key}
    return labels.pop().capitalize() if len(labels) == 1 else None


def _listing(question: str) -> dict[str, str]:
    return dict(re.findall(r"^\[([A-Z])\] (.*)$", question, re.M))


def _item_problems(item, graph: dict, build: Build, forms, svg_text) -> list[str]:
    m, problems = item.meta, []
    gloss = {k: v["gloss"] for k, v in graph["senses"].items()}
    if item.task in ("1a", "1b-i2t"):
        if sorted(item.options) != sorted(gloss.values()):
            problems.append("the options are not the graph's definitions")
        if item.answer != gloss[m["sense"]]:
            problems.append(f"the answer is not the definition of {m['sense']}")
        if [gloss[k] for k in m["option_senses"]] != item.options:
            problems.append("option_senses do not match the options shown")
    if item.task in ("1a", "2"):
        sentence = m["sentence"]
        if sentence["sense"] != m["sense"] or f"Sentence: {sentence['text']}\n" not in item.question:
            problems.append("the sentence shown is not the sentence of the item's sense")
        if not re.search(rf"(?<![\w-]){re.escape(sentence['form'])}(?![\w-])", sentence["text"]):
            problems.append(f"the sentence does not contain the target form {sentence['form']!r}")
    if item.task == "1b-i2t":
        if item.images != [r["png"] for r in m["image_records"] if r["sense"] == m["sense"]]:
            problems.append("the image is not the schema of the item's sense")
    if item.task == "1b-t2i":
        shown = [r["sense"] for r in m["image_records"]]
        if (item.images != [r["png"] for r in m["image_records"]] or len(set(shown)) != len(shown)
                or not set(shown) <= set(graph["senses"]) or m["sense"] not in shown):
            problems.append("the images are not pictures of the word's senses, one each, the item's among them")
        elif item.answer != f"Image {shown.index(m['sense']) + 1}":
            problems.append(f"the image of {m['sense']} is Image {shown.index(m['sense']) + 1}, not {item.answer}")
        if gloss[m["sense"]] not in item.question:
            problems.append("the definition shown is not the item's sense's")
    if item.task == "2" and item.answer != _role(graph, m["sense"]):
        problems.append(f"the role of {m['sense']} in the graph is {_role(graph, m['sense'])}, not {item.answer}")
    if item.task in TIER3:
        path, id_map = m["path"], m["id_map"]
        if path[0] != graph["prototype"]:
            problems.append("the path does not start at the prototype")
        edges = {(s, t) for s, t, _ in graph["edges"]}
        if any((a, b) not in edges for a, b in zip(path, path[1:])):
            problems.append("the path is not a chain of the graph's edges")
        letter = {k: i for i, k in id_map.items()}
        if item.answer != " -> ".join(letter[k] for k in path) or sorted(id_map.values()) != sorted(path):
            problems.append("the answer is not the path's order under the item's IDs")
        if item.task == "3a" and _listing(item.question) != {i: gloss[k] for i, k in id_map.items()}:
            problems.append("the listed definitions do not match the IDs")
        if item.task == "3a-masked":
            listed = _listing(item.question)
            if sorted(listed) != sorted(id_map):
                problems.append("the masked listing does not show every ID")
            text = item.question.lower().replace("[target]", " ")
            named = [f for f in forms if re.search(rf"(?<![\w-]){re.escape(f.lower())}(?![\w-])", text)]
            if named:
                problems.append(f"the masked item still names the word: {named[:3]}")
        if item.task == "3b":
            records = {r["sense"]: r for r in m["image_records"]}
            want = [records[id_map[chr(65 + k)]]["png"] for k in range(len(path))]
            if item.images != want:
                problems.append("the images are not the path's schemas under their IDs")
        if item.task == "3b-svg":
            records = {r["sense"]: r for r in m["svg_records"]}
            for k in range(len(path)):
                source = svg_text(records[id_map[chr(65 + k)]]["svg"]).strip()
                if f"Image {chr(65 + k)}:\n{source}" not in item.question:
                    problems.append(f"the SVG source of Image {chr(65 + k)} is not the path's schema")
    return problems


def check_cogevolve(build: Build) -> CheckResult:
    from cogforge.core import svgcheck
    from cogforge.generators import wordnet
    from cogforge.generators.cogevolve.graphs import GraphError, validate
    from cogforge.generators.cogevolve.schemas import render
    from cogforge.generators.cogevolve.sentences import inflections

    out = CheckResult()
    wn = wordnet.reader(build.manifest.get("config", {}).get("wordnet_dir"))
    texts: dict[str, str] = {}

    def svg_text(rel: str) -> str:
        if rel not in texts:
            texts[rel] = (build.path / rel).read_text(encoding="utf-8")
        return texts[rel]

    graphs: dict[str, dict] = {}
    splits_of, forms_of = defaultdict(set), {}
    bad = 0
    for item in build.items:
        m = item.meta
        try:
            graph = _graph(m)
            gid = m["graph_id"]
            if gid not in graphs:
                graphs[gid] = graph
                try:
                    validate(graph, wn)
                except GraphError as err:
                    out.findings.append(Finding("error", "cogevolve", gid, f"invalid graph: {err}"))
            elif graphs[gid] != graph:
                out.findings.append(Finding("error", "cogevolve", item.id, f"graph {gid} differs between items"))
            if m["word"] not in forms_of:
                forms_of[m["word"]] = inflections(wn, m["word"])
            problems = _item_problems(item, graph, build, forms_of[m["word"]], svg_text)
            splits_of[m["split_unit"]].add(item.split)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            problems = [f"meta is incomplete or malformed: {err!r}"]
        for problem in problems:
            out.findings.append(Finding("error", "cogevolve", item.id, problem))
        bad += bool(problems)
    for unit, splits in sorted(splits_of.items()):
        if len(splits) > 1:
            out.findings.append(Finding("error", "cogevolve", unit, f"word appears in splits {sorted(splits)}"))

    # schemas: every SVG passes the validator, one core per word, PNG = render(SVG)
    records = {}
    for item in build.items:
        for r in item.meta.get("image_records", []) + item.meta.get("svg_records", []):
            records[r["svg"]] = (item.meta["word"], item.meta["graph_id"], r)
    core_of: dict[str, set] = defaultdict(set)
    for rel, (word, gid, r) in sorted(records.items()):
        data = (build.path / rel).read_bytes()
        checked, problems = svgcheck.check(data, rel, banned_words=[word])
        for p in problems:
            out.findings.append(Finding("error", "svg", rel, f"{p.rule}: {p.element}: {p.message}"))
        if checked is not None:
            core_of[gid].add(checked.core_sha256)
            if checked.core_sha256 != r["core_sha256"]:
                out.findings.append(Finding("error", "svg", rel, "the core's hash differs from the one in meta"))
        if (build.path / r["png"]).is_file() and render(data) != (build.path / r["png"]).read_bytes():
            out.findings.append(Finding("error", "svg", r["png"], f"the PNG is not the rendering of {rel}"))
    for gid, cores in sorted(core_of.items()):
        if len(cores) > 1:
            out.findings.append(Finding("error", "svg", gid, f"{len(cores)} different cores among the word's images"))

    pictures, balance = picture_checks(build, graphs, records, out)
    audits = shortcut_audits(build, out) + pictures
    out.stats = {"items_checked": len(build.items), "items_with_problems": bad, "graphs": len(graphs),
                 "schemas_checked": len(records), "words": len(splits_of), "audits": audits,
                 "scene_balance": balance}
    return out


def _ordering_hits(item) -> dict[str, float]:
    """Each blind ordering's chance of giving the gold path (ties broken at random)."""
    m = item.meta
    senses = {s["key"]: s for s in m["graph"]["senses"]}
    keys = {"sense number": {k: senses[k]["number"] for k in m["path"]},
            "SemCor count": {k: -senses[k]["count"] for k in m["path"]}}
    if item.task == "3b":
        rec = {r["sense"]: r for r in m["image_records"]}
        keys["fewest elements first"] = {k: rec[k]["elements"] for k in m["path"]}
        keys["smallest PNG first"] = {k: rec[k]["png_bytes"] for k in m["path"]}
    out = {}
    for name, key in keys.items():
        values = [key[k] for k in m["path"]]
        if any(a > b for a, b in zip(values, values[1:])):
            out[name] = 0.0
        else:
            out[name] = 1.0 / math.prod(math.factorial(c) for c in Counter(values).values())
    return out


def _audit(out: CheckResult, name: str, target: str, hits: float, n: int, chance_: float) -> dict:
    """One baseline next to chance; far above or far below (its opposite wins) is a leak."""
    low, high = wilson(round(hits), n)
    acc = hits / n
    row = {"baseline": name, "target": target, "n": n, "accuracy": round(acc, 4), "chance": round(chance_, 4),
           "ci95": [round(low, 4), round(high, 4)]}
    if abs(acc - chance_) > MARGIN and n >= MIN_ITEMS:
        severity = "error" if low > chance_ + MARGIN or high < chance_ - MARGIN else "warning"
        out.findings.append(Finding(severity, "cogevolve-shortcuts", target,
                                    f"{name} scores {100 * acc:.1f}% against chance {100 * chance_:.1f}% "
                                    f"(95% CI {100 * low:.1f}-{100 * high:.1f}%, n={n})"))
    return row


def shortcut_audits(build: Build, out: CheckResult) -> list[dict]:
    rows = []
    by_task = defaultdict(list)
    for item in build.items:
        by_task[item.task].append(item)
    for task in ("3a", "3b"):
        for stratum in ("N=2", "N>2"):
            items = [i for i in by_task.get(task, []) if i.meta["stratum"] == stratum]
            if not items:
                continue
            c = sum(chance(i) for i in items) / len(items)
            hits = Counter()
            for i in items:
                for name, hit in _ordering_hits(i).items():
                    hits[name] += hit
            for name in sorted(hits):
                rows.append(_audit(out, f"order by {name}", f"{task} {stratum}", hits[name], len(items), c))
    for task in ("1a", "1b-i2t", "1b-t2i"):
        items = by_task.get(task, [])
        if items:
            c = sum(1 / len(i.options) for i in items) / len(items)
            hits = sum(i.options[0] == i.answer for i in items)
            rows.append(_audit(out, "first option", task, hits, len(items), c))
    items = by_task.get("2", [])
    if items:
        top = Counter(i.answer for i in items).most_common(1)[0][1]
        rows.append(_audit(out, "majority role", "2", top, len(items), 1 / 3))
    return rows


SCENE_BALANCE = 0.15  # a setting's or frame's prototype share may stray this far from the build's
# What a picture is built from, read from its record: the setting (backdrop) and the
# depiction's frame (field, table, ...). Neither may tell a prototype from an extension.
LAYERS = {"setting": lambda r: r.get("scene"), "frame": lambda r: r.get("depiction", "").split("/")[0] or None}


def picture_checks(build: Build, graphs: dict, records: dict, out: CheckResult) -> tuple[list[dict], list[dict]]:
    """Cores, the role balance of settings and of frames, the first 3b image from either,
    paint colours; returns the audit rows and each setting's and frame's prototype share."""
    from cogforge.generators.cogevolve.schemas import core_for, load_colours, load_cores, same_colour, swatch_colour

    cores, colours = load_cores(), load_colours()
    roles: dict[tuple[str, str], Counter] = defaultdict(Counter)  # (layer, kind) -> role -> images
    for rel, (word, gid, r) in sorted(records.items()):
        graph = graphs.get(gid)
        if graph is None or "scene" not in r:
            continue
        curated = core_for({"prototype": graph["prototype"], "senses": graph["senses"]}, cores)
        if curated is None or curated[0] != r["core"]["emoji"]:
            out.findings.append(Finding("error", "cogevolve-pictures", rel,
                                        f"the core U+{r['core']['emoji']} is not the curated drawing of "
                                        f"{graph['senses'][graph['prototype']]['synset']}"))
        role = "prototype" if r["sense"] == graph["prototype"] else "extension"
        for layer, kind_of in LAYERS.items():
            if kind_of(r):
                roles[(layer, kind_of(r))][role] += 1
        if r.get("depiction") in ("material/paint", "swatch"):  # "swatch": builds before 2026-11-24
            named = colours.get(r["sense"])
            png = build.path / r["png"]
            if named is None:
                out.findings.append(Finding("error", "cogevolve-pictures", rel,
                                            f"{r['sense']} is drawn as a swatch but names no colour in the table"))
            elif png.is_file() and not same_colour(drawn := swatch_colour(png.read_bytes()), named):
                out.findings.append(Finding("error", "cogevolve-pictures", r["png"],
                                            f"the swatch of {r['sense']} is painted #{bytes(drawn).hex().upper()}, "
                                            f"not the named {named}"))
    balance, rows = [], []
    for layer, kind_of in LAYERS.items():
        mine = {kind: counts for (lay, kind), counts in roles.items() if lay == layer}
        total = sum(mine.values(), Counter())
        share = total["prototype"] / max(1, sum(total.values()))
        for kind, counts in sorted(mine.items()):
            n = sum(counts.values())
            own = counts["prototype"] / n
            balance.append({"baseline": f"{layer}'s prototype share", "target": kind, "n": n,
                            "accuracy": round(own, 4), "chance": round(share, 4)})
            if not counts["prototype"] or not counts["extension"] or (n >= MIN_ITEMS and abs(own - share) > SCENE_BALANCE):
                out.findings.append(Finding("error", "cogevolve-pictures", kind,
                                            f"{layer} {kind!r} draws {counts['prototype']} prototypes and "
                                            f"{counts['extension']} extensions ({100 * own:.0f}% prototypes against "
                                            f"{100 * share:.0f}% in the build): the {layer} tells the role"))
        rate = {kind: (counts["prototype"] + 1) / (sum(counts.values()) + 2) for kind, counts in mine.items()}
        for stratum in ("N=2", "N>2"):
            items = [i for i in build.items if i.task == "3b" and i.meta["stratum"] == stratum]
            if items:
                hits, c = 0.0, 0.0
                for item in items:
                    kind = {r["sense"]: kind_of(r) for r in item.meta["image_records"]}
                    shown = list(item.meta["id_map"].values())
                    best = max(rate.get(kind.get(k), 0.0) for k in shown)
                    tied = [k for k in shown if rate.get(kind.get(k), 0.0) == best]
                    hits += (item.meta["path"][0] in tied) / len(tied)
                    c += 1 / len(shown)
                rows.append(_audit(out, f"first image by {layer}", f"3b {stratum}", hits, len(items), c / len(items)))
    return rows, balance


CHECKS = [("cogevolve", check_cogevolve)]
