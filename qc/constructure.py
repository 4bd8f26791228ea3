"""CONSTRUCTURE's own checks: every question re-judged on the full WordNet isA graph.

Independent of the builder's code: the chain must be a path of direct isA edges,
each option's synset must exist, exactly one option may satisfy the question, the
recorded letter must be the answer's, and no chain may appear in two splits.

And as a model reads it: each option's displayed *name* is looked up in WordNet
through nltk (every noun synset with that lemma, whatever synset the builder meant),
and the question is judged again under every sense of every name: the answer must be
right under every reading that fits the image, no distractor under any.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from cogforge.qc.core import Build, CheckResult, Finding


def _right_options(task: str, x: str, options: dict[str, str], anc) -> list[str]:
    def is_a(a: str, b: str) -> bool:
        return a == b or b in anc(a)

    right = []
    for text, node in options.items():
        others = [o for t, o in options.items() if t != text]
        if task == "abstraction":
            ok = is_a(x, node) and all(node in anc(o) for o in others if is_a(x, o))
        elif task == "concretization":
            ok = is_a(x, node) and all(o in anc(node) for o in others if is_a(x, o))
        else:
            ok = not (is_a(x, node) or is_a(node, x))
        if ok:
            right.append(text)
    return right


def _by_name(task: str, x: str, top: str, names: list[str], answer: str, senses, anc) -> list[str]:
    """Problems with a question when each option may mean any sense of its name."""
    def is_a(a: str, b: str) -> bool:
        return a == b or b in anc(a)

    problems = []
    if task in ("abstraction", "concretization"):
        fits = {n: [s for s in senses(n) if is_a(x, s)] for n in names}
        if not fits[answer]:
            problems.append(f"no sense of the answer {answer!r} describes the image")
        for other in names:
            if other == answer:
                continue
            for o in fits[other]:
                for a in fits[answer]:
                    ok = a in anc(o) if task == "abstraction" else o in anc(a)
                    if not ok:
                        problems.append(f"read as {o}, {other!r} is as {'general' if task == 'abstraction' else 'specific'}"
                                        f" as the answer {answer!r} read as {a}")
        return problems[:3]
    lineage = lambda s: is_a(x, s) or is_a(s, x)  # noqa: E731
    right = lambda s: s != top and top in anc(s) and not lineage(s)  # noqa: E731
    if not any(right(s) for s in senses(answer)):
        problems.append(f"no sense of the answer {answer!r} shares an ancestor within the chain")
    problems += [f"the answer {answer!r} read as {s} is in the depicted concept's lineage"
                 for s in senses(answer) if lineage(s)]
    problems += [f"the distractor {n!r} read as {s} is a right answer"
                 for n in names if n != answer for s in senses(n) if right(s)]
    return problems[:3]


def check_constructure(build: Build) -> CheckResult:
    from cogforge.generators import wordnet

    out = CheckResult()
    config = build.manifest.get("config", {})
    graph = wordnet.load(config.get("wordnet_dir")).graph
    wn = wordnet.reader(config.get("wordnet_dir"))
    cache: dict[str, set] = {}
    sense_cache: dict[str, list[str]] = {}

    def anc(node: str) -> set:
        if node not in cache:
            cache[node] = nx.descendants(graph, node)  # edges point child -> parent
        return cache[node]

    def senses(name: str) -> list[str]:
        """Every noun synset with ``name`` as a lemma (case and underscores aside), from nltk."""
        key = name.lower().replace("_", " ")
        if key not in sense_cache:
            found = wn.synsets(key.replace(" ", "_"), pos="n")
            sense_cache[key] = sorted(f"n{s.offset():08d}" for s in found
                                      if any(l.name().lower().replace("_", " ") == key for l in s.lemmas()))
        return sense_cache[key]

    splits_of = defaultdict(set)
    bad = 0
    for item in build.items:
        m = item.meta
        problems = []
        try:
            chain = [c["id"] for c in m["chain"]]
            if any(not graph.has_edge(a, b) for a, b in zip(chain[1:], chain)):
                problems.append("the chain is not a path of direct isA edges")
            x = m["image_concept"]["id"]
            if item.options and m.get("answer_letter") != chr(65 + item.options.index(item.answer)):
                problems.append("answer_letter is not the answer's letter")
            if item.task == "atomic":
                c = m["concept"]["id"]
                expected = "Yes" if (x == c or c in anc(x)) else "No"
                if item.answer != expected:
                    problems.append(f"the image concept {'is' if expected == 'Yes' else 'is not'} a kind of "
                                    f"{m['concept']['name']}, but the answer is {item.answer}")
                name = m["concept"]["name"]
                if f" {name}?" not in item.question:
                    problems.append(f"the question does not ask about {name!r}")
                by_name = "Yes" if any(x == s or s in anc(x) for s in senses(name)) else "No"
                if by_name != item.answer:
                    problems.append(f"by the name {name!r} (any sense) the answer is {by_name}, not {item.answer}")
            else:
                options = {o["text"]: o["id"] for o in m["options"]}
                missing = [n for n in options.values() if n not in graph]
                if missing:
                    problems.append(f"options name synsets WordNet lacks: {missing}")
                else:
                    right = _right_options(item.task, x, options, anc)
                    if right != [item.answer]:
                        problems.append(f"options satisfying the question: {right}, answer {item.answer!r}")
                    if sorted(options) != sorted(item.options):
                        problems.append("meta.options do not match the options shown")
                    problems += _by_name(item.task, x, m["chain"][0]["id"], item.options, item.answer, senses, anc)
            splits_of[m["split_unit"]].add(item.split)
        except (KeyError, TypeError, ValueError) as err:
            problems.append(f"meta is incomplete or malformed: {err!r}")
        for problem in problems:
            out.findings.append(Finding("error", "constructure", item.id, problem))
        bad += bool(problems)
    for unit, splits in sorted(splits_of.items()):
        if len(splits) > 1:
            out.findings.append(Finding("error", "constructure", unit, f"chain appears in splits {sorted(splits)}"))
    out.stats = {"items_checked": len(build.items), "items_with_problems": bad, "chains": len(splits_of)}
    return out


CHECKS = [("constructure", check_constructure)]
