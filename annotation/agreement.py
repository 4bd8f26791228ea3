"""Inter-annotator agreement from a Label Studio snapshot (Community exports, no Enterprise).

For every categorical question of the labeling config (Choices, Rating) it reports:
Cohen's kappa for each annotator pair, Fleiss' kappa (the general form that allows
a different number of ratings per unit), Krippendorff's alpha (nominal; ordinal and
interval too when the labels are numbers), percent agreement, the numbers of units
and annotators, and each annotator's agreement with the adjudicated (majority)
label. Multiple-choice answers count as one label: the set of choices. For a
free-text question scored against ground truth (the human baseline), it reports
human accuracy with the same judge that scores models.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from cogforge.annotation.projects import choices
from cogforge.annotation.stages import get_stage
from cogforge.core.shortcuts import wilson


# --------------------------------------------------------------------------- statistics


def cohen_kappa(a: list, b: list) -> float | None:
    """Cohen's kappa of two raters' labels for the same units (None when undefined)."""
    n = len(a)
    if n == 0:
        return None
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in ca.keys() | cb.keys()) / (n * n)
    if pe == 1:
        return 1.0 if po == 1 else None
    return (po - pe) / (1 - pe)


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' kappa from a units x categories count table (rows may have different totals)."""
    counts = np.asarray(counts, dtype=float)
    n_i = counts.sum(axis=1)
    keep = n_i >= 2
    counts, n_i = counts[keep], n_i[keep]
    if len(counts) == 0:
        return None
    p_i = ((counts * counts).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    p_bar = p_i.mean()
    p_j = counts.sum(axis=0) / n_i.sum()
    p_e = float((p_j * p_j).sum())
    if p_e == 1:
        return 1.0 if p_bar == 1 else None
    return float((p_bar - p_e) / (1 - p_e))


def krippendorff_alpha(matrix: list[list], level: str, domain: list | None = None) -> float | None:
    """Krippendorff's alpha via the ``krippendorff`` package; ``matrix`` is coders x units
    with None for a missing label; nominal labels are coded as category indices."""
    import krippendorff

    values = sorted({v for row in matrix for v in row if v is not None}, key=str)
    if level == "nominal":
        code = {v: i for i, v in enumerate(domain or values)}
        data = [[np.nan if v is None else code[v] for v in row] for row in matrix]
        domain_codes = list(range(len(code)))
    else:
        data = [[np.nan if v is None else float(v) for v in row] for row in matrix]
        domain_codes = sorted({float(v) for v in values}) if level == "ordinal" else None
    pairable = sum(1 for col in zip(*data) if sum(not np.isnan(x) for x in col) >= 2)
    if pairable == 0 or len(values) < 2:
        return None
    return float(krippendorff.alpha(reliability_data=np.array(data, dtype=float),
                                    level_of_measurement=level, value_domain=domain_codes))


def percent_agreement(units: list[list]) -> float | None:
    """Share of agreeing rater pairs, averaged over units with two or more labels."""
    scores = []
    for labels in units:
        if len(labels) >= 2:
            pairs = list(itertools.combinations(labels, 2))
            scores.append(sum(a == b for a, b in pairs) / len(pairs))
    return float(np.mean(scores)) if scores else None


# --------------------------------------------------------------------------- from a snapshot


def questions(label_config: str) -> dict[str, str]:
    """Control tags of a labeling config: name -> tag (Choices, Rating, TextArea, ...)."""
    from defusedxml import ElementTree

    root = ElementTree.fromstring(label_config)
    return {el.get("name"): el.tag for el in root.iter()
            if el.tag in ("Choices", "Rating", "Number", "TextArea") and el.get("name")}


def _labels(snapshot: dict, name: str) -> dict[int, dict[str, str]]:
    """task id -> {annotator: label} for one question (cancelled annotations left out)."""
    out: dict[int, dict[str, str]] = defaultdict(dict)
    for task in snapshot["tasks"]:
        for a in task["annotations"]:
            if a["was_cancelled"]:
                continue
            value = choices(a, name)
            if value is None:
                if name != "reasons" or choices(a, "verdict") is None:
                    continue
                value = []  # an annotator who accepted gave no reasons: "(none)"
            who = a.get("annotator") or str(a["completed_by"])
            out[task["id"]][who] = "|".join(sorted(value)) if len(value) != 1 else value[0]
            if not value:
                out[task["id"]][who] = "(none)"
    return out


def question_agreement(snapshot: dict, name: str) -> dict:
    labels = _labels(snapshot, name)
    annotators = sorted({who for per in labels.values() for who in per})
    units = sorted(labels)
    categories = sorted({v for per in labels.values() for v in per.values()}, key=str)
    pairwise = {}
    for x, y in itertools.combinations(annotators, 2):
        shared = [u for u in units if x in labels[u] and y in labels[u]]
        pairwise[f"{x} ~ {y}"] = {"units": len(shared), "kappa": cohen_kappa(
            [labels[u][x] for u in shared], [labels[u][y] for u in shared])}
    table = np.array([[list(labels[u].values()).count(c) for c in categories] for u in units]) \
        if units and categories else np.zeros((0, 0))
    matrix = [[labels[u].get(who) for u in units] for who in annotators]
    numeric = bool(categories) and all(_is_number(c) for c in categories)
    alpha = {"nominal": krippendorff_alpha(matrix, "nominal", categories)}
    if numeric:
        alpha["ordinal"] = krippendorff_alpha(matrix, "ordinal")
        alpha["interval"] = krippendorff_alpha(matrix, "interval")
    adjudicated = {}
    for u in units:
        ranked = Counter(labels[u].values()).most_common()
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
            adjudicated[u] = ranked[0][0]
    per_annotator = {}
    for who in annotators:
        mine = [u for u in units if who in labels[u] and u in adjudicated]
        agree = sum(labels[u][who] == adjudicated[u] for u in mine)
        per_annotator[who] = {"units": len(mine), "agreement_with_adjudicated": agree / len(mine) if mine else None}
    return {
        "units": len(units), "annotators": len(annotators), "categories": categories,
        "units_with_2plus": int(sum(len(labels[u]) >= 2 for u in units)),
        "percent_agreement": percent_agreement([list(labels[u].values()) for u in units]),
        "fleiss_kappa": fleiss_kappa(table) if len(table) else None,
        "krippendorff_alpha": alpha, "cohen_kappa": pairwise, "per_annotator": per_annotator,
        "ties": int(sum(u not in adjudicated for u in units)),
    }


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _pushed_items(snapshot: dict) -> list[dict]:
    """The items of the build the project was pushed from (the ground truth)."""
    build = Path(snapshot["project"]["build"])
    if not (build / "items.jsonl").is_file():
        raise FileNotFoundError(f"the build {build} this project was pushed from is gone; "
                                "the ground truth is needed to score people")
    return [json.loads(line) for line in (build / "items.jsonl").read_text().splitlines()]


def human_accuracy(snapshot: dict, question: str) -> dict:
    """Free answers typed by people, scored against the build's answers by the judge that
    scores models (the benchmark's ``is_correct``). A task keyed by an item id is about
    that item; one keyed by a picture's sha256 is about every item of the build that shows
    the picture (an answer right for any of them counts), so ids renumbered by a rebuild
    do not matter."""
    from cogforge.evaluate.score import Scorer

    rows = _pushed_items(snapshot)
    truth: dict[str, list[dict]] = defaultdict(list)
    for item in rows:
        for key in dict.fromkeys([item["id"], *(Path(p).stem for p in item["images"])]):
            truth[key].append(item)
    judge = Scorer(rows, snapshot["project"].get("benchmark") or (rows[0]["benchmark"] if rows else ""))
    per_annotator: dict[str, list[bool]] = defaultdict(list)
    by_task: dict[str, list[bool]] = defaultdict(list)
    for task in snapshot["tasks"]:
        shown = truth.get(task["data"]["key"], [])
        for a in task["annotations"]:
            text = choices(a, question)
            if a["was_cancelled"] or not text or not shown:
                continue
            ok = any(judge.correct(text[0], item, None) for item in shown)
            per_annotator[a.get("annotator") or str(a["completed_by"])].append(ok)
            by_task[shown[0]["task"]].append(ok)
    hits = [x for v in per_annotator.values() for x in v]
    return {"answers": len(hits), "accuracy": sum(hits) / len(hits) if hits else None,
            "ci95": wilson(sum(hits), len(hits)) if hits else None,
            "per_annotator": {k: {"answers": len(v), "accuracy": sum(v) / len(v)} for k, v in sorted(per_annotator.items())},
            "by_task": {k: {"answers": len(v), "accuracy": sum(v) / len(v)} for k, v in sorted(by_task.items())}}


def letter_accuracy(snapshot: dict, question: str) -> dict:
    """Option letters people chose, scored against the build's answer letters: overall,
    per annotator, per task and per item family (where tasks carry one in ``state``)."""
    truth = {item["id"]: (item["meta"]["answer_letter"], item["task"], item["meta"].get("family"))
             for item in _pushed_items(snapshot)}
    per_annotator: dict[str, list[bool]] = defaultdict(list)
    by_task: dict[str, list[bool]] = defaultdict(list)
    by_family: dict[str, list[bool]] = defaultdict(list)
    for task in snapshot["tasks"]:
        key = task["data"]["key"]
        for a in task["annotations"]:
            chosen = choices(a, question)
            if a["was_cancelled"] or not chosen or key not in truth:
                continue
            letter, task_name, family = truth[key]
            ok = chosen[0] == letter
            per_annotator[a.get("annotator") or str(a["completed_by"])].append(ok)
            by_task[task_name].append(ok)
            if family:
                by_family[family].append(ok)
    hits = [x for v in per_annotator.values() for x in v]

    def summary(groups: dict[str, list[bool]]) -> dict:
        return {k: {"answers": len(v), "accuracy": sum(v) / len(v)} for k, v in sorted(groups.items())}
    return {"answers": len(hits), "accuracy": sum(hits) / len(hits) if hits else None,
            "ci95": wilson(sum(hits), len(hits)) if hits else None, "per_annotator": summary(per_annotator),
            "by_task": summary(by_task), "by_family": summary(by_family)}


def agreement(snapshot: dict) -> dict:
    tags = questions(snapshot["project"]["label_config"])
    out = {"project": snapshot["project"]["id"], "title": snapshot["project"]["title"],
           "stage": snapshot["project"].get("cogforge_stage"), "pulled_at": snapshot.get("pulled_at"),
           "questions": {}}
    for name, tag in tags.items():
        if tag in ("Choices", "Rating", "Number"):
            out["questions"][name] = question_agreement(snapshot, name)
    stage_name = snapshot["project"].get("cogforge_stage")
    stage = get_stage(stage_name, snapshot["project"].get("benchmark")) if stage_name else None
    if stage and stage.caption_question:
        out["human_accuracy"] = human_accuracy(snapshot, stage.caption_question)
    if stage and stage.letter_question:
        out["human_accuracy"] = letter_accuracy(snapshot, stage.letter_question)
    return out


# --------------------------------------------------------------------------- reports


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def table(result: dict) -> str:
    lines = [f"Agreement for project {result['project']} ({result['title']})", ""]
    for name, q in result["questions"].items():
        a = q["krippendorff_alpha"]
        lines.append(f"  {name}: {q['units']} units, {q['annotators']} annotators, "
                     f"{q['units_with_2plus']} with 2+ labels, {q['ties']} ties")
        lines.append(f"    percent agreement {_fmt(q['percent_agreement'])}   Fleiss kappa "
                     f"{_fmt(q['fleiss_kappa'])}   Krippendorff alpha " +
                     ", ".join(f"{k} {_fmt(v)}" for k, v in a.items()))
        for pair, v in q["cohen_kappa"].items():
            lines.append(f"    Cohen kappa {pair}: {_fmt(v['kappa'])} on {v['units']} units")
        for who, v in q["per_annotator"].items():
            lines.append(f"    {who}: agreement with adjudicated {_fmt(v['agreement_with_adjudicated'])} "
                         f"on {v['units']} units")
    if "human_accuracy" in result:
        h = result["human_accuracy"]
        lines.append(f"  human accuracy: {_fmt(h['accuracy'])} on {h['answers']} answers")
    return "\n".join(lines)


def heatmap(q: dict, path: Path, title: str) -> Path:
    from cogforge.core.plots import figure

    people = sorted(q["per_annotator"])
    grid = np.full((len(people), len(people)), np.nan)
    for i, x in enumerate(people):
        grid[i, i] = 1.0
        for j, y in enumerate(people):
            pair = q["cohen_kappa"].get(f"{x} ~ {y}") or q["cohen_kappa"].get(f"{y} ~ {x}")
            if pair and pair["kappa"] is not None:
                grid[i, j] = pair["kappa"]
    size = 2.2 + 0.9 * len(people)
    with figure(path, (size + 1.2, size)) as (fig, ax):
        im = ax.imshow(grid, vmin=-1, vmax=1, cmap="RdYlGn")
        labels = [p.split("@")[0] for p in people]
        ax.set_xticks(range(len(people)), labels, rotation=45, ha="right")
        ax.set_yticks(range(len(people)), labels)
        for i in range(len(people)):
            for j in range(len(people)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=9)
        ax.set_title(title)
        fig.colorbar(im, ax=ax, label="Cohen's kappa")
    return path


def write_reports(result: dict, out_dir: Path) -> dict[str, Path]:
    from cogforge.core.buildio import dump_json

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "agreement.json", "markdown": out_dir / "agreement.md"}
    paths["json"].write_text(dump_json(result))
    md = [f"# Agreement: {result['title']}", "",
          f"Project {result['project']}, stage `{result['stage']}`, snapshot pulled {result['pulled_at']}.", ""]
    for name, q in result["questions"].items():
        a = q["krippendorff_alpha"]
        md += [f"## `{name}`", "", "| measure | value |", "| --- | --- |",
               f"| units (with 2+ labels) | {q['units']} ({q['units_with_2plus']}) |",
               f"| annotators | {q['annotators']} |",
               f"| percent agreement | {_fmt(q['percent_agreement'])} |",
               f"| Fleiss' kappa | {_fmt(q['fleiss_kappa'])} |"]
        md += [f"| Krippendorff's alpha ({k}) | {_fmt(v)} |" for k, v in a.items()]
        md += [f"| ties left for an expert | {q['ties']} |", "", "| annotator pair | units | Cohen's kappa |",
               "| --- | --- | --- |"]
        md += [f"| {p} | {v['units']} | {_fmt(v['kappa'])} |" for p, v in q["cohen_kappa"].items()]
        md += ["", "| annotator | units | agreement with adjudicated label |", "| --- | --- | --- |"]
        md += [f"| {w} | {v['units']} | {_fmt(v['agreement_with_adjudicated'])} |" for w, v in q["per_annotator"].items()]
        if q["annotators"] >= 2:
            png = heatmap(q, out_dir / f"kappa-{name}.png", f"Pairwise Cohen's kappa: {name}")
            paths[f"heatmap-{name}"] = png
            md += ["", f"![pairwise kappa for {name}]({png.name})"]
        md.append("")
    if "human_accuracy" in result:
        h = result["human_accuracy"]
        md += ["## Human accuracy", "", f"{_fmt(h['accuracy'])} on {h['answers']} answers "
               f"(95% CI {_fmt((h['ci95'] or [None])[0])}-{_fmt((h['ci95'] or [None, None])[1])}), "
               + ("scored against the items' answer letters." if "by_family" in h
                  else "scored by the same judge as models."), "", "| annotator | answers | accuracy |",
               "| --- | --- | --- |"]
        md += [f"| {w} | {v['answers']} | {_fmt(v['accuracy'])} |" for w, v in h["per_annotator"].items()]
        if h.get("by_family"):
            md += ["", "| family | answers | accuracy |", "| --- | --- | --- |"]
            md += [f"| {f} | {v['answers']} | {_fmt(v['accuracy'])} |" for f, v in h["by_family"].items()]
    paths["markdown"].write_text("\n".join(md) + "\n")
    return paths
