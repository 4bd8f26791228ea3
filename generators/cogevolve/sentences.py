"""Sentences that use a word in a known sense (Tier 1a and Tier 2).

Two sources make the same records ``{"word", "sense", "text", "form", "source"}``
(``form`` is the word as it appears in ``text``):

* WordNet's own example sentences (:func:`wordnet_examples`): an example of a synset
  counts for a word when it contains the word or one of its inflections as a whole
  word (``mice`` for *mouse*, from WordNet's ``noun.exc``); an example that does not
  name the word ("he deserves a good kick in the butt" under *can*) tells a reader
  nothing about *can* and is left out.
* Sense-tagged corpora in the unified WSD XML format of Raganato, Camacho-Collados
  and Navigli (2017), the format SemCor and the SemEval/Senseval sets are published
  in (:func:`import_wsd_xml`): ``<instance lemma=... pos="NOUN">`` tokens inside
  ``<sentence>`` elements, gold sense keys in a ``.gold.key.txt`` file beside it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from cogforge.core.errors import UserError, read_text


class SentenceError(UserError):
    """A corpus file that cannot be read; the message names the file and line."""


def inflections(wn, word: str) -> list[str]:
    """The word and its regular and irregular plural forms, longest first."""
    forms = {word, word + "s", word + "es"}
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        forms.add(word[:-1] + "ies")
    if word.endswith("f"):
        forms.add(word[:-1] + "ves")
    if word.endswith("fe"):
        forms.add(word[:-2] + "ves")
    forms.update(inflected for inflected, bases in wn._exception_map["n"].items() if word in bases)
    return sorted(forms, key=lambda f: (-len(f), f))


def find_form(text: str, forms: list[str]) -> str | None:
    """The first form that occurs in ``text`` as a whole word (case-insensitive), as written."""
    for form in forms:
        match = re.search(rf"(?<![\w-]){re.escape(form.replace('_', ' '))}(?![\w-])", text, re.I)
        if match:
            return match.group(0)
    return None


def wordnet_examples(graphs: list[dict]) -> list[dict]:
    """WordNet examples of each graph sense that name the word, in graph and sense order
    (from each graph's ``lexical`` record: :func:`generators.cogevolve.graphs.lexical`)."""
    out = []
    for graph in graphs:
        forms = graph["lexical"]["forms"]
        for key in graph["senses"]:
            for text in graph["lexical"]["examples"][key]:
                form = find_form(text, forms)
                if form:
                    out.append({"word": graph["word"], "sense": key, "text": text, "form": form,
                                "source": "wordnet-examples"})
    return out


_NO_SPACE_BEFORE = re.compile(r"^(?:[.,;:!?%)\]}]|'s|n't|'re|'ve|'ll|'d|'m)$", re.I)


def _detokenise(tokens: list[str]) -> str:
    text = ""
    for token in tokens:
        if text and not _NO_SPACE_BEFORE.match(token) and not text.endswith(("(", "[", "{", "$")):
            text += " "
        text += token
    return text


def _gold(path: Path) -> dict[str, list[str]]:
    gold = {}
    try:
        rows = read_text(path, "gold key file").splitlines()
    except UserError as err:
        raise SentenceError(str(err)) from None
    for line, row in enumerate(rows, 1):
        if not row.strip():
            continue
        fields = row.split()
        if len(fields) < 2 or "%" not in fields[1]:
            raise SentenceError(f"{path}:{line}: expected 'instance-id sense-key [sense-key ...]', got {row!r}")
        gold[fields[0]] = fields[1:]
    return gold


def read_wsd_xml(xml_path: Path | str, gold_path: Path | str | None = None) -> tuple[Path, object, dict]:
    """A unified-format corpus and its gold keys, read and checked (no graphs needed, so a
    build reads its corpora before the slow work): ``(path, root element, gold keys)``.

    A DOCTYPE or entity declaration is refused (the format has none; refusing them stops
    entity bombs and external entities), as is a root element other than ``<corpus>``.
    """
    from lxml import etree

    xml_path = Path(xml_path)
    gold_path = Path(gold_path) if gold_path else xml_path.with_name(xml_path.name.replace(".data.xml", ".gold.key.txt"))
    if not xml_path.is_file():
        raise SentenceError(f"{xml_path}: no such corpus file")
    if not gold_path.is_file():
        raise SentenceError(f"{gold_path}: the gold key file is missing; pass it explicitly")
    gold = _gold(gold_path)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
    try:
        tree = etree.parse(str(xml_path), parser)
    except etree.XMLSyntaxError as err:
        raise SentenceError(f"{xml_path}:{err.lineno or 1}: not well-formed XML ({err.msg})") from None
    root = tree.getroot()
    if tree.docinfo.internalDTD is not None or tree.docinfo.doctype:
        raise SentenceError(f"{xml_path}:1: a DOCTYPE or entity declaration; the unified WSD format has none "
                            "(and entities can hide an entity bomb or read other files): remove it")
    if root.tag != "corpus":
        raise SentenceError(f"{xml_path}:{root.sourceline}: the root element is <{root.tag}>, not <corpus>; "
                            "this is not a corpus in the unified WSD XML format")
    return xml_path, root, gold


def import_wsd_xml(xml_path: Path | str, graphs: list[dict], gold_path: Path | str | None = None,
                   corpus: tuple[Path, object, dict] | None = None) -> tuple[list[dict], dict]:
    """Sentences of a unified-format corpus whose tagged noun is a graph word in a graph sense.

    Args:
        xml_path: the corpus (``semcor.data.xml``, ``senseval2.data.xml``, ...).
        graphs: the sense graphs; only their words and senses are kept.
        gold_path: the key file; default: ``<name>.gold.key.txt`` beside the XML.
        corpus: the corpus already read by :func:`read_wsd_xml` (then not read again).

    An instance with several gold keys is kept only when exactly one is a graph sense.
    """
    xml_path, root, gold = corpus or read_wsd_xml(xml_path, gold_path)
    senses = {g["word"]: set(g["senses"]) for g in graphs}
    out, counts = [], defaultdict(int)
    for sentence in root.iter("sentence"):
        tokens = [t.text or "" for t in sentence if t.tag in ("wf", "instance")]
        for token in sentence.iter("instance"):
            word = (token.get("lemma") or "").lower().replace(" ", "_")
            counts["instances"] += 1
            if token.get("pos") != "NOUN" or word not in senses:
                continue
            keys = [k for k in gold.get(token.get("id"), []) if k in senses[word]]
            if len(keys) != 1:
                counts["not in a graph sense"] += 1
                continue
            out.append({"word": word, "sense": keys[0], "text": _detokenise(tokens), "form": token.text or "",
                        "source": f"wsd-xml:{xml_path.name}"})
    counts["sentences"] = len(out)
    return out, dict(counts)
