"""Princeton WordNet 3.0 from Debian's packages, read with nltk, as a networkx isA graph.

Debian's ``wordnet-base`` and ``wordnet-sense-index`` install the database in
``/usr/share/wordnet`` (another folder can be named with ``COGFORGE_WORDNET_DIR`` or
the builder's config). Debian ships no ``lexnames`` file, which nltk needs; the
project provides it (``data/wordnet-lexnames``: the 45 fixed lexicographer files).
nltk only reads files inside its data directories and refuses links that point
outside them, so the files are hard-linked (or copied) into
``.cache/nltk_data/corpora/wordnet/``, and that folder is put on nltk's path.

The noun isA graph has an edge child -> parent for every hypernym and instance
hypernym; it must be acyclic. Nodes are ImageNet-style ids (``n02084071``) with the
synset name, a readable name, the lexicographer file and every lemma (what a reader
of an option's *name* may take it to mean: :meth:`IsA.senses`).

Order: nltk keeps a synset's pointers in a ``set``, so ``hypernyms()`` lists them in
an order that changes with Python's string-hash seed from one process to the next.
Every list here is therefore sorted by WordNet offset where WordNet itself gives no
order, so the graph, its cache and everything built from it are the same bytes in
every process. Building it from nltk takes
about ten seconds here, so it is cached in ``.cache/`` as gzipped JSON keyed by the
sha256 of the WordNet files, together with the tree; a warm load takes about a
second. Only a graph that passed the acyclicity check is ever cached.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("COGFORGE_CACHE") or ROOT / ".cache")  # COGFORGE_CACHE: another cache folder
LEXNAMES = Path(__file__).parent / "data" / "wordnet-lexnames"
DEFAULT_DIR = Path("/usr/share/wordnet")
FILES = ["data.noun", "index.noun", "data.verb", "index.verb", "data.adj", "index.adj", "data.adv",
         "index.adv", "noun.exc", "verb.exc", "adj.exc", "adv.exc", "index.sense", "cntlist.rev"]
ROOT_ID = "n00001740"  # entity.n.01
CACHE_FORMAT = "v2"  # v2: lemmas per node, offset order; older caches are not read


class WordNetError(RuntimeError):
    """WordNet is missing or unusable."""


def wordnet_dir(configured: str | Path | None = None) -> Path:
    folder = Path(configured or os.environ.get("COGFORGE_WORDNET_DIR") or DEFAULT_DIR)
    missing = [f for f in ("data.noun", "index.noun", "index.sense") if not (folder / f).is_file()]
    if missing:
        raise WordNetError(f"WordNet 3.0 not found in {folder} (missing {', '.join(missing)}): install Debian's "
                           "wordnet-base and wordnet-sense-index (`make build-constructure` does), or set "
                           "COGFORGE_WORDNET_DIR")
    return folder


def fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for name in FILES + ["lexnames"]:
        path = LEXNAMES if name == "lexnames" else folder / name
        if path.is_file():
            digest.update(name.encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def reader(folder: Path | None = None):
    """An nltk WordNetCorpusReader over the given WordNet folder (no download)."""
    import nltk
    from nltk.corpus.reader import WordNetCorpusReader

    folder = wordnet_dir(folder)
    data = CACHE / "nltk_data"
    target = data / "corpora" / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    stamp = target / ".source"
    if not stamp.is_file() or stamp.read_text() != f"{folder}:{fingerprint(folder)}":
        for name in FILES:
            if (folder / name).is_file():
                dest = target / name
                dest.unlink(missing_ok=True)
                try:
                    os.link(folder / name, dest)
                except OSError:
                    shutil.copyfile(folder / name, dest)
        shutil.copyfile(LEXNAMES, target / "lexnames")
        stamp.write_text(f"{folder}:{fingerprint(folder)}")
    if str(data) not in nltk.data.path:
        nltk.data.path.insert(0, str(data))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not needed
        return WordNetCorpusReader(str(target), None)


def wnid(synset) -> str:
    return f"n{synset.offset():08d}"


# pandas' default missing-value strings ("nan", "NA", "null", "None", ...): a table
# reader turns an option with such a text into a missing value.
def na_strings() -> frozenset[str]:
    from pandas._libs.parsers import STR_NA_VALUES

    return frozenset(s.lower() for s in STR_NA_VALUES)


def readable(synset) -> str:
    """The display name: the first lemma that table readers keep as text ("naan", not "nan")."""
    names = [lemma.name().replace("_", " ") for lemma in synset.lemmas()]
    na = na_strings()
    return next((n for n in names if n.lower() not in na), names[0])


def name_key(name: str) -> str:
    """How a displayed name is looked up among lemmas: case and underscores do not matter."""
    return name.replace("_", " ").strip().lower()


@dataclass
class IsA:
    """The full noun isA graph (child -> parent edges) and the tree used for chain search."""

    graph: nx.DiGraph
    tree_parent: dict[str, str]
    lemma_index: dict[str, list[str]] = None  # name_key -> nodes with that lemma, by offset

    def __post_init__(self):
        if self.lemma_index is None:
            index: dict[str, list[str]] = {}
            for node, lemmas in sorted(self.graph.nodes(data="lemmas")):
                for lemma in lemmas or []:
                    index.setdefault(name_key(lemma), []).append(node)
            self.lemma_index = index

    def senses(self, name: str) -> list[str]:
        """Every noun synset that has ``name`` as a lemma: all it can mean to a reader."""
        return self.lemma_index.get(name_key(name), [])

    def ancestors(self, node: str) -> set[str]:
        """Every ancestor through any path of the full graph."""
        return nx.descendants(self.graph, node)

    def descendants(self, node: str) -> set[str]:
        return nx.ancestors(self.graph, node)

    def tree_path(self, node: str) -> list[str]:
        """Root ... node along the tree."""
        path = [node]
        while path[-1] in self.tree_parent:
            path.append(self.tree_parent[path[-1]])
        return path[::-1]

    def tree_children(self) -> dict[str, list[str]]:
        children: dict[str, list[str]] = {}
        for child, parent in self.tree_parent.items():
            children.setdefault(parent, []).append(child)
        return {k: sorted(v) for k, v in children.items()}


def _from_nltk(folder: Path) -> dict:
    wn = reader(folder)
    nodes, edges = {}, []
    for synset in wn.all_synsets("n"):
        node = wnid(synset)
        nodes[node] = [synset.name(), readable(synset), synset.lexname(),
                       [lemma.name() for lemma in synset.lemmas()]]
        # sorted: nltk's pointer sets iterate in hash order (see the module docstring)
        for parent in sorted({wnid(p) for p in synset.hypernyms() + synset.instance_hypernyms()}):
            edges.append([node, parent])
    return {"nodes": dict(sorted(nodes.items())), "edges": sorted(edges)}


def load(folder: Path | str | None = None, use_cache: bool = True) -> IsA:
    """The isA graph, from the cache when the WordNet files are unchanged."""
    folder = wordnet_dir(folder)
    cache = CACHE / f"wordnet-isa-{CACHE_FORMAT}-{fingerprint(folder)}.json.gz"
    if use_cache and cache.is_file():
        data = json.loads(gzip.decompress(cache.read_bytes()))
    else:
        data = _from_nltk(folder)
    graph = nx.DiGraph()
    for node, (name, label, lexname, lemmas) in data["nodes"].items():
        graph.add_node(node, synset=name, name=label, lexname=lexname, lemmas=lemmas)
    graph.add_edges_from(data["edges"])
    if "tree_parent" not in data:
        if not nx.is_directed_acyclic_graph(graph):
            raise WordNetError(f"the isA graph has a cycle: {nx.find_cycle(graph)}")
        data["tree_parent"] = _tree(graph, data["edges"])
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(cache.name + f".tmp-{os.getpid()}")
        tmp.write_bytes(gzip.compress(json.dumps(data, separators=(",", ":")).encode(), mtime=0))
        os.replace(tmp, cache)  # only an acyclic graph is ever cached
    return IsA(graph, data["tree_parent"])


def _tree(graph: nx.DiGraph, edges: list[list[str]]) -> dict[str, str]:
    """One parent per node: the parent with the longest path to the root (dog -> canine,
    not dog -> domestic animal), ties broken by the lower WordNet offset (nltk's own
    order of a synset's hypernyms follows the hash seed, so it cannot be used)."""
    depth: dict[str, int] = {}
    for node in reversed(list(nx.topological_sort(graph))):
        depth[node] = 1 + max((depth[p] for p in graph.successors(node)), default=-1)
    parents_in_order: dict[str, list[str]] = {}
    for child, parent in edges:
        parents_in_order.setdefault(child, []).append(parent)
    return {child: max(ps, key=lambda p: (depth[p], -int(p[1:]))) for child, ps in sorted(parents_in_order.items())}
