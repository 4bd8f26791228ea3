"""CONSTRUCTURE's own checks: every question re-judged on the full WordNet isA graph.

Independent of the builder's code: the chain must be a path of direct isA edges,
each option's synset must exist, exactly one option may satisfy the question, the
recorded letter must be the answer's, and no chain may appear in two splits.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from qc.core import Build, CheckResult, Finding


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


def check_constructure(build: Build) -> CheckResult:
    from generators import wordnet

    out = CheckResult()
    config = build.manifest.get("config", {})
    graph = wordnet.load(config.get("wordnet_dir")).graph
    cache: dict[str, set] = {}

    def anc(node: str) -> set:
        if node not in cache:
            cache[node] = nx.descendants(graph, node)  # edges point child -> parent
        return cache[node]

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
            else:
                options = {o["text"]: o["id"] for o in m["options"]}
                missing = [n for n in options.values() if n not in graph]
                if missing:
                    problems.append(f"options name synsets WordNet lacks: {missing}")
                else:
                    right = _right_options(item.task, x, options, anc)
                    if right != [item.answer]:
                        problems.append(f"options satisfying the question: {right}, answer {item.answer!r}")
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
