"""Every input route refuses a bad file with one line, ``cogforge: FILE[:LINE]: ...``, exit 2.

Each route (a builder's ``--config``, every ``--input`` kind, ``--decisions``,
``eval score --release/--predictions``, ``svg check``, ``annotate`` snapshots and
builds, scene and netlist files) is fed an empty file, random bytes, a truncated
file, a file of the wrong format, and hostile ones (XML entity bombs and external
entities, JSON and TOML nested without end or holding numbers no input needs, paths
that climb out of the project), plus a missing path and a folder. Each must end in
exit status 2 with one line on stderr that starts ``cogforge: `` and names the file,
no traceback, and the build folder (and the folder around it) exactly as it was.
Everything runs in-process through :func:`cogforge.cli.main`; every case fails on its
input before any expensive work.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import random
import re
from pathlib import Path

import pytest

from cogforge.core import registry
from cogforge.cli import main
from cogforge.core.errors import UserError
from conftest import balanced_mcq, make_toy_build

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parent.parent

BILLION_LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
                  + "".join(f' <!ENTITY lol{k} "{("&lol" + str(k - 1) + ";") * 10 if k > 1 else "&lol;" * 10}">\n'
                            for k in range(1, 10))
                  + ']>\n<corpus lang="en" source="x"><text id="d"><sentence id="d.s">'
                    '<wf lemma="a" pos="X">&lol9;</wf></sentence></text></corpus>\n')
XXE = ('<?xml version="1.0"?>\n<!DOCTYPE corpus [\n <!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n'
       '<corpus lang="en" source="x"><text id="d"><sentence id="d.s"><wf lemma="a" pos="X">&xxe;</wf>'
       "</sentence></text></corpus>\n")
DEEP_JSON = "[" * 200_000 + "]" * 200_000
HUGE_INT_JSON = '[{"id": ' + "9" * 5000 + "}]"
TRAVERSAL = "../../../../../../../../../../etc/passwd"


def random_bytes(n: int = 4096) -> bytes:
    return bytes(random.Random(7).randrange(256) for _ in range(n))


def truncated(text: str) -> str:
    """The text cut inside a quoted string past its middle: what an interrupted copy leaves."""
    opens = [m.end() for m in re.finditer(r'[=:>] ?"', text)
             if not text[text.rfind("\n", 0, m.start()) + 1:].lstrip().startswith("#")]
    cut = next((k for k in opens if k > len(text) // 2), opens[-1])
    return text[:cut + 2]


def tree(folder: Path) -> dict[str, str]:
    """Every path under a folder with its content's hash: what "untouched" compares."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"
            for p in sorted(folder.rglob("*"))}


@pytest.fixture(autouse=True)
def one_wordnet(monkeypatch):
    """One WordNet reader for every case that gets as far as checking sense keys (loading
    one takes seconds, and each build would load its own)."""
    from cogforge.generators import wordnet

    monkeypatch.setattr(wordnet, "reader", _reader(wordnet.reader))


@functools.cache
def _reader(load):
    return functools.cache(load)


@pytest.fixture
def out(tmp_path) -> Path:
    """A build target inside a folder that holds an earlier build; ``refused`` checks both."""
    builds = tmp_path / "builds"
    (builds / "old").mkdir(parents=True)
    (builds / "old" / "items.jsonl").write_text('{"id": "earlier"}\n')
    return builds / "new" / "build"


def refused(argv: list[str], bad: Path | str, capsys, out: Path | None = None) -> str:
    """Run the command line; assert it refused ``bad`` in one line with exit 2 and touched nothing."""
    builds = out.parent.parent if out is not None else None
    before = tree(builds) if builds is not None else None
    code = main([str(a) for a in argv])
    stdout, stderr = capsys.readouterr()
    lines = stderr.splitlines()
    assert code == 2, (code, stderr, stdout)
    assert len(lines) == 1 and lines[0].startswith("cogforge: "), stderr
    assert str(bad) in lines[0], (str(bad), lines[0])
    assert "Traceback" not in stderr
    if builds is not None:
        assert not out.exists() and not out.parent.exists()
        assert tree(builds) == before
    return lines[0]


# --------------------------------------------------------------------------- the bad files


def common_cases(tmp: Path, name: str, truncated_text: str, wrong: str, hostile: dict[str, str | bytes]) -> dict:
    """name -> path of every bad file of one route (all named ``name`` in their own folder)."""
    contents: dict[str, str | bytes | None] = {
        "empty": "", "random bytes": random_bytes(), "truncated": truncated_text, "wrong format": wrong,
        **hostile, "missing": None, "folder": "folder"}
    cases = {}
    for k, (case, content) in enumerate(contents.items()):
        path = tmp / f"case{k}" / name
        path.parent.mkdir(parents=True)
        if content == "folder":
            path.mkdir()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        elif content is not None:
            path.write_text(content, encoding="utf-8")
        cases[case] = path
    return cases


CASES = ["empty", "random bytes", "truncated", "wrong format", "missing", "folder"]


def config_cases(tmp: Path, benchmark: str) -> dict[str, Path]:
    own = registry.get(benchmark).default_config.read_text(encoding="utf-8")
    assert re.search(r"^seed = \d+$", own, re.M)
    hostile = {"huge number": re.sub(r"^seed = \d+$", "seed = 1" + "0" * 30, own, count=1, flags=re.M),
               "huge integer": "seed = " + "9" * 5000 + "\n",
               "deep nesting": "seed = " + "[" * 5000 + "]" * 5000 + "\n",
               "infinite": "seed = inf\n"}
    binary = tmp / "binary.bin"
    binary.write_bytes(random_bytes())
    if benchmark == "cogevolve":
        hostile["path traversal"] = f'patterns = "{TRAVERSAL}"\n'
        hostile["names a binary file"] = f'patterns = "{binary}"\n'
    if benchmark == "symbols":
        hostile["path traversal"] = f'[domains.chemistry]\nmolecules = "{TRAVERSAL}"\n'
        hostile["names a binary file"] = f'[domains.chemistry]\nreactions = "{binary}"\n'
    return common_cases(tmp, "my.toml", truncated(own), json.dumps({"seed": 0, "cells": []}), hostile)


CONFIG_CASES = CASES + ["huge number", "huge integer", "deep nesting", "infinite"]


@pytest.mark.parametrize("benchmark", registry.available())
def test_a_bad_config_is_one_line(benchmark, tmp_path, out, capsys):
    cases = config_cases(tmp_path, benchmark)
    for case, path in cases.items():
        # a path in the config that climbs out of the project: the file it reaches is named
        bad = {"path traversal": TRAVERSAL, "names a binary file": tmp_path / "binary.bin"}.get(case, path)
        refused(["build", benchmark, "--config", path, "--out", out, "--quiet"], bad, capsys, out)


def test_an_empty_or_huge_config_value_is_refused_at_its_line(tmp_path, out, capsys):
    config = tmp_path / "carv.toml"
    own = registry.get("carv").default_config.read_text(encoding="utf-8")
    config.write_text(own.replace("count = 500", "count = 1" + "0" * 12, 1))
    line = refused(["build", "carv", "--config", config, "--out", out], config, capsys, out)
    number = own.splitlines().index("count = 500") + 1
    assert line.startswith(f"cogforge: {config}:{number}: key cells[0].count: ")


# --------------------------------------------------------------------------- --input files

CHAINNET_HEADER = "wordform\tfrom_sense_id\tto_sense_id\tlabel\n"
CORPUS = (FIXTURES / "cogevolve" / "mini.data.xml").read_text(encoding="utf-8")
CHEMBENCH = (FIXTURES / "chembench4k" / "Yield_Prediction_benchmark.json").read_text(encoding="utf-8")
SCENES = "incline m=2 angle=37 mu=3/4 state=rest\nfloor m=3 F=6 mu=1/5 state=accelerating\n"


def input_cases(tmp: Path, kind: str) -> dict[str, Path]:
    if kind == "chainnet":
        return common_cases(tmp, "edges.tsv", CHAINNET_HEADER + "can\tcan%1:06:00::\tcan%1:2", CORPUS, {
            "unknown sense key": CHAINNET_HEADER + "can\tcan%1:06:00::\tcan%1:99:99::\tmetonymy\n",
            "path traversal": CHAINNET_HEADER + f"{TRAVERSAL}\t{TRAVERSAL}%1:06:00::\tx%1:06:00::\tmetonymy\n",
            "wrong header": "word\tsource\ttarget\tlabel\ncan\ta\tb\tmetonymy\n"})
    if kind == "wsd_xml":
        cases = common_cases(tmp, "x.data.xml", truncated(CORPUS), json.dumps({"corpus": []}), {
            "entity bomb": BILLION_LAUGHS, "external entity": XXE,
            "not a corpus": '<svg xmlns="http://www.w3.org/2000/svg"><sentence/></svg>\n'})
        for path in cases.values():  # the gold keys beside each corpus are fine
            path.with_name("x.gold.key.txt").write_text("d000.s000.t001 can%1:06:00::\n")
        return cases
    if kind == "chembench":
        return common_cases(tmp, "Yield_Prediction_benchmark.json", truncated(CHEMBENCH), CORPUS, {
            "deep nesting": DEEP_JSON, "huge integer": HUGE_INT_JSON,
            "huge number": '[{"question": 1e999, "A": "a", "B": "b", "C": "c", "D": "d", "answer": "A"}]'})
    if kind == "emoji2idiom":  # a workbook: a zip of XML parts
        workbook = (FIXTURES / "emoji2idiom" / "emoji2idiom.xlsx").read_bytes()
        return common_cases(tmp, "Emoji2Idiom.xlsx", workbook[:len(workbook) // 2], CORPUS,
                            {"a zip of something else": _zip_of({"word/document.xml": CORPUS})})
    if kind == "visualc3":  # a split folder
        return visualc3_cases(tmp)
    assert kind == "scenes"
    return common_cases(tmp, "scenes.txt", SCENES[:-8], CHEMBENCH, {
        "huge number": "floor m=" + "9" * 5000 + " state=rest\n",
        "path traversal": f"{TRAVERSAL} m=2\n"})


def _zip_of(parts: dict[str, str]) -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in parts.items():
            z.writestr(name, text)
    return buffer.getvalue()


def visualc3_cases(tmp: Path) -> dict[str, Path]:
    """Split folders that are not one: a file, an empty folder, label files of random bytes,
    a source cut short (one line's sentence lost), nothing there."""
    import shutil

    cases = {"missing": tmp / "missing" / "Test"}
    cases["a file"] = tmp / "file" / "Test"
    cases["a file"].parent.mkdir()
    cases["a file"].write_text("0001.jpg  我们X论了这个问题。\n", encoding="utf-8")
    cases["empty folder"] = tmp / "empty" / "Test"
    cases["empty folder"].mkdir(parents=True)
    for case, src in (("random bytes", random_bytes()), ("truncated", None)):
        folder = tmp / case.replace(" ", "-") / "Test"
        shutil.copytree(FIXTURES / "visualc3" / "Test", folder)
        label = folder / "label" / "src.txt"
        if src is None:
            src = label.read_bytes()[:-12]
        label.write_bytes(src)
        cases[case] = folder
    return cases


INPUTS = {"chainnet": ("cogevolve", []), "wsd_xml": ("cogevolve", []),
          "chembench": ("symbols", ["--domains", "chemistry"]), "scenes": ("symbols", ["--domains", "physics"]),
          "emoji2idiom": ("symbols", ["--domains", "culture"]), "visualc3": ("symbols", ["--domains", "language"])}


@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_a_bad_input_file_is_one_line(kind, tmp_path, out, capsys):
    benchmark, extra = INPUTS[kind]
    for case, path in input_cases(tmp_path, kind).items():
        refused(["build", benchmark, "--input", f"{kind}={path}", *extra, "--out", out, "--quiet"], path, capsys, out)


def test_the_issues_three_tracebacks_are_one_line_each(tmp_path, out, capsys):
    """The three inputs the issue saw end in tracebacks: a malformed ChemBench file, an
    XML file given as a corpus with a broken gold key, an unknown ChainNet sense key."""
    bad = FIXTURES / "chembench4k" / "bad" / "Yield_Prediction_benchmark.json"
    line = refused(["build", "symbols", "--domains", "chemistry", "--input", f"chembench={bad}", "--out", out],
                   bad, capsys, out)
    assert line.startswith(f"cogforge: {bad}:")
    corpus = tmp_path / "c.data.xml"
    corpus.write_text(CORPUS)
    gold = tmp_path / "c.gold.key.txt"
    gold.write_text("d000.s000.t001 can%1:06:00::\nd000.s000.t002\n")
    line = refused(["build", "cogevolve", "--input", f"wsd_xml={corpus}", "--out", out], gold, capsys, out)
    assert line.startswith(f"cogforge: {gold}:2: ")
    edges = tmp_path / "edges.tsv"
    edges.write_text(CHAINNET_HEADER + "can\tcan%1:06:00::\tcan%1:23:00::\tmetonymy\n"
                     "can\tcan%1:06:00::\tcan%1:99:00::\tmetonymy\n")
    line = refused(["build", "cogevolve", "--input", f"chainnet={edges}", "--out", out], edges, capsys, out)
    assert line.startswith(f"cogforge: {edges}:3: ")


def test_an_unknown_input_kind_or_domain_is_one_line(out, capsys):
    for argv in (["build", "symbols", "--input", "nosuch=x.txt"], ["build", "cogevolve", "--input", "x.txt"],
                 ["build", "carv", "--input", "chainnet=x.txt"], ["build", "symbols", "--domains", "alchemy"]):
        code = main(argv + ["--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and err.startswith("cogforge: "), err
        assert not out.parent.exists()


def test_a_command_line_mistake_is_one_line(capsys):
    for argv in (["eval", "score", "--release", "r"], ["release", "b"], ["release", "diff", "a"],
                 ["release", "verify"], ["annotate", "push", "b"], ["annotate", "pull", "abc"]):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and err.startswith("cogforge: usage: "), (argv, err)


def test_a_build_folder_that_is_not_text_is_one_line(tmp_path, out, capsys):
    """QC reports a broken item as a finding; a binary items.jsonl is no build at all."""
    build = tmp_path / "b"
    build.mkdir()
    (build / "items.jsonl").write_bytes(random_bytes())
    for argv in (["qc", build, "--out", out], ["release", build, "--version", "1.0.0", "--releases", out]):
        refused(argv, build / "items.jsonl", capsys, out)


# --------------------------------------------------------------------------- decisions


def decision_cases(tmp: Path) -> dict[str, Path]:
    good = json.dumps({"unit": "image", "key": "0" * 64, "decision": "reject"})
    return common_cases(tmp, "decisions.jsonl", good + "\n" + good[:20], CORPUS, {
        "deep nesting": DEEP_JSON + "\n", "huge integer": HUGE_INT_JSON[1:-1] + "\n",
        "path traversal": json.dumps({"unit": TRAVERSAL, "key": TRAVERSAL, "decision": "reject"}) + "\n",
        "no decisions": "\n\n"})


@pytest.mark.parametrize("command", ["build", "qc", "release"])
def test_a_bad_decisions_file_is_one_line(command, tmp_path, out, capsys):
    for case, path in decision_cases(tmp_path).items():
        if command == "build":
            argv = ["build", "carv", "--decisions", path, "--out", out]
        elif command == "qc":
            argv = ["qc", FIXTURES, "--decisions", path, "--out", out]
        else:
            argv = ["release", FIXTURES, "--version", "1.0.0", "--releases", out, "--decisions", path]
        refused(argv, path, capsys, out)


# --------------------------------------------------------------------------- predictions and releases


@pytest.fixture(scope="module")
def toy_release(tmp_path_factory) -> Path:
    from cogforge.exports.release import release

    root = tmp_path_factory.mktemp("toy")
    make_toy_build(root / "build", balanced_mcq(8))
    return release(root / "build", "1.0.0", root / "releases", decisions=root / "none", progress=False)


def prediction_cases(tmp: Path, release: Path) -> dict[str, Path]:
    rows = [json.loads(line) for line in (release / "data" / "test.jsonl").read_text().splitlines()]
    good = "".join(json.dumps({"id": r["id"], "response": r["answer"]}) + "\n" for r in rows)
    return common_cases(tmp, "model.jsonl", good[:-10], CORPUS, {
        "deep nesting": DEEP_JSON + "\n", "huge integer": HUGE_INT_JSON[1:-1] + "\n",
        "no predictions": '{"id": "' + TRAVERSAL + '"}\n[1, 2]\n'})


def test_bad_predictions_are_one_line_and_write_no_report(toy_release, tmp_path, out, capsys):
    for case, path in prediction_cases(tmp_path, toy_release).items():
        refused(["eval", "score", "--release", toy_release, "--predictions", path, "--out", out], path, capsys, out)


def test_a_predictions_table_that_is_not_one_is_one_line(toy_release, tmp_path, out, capsys):
    for name, content in (("p.tsv", random_bytes()), ("p.xlsx", b"PK\x03\x04" + random_bytes()),
                          ("p.csv", "a,b\n1,2\n")):
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        refused(["eval", "score", "--release", toy_release, "--predictions", path, "--out", out], path, capsys, out)


def test_a_bad_release_folder_is_one_line(toy_release, tmp_path, out, capsys):
    import shutil

    preds = tmp_path / "p.jsonl"
    preds.write_text('{"id": "toy-0000", "response": "red"}\n')
    for name, content in (("release.json", "{not json"), ("release.json", "[]"), ("data/test.jsonl", "{\n"),
                          ("MANIFEST.sha256", random_bytes())):
        copy = tmp_path / "rel"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(toy_release, copy)
        target = copy / name
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
        refused(["eval", "score", "--release", copy, "--predictions", preds, "--out", out, "--allow-unverified"],
                target, capsys, out)
    refused(["eval", "score", "--release", tmp_path / "nosuch", "--predictions", preds, "--out", out],
            tmp_path / "nosuch", capsys, out)
    for words in (["verify", tmp_path / "nosuch"], ["diff", toy_release, tmp_path / "nosuch"]):
        refused(["release", *words], tmp_path / "nosuch", capsys)


# --------------------------------------------------------------------------- SVG, scene and netlist files

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 64 64" '
       'width="64" height="64"><defs><g id="k1"><path fill="#F00" d="M1 1h10v10z"/></g></defs>'
       '<use xlink:href="#k1"/></svg>\n')


def test_a_file_that_is_not_svg_is_one_line(tmp_path, capsys):
    cases = common_cases(tmp_path, "word.svg", truncated(SVG), json.dumps({"svg": 1}), {
        "entity bomb": BILLION_LAUGHS.replace("corpus", "svg"), "external entity": XXE.replace("corpus", "svg")})
    for case, path in cases.items():
        refused(["svg", "check", path], path, capsys)


def test_a_bad_netlist_or_scene_file_names_file_and_line(tmp_path):
    from cogforge.generators.symbols import _circuits, _forces

    netlists = common_cases(tmp_path / "n", "c.net", "V1 1 0 12\nR1 1 ", CHEMBENCH, {
        "huge number": "V1 1 0 " + "9" * 5000 + "\n", "path traversal": f"R1 {TRAVERSAL} 0 4\n"})
    for reader, cases in ((_circuits.parse_netlist, netlists), (_forces.load_scenes, input_cases(tmp_path, "scenes"))):
        for case, path in cases.items():
            with pytest.raises(UserError) as caught:
                reader(path)
            assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value), (case, caught.value)


# --------------------------------------------------------------------------- annotation


def test_a_bad_snapshot_or_build_for_annotation_is_one_line(tmp_path, out, capsys):
    snapshot = json.dumps({"project": {"id": 1, "title": "t", "label_config": "<View/>"}, "tasks": []})
    cases = common_cases(tmp_path / "s", "0001.json", snapshot[:-5], CORPUS, {
        "deep nesting": DEEP_JSON, "huge integer": HUGE_INT_JSON, "not a snapshot": "[1, 2, 3]",
        "entity bomb": json.dumps({"project": {"id": 1, "title": "t", "label_config": BILLION_LAUGHS},
                                   "tasks": []})})
    for case, path in cases.items():
        if case not in ("missing", "folder"):
            refused(["annotate", "agreement", path, "--out", out], path, capsys, out)
    build = tmp_path / "b"
    build.mkdir()
    (build / "items.jsonl").write_text("")
    for content in ("", "{not json", random_bytes(), "[]"):
        (build / "manifest.json").write_bytes(content if isinstance(content, bytes) else content.encode())
        refused(["annotate", "push", build, "--stage", "item-validation"], build / "manifest.json", capsys)
    refused(["annotate", "push", tmp_path / "nosuch", "--stage", "item-validation"], tmp_path / "nosuch", capsys)
    code = main(["annotate", "push", str(build), "--stage", "nosuch"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("cogforge: ") and len(err.splitlines()) == 1, err
