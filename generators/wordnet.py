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

import functools
import gzip
import hashlib
import json
import os
import re
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

from cogforge.core.errors import UserError
from cogforge.core.project import project_root

CACHE = Path(os.environ.get("COGFORGE_CACHE") or project_root() / ".cache")  # COGFORGE_CACHE: another cache folder
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


@functools.cache  # called millions of times by CONSTRUCTURE's option ledger
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


# --------------------------------------------------------------------------- offensive senses
#
# A build must never show, key or order an offensive sense: a slur or an obscenity.
# Three sources say which senses are offensive, and each names its reason:
#
# * WordNet's usage domains: a synset filed under ethnic slur, disparagement or
#   obscenity (whose lemmas are also "vulgarism"), or profanity (no synset uses it in
#   WordNet 3.0; listed so that a later WordNet that does is covered);
# * the gloss: WordNet marks many slurs only there ("(ethnic slur) offensive term for",
#   "obscene terms for", "a disparaging term for", "now considered offensive");
# * a curated list, ``data/offensive_senses.tsv``: what the two rules miss, by synset
#   (every lemma) or by sense key (one lemma of an otherwise harmless synset: "homo"
#   in homosexual.n.01, "kaffir cat" in kaffir_cat.n.01).
#
# A synset is judged as a meaning; a sense key (a lemma of a synset) as a meaning
# *under a name*: "taco" the food is harmless, "taco" in greaser.n.01 is a slur; the
# word itself is not banned.

OFFENSIVE_LIST = Path(__file__).parent / "data" / "offensive_senses.tsv"
OFFENSIVE_DOMAINS = {"ethnic_slur.n.01": "ethnic slur", "disparagement.n.01": "disparagement",
                     "obscenity.n.02": "obscenity (vulgarism)", "profanity.n.01": "profanity"}
# The gloss rule reads nltk's definition (examples excluded: "in England 'fanny' is
# vulgar slang for ..." is an example of female_genitalia.n.01, not its meaning). It
# needs the mark to describe the sense itself ("offensive term for", "(ethnic slur)",
# "the term is regarded as offensive"), not an attack ("a military offensive") or a
# word about offensiveness ("obscenity: an offensive or indecent word or phrase").
OFFENSIVE_GLOSS = re.compile(
    r"\(ethnic slur\)"
    r"|\((?:often |sometimes |usually )?(?:offensive|derogatory|disparaging|pejorative|vulgar|obscene)\b"
    r"|\b(?:offensive|disparaging|derogatory|pejorative|insulting|obscene|vulgar|coarse|uncomplimentary"
    r"|contemptuous|abusive)\b[^;()]{0,25}?\b(?:terms?|names?|words?|expressions?|slang|epithets?)"
    r"\s+(?:for|of address|used)\b"
    r"|\bterms? of (?:abuse|contempt|disparagement)\b"
    r"|\b(?:term|name|word)\b[^;]{0,30}\b(?:considered|regarded as) (?:offensive|derogatory|disparaging|insulting)\b",
    re.I)
OFFENSIVE_FORMAT = "v1"  # bump when the rules above change: the cached table is rebuilt


class OffensiveListError(UserError):
    """A line of the curated offensive-sense list that does not name a real sense."""


def load_offensive_list(wn, path: Path | str = OFFENSIVE_LIST) -> dict[str, str]:
    """The curated list: ``{synset name or sense key: reason}``, in file order.

    Every line must be ``KEY<TAB>REASON`` (``#`` comments and blank lines aside), with
    a canonical synset name (``idiot.n.01``, not ``retard.n.01``) or a WordNet 3.0
    sense key, named once; otherwise :class:`OffensiveListError` names the file and line.
    """
    from nltk.corpus.reader.wordnet import WordNetError as NltkError

    path = Path(path)
    out: dict[str, str] = {}
    for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.split("\t")
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise OffensiveListError(f"{path}:{line}: expected 'SYNSET-OR-SENSE-KEY<TAB>REASON', got {text!r}")
        key, reason = fields[0].strip(), fields[1].strip()
        if key in out:
            raise OffensiveListError(f"{path}:{line}: {key} is listed twice; keep one line")
        try:
            if "%" in key:
                found = wn.lemma_from_key(key).key()
            else:
                found = wn.synset(key).name()
        except (NltkError, ValueError, KeyError, AttributeError):
            found = None
        if found != key:
            hint = f" (did you mean {found}?)" if found else ""
            raise OffensiveListError(f"{path}:{line}: {key!r} is not a WordNet 3.0 synset name (word.n.01) or sense "
                                     f"key (word%1:18:00::){hint}")
        out[key] = reason
    return out


def offensive_reason(synset, curated: dict[str, str] | None = None) -> str | None:
    """Why a synset is offensive under every lemma (usage domain, gloss, curated list), or None."""
    domains = sorted(OFFENSIVE_DOMAINS[d.name()] for d in synset.usage_domains() if d.name() in OFFENSIVE_DOMAINS)
    if domains:
        return "WordNet usage domain: " + ", ".join(domains)
    match = OFFENSIVE_GLOSS.search(synset.definition())
    if match:
        return f"gloss: {match.group(0)!r}"
    if curated and synset.name() in curated:
        return "curated: " + curated[synset.name()]
    return None


@dataclass(frozen=True)
class Offensive:
    """Which WordNet senses are offensive, and why: a table read without nltk.

    Attributes:
        synsets: ``{synset name: reason}``: offensive under every lemma.
        senses: ``{sense key: (synset name, lemma name, reason)}``: every offensive
            sense key, those of the synsets above and the curated keys that name an
            otherwise harmless synset offensively.
        definitions: ``{synset name: definition}`` of the synsets above (what a reader
            is shown of a sense where a benchmark shows definitions).
    """

    synsets: dict[str, str]
    senses: dict[str, tuple[str, str, str]]
    definitions: dict[str, str]

    def synset(self, name: str) -> str | None:
        """Why the synset (``fagot.n.01``) is offensive, or None."""
        return self.synsets.get(name)

    def sense(self, key: str) -> str | None:
        """Why the sense key (``coon%1:18:00::``) is offensive, or None."""
        found = self.senses.get(key)
        return found[2] if found else None

    def lemma(self, lemma) -> str | None:
        """:meth:`sense` for an nltk Lemma."""
        return self.sense(lemma.key())

    def shown(self, synset: str, name: str) -> str | None:
        """Why a synset shown under a displayed name ("kaffir cat") is offensive, or None."""
        return self.synsets.get(synset) or self._by_name.get((synset, name_key(name)))

    @functools.cached_property
    def _by_name(self) -> dict[tuple[str, str], str]:
        return {(s, name_key(lemma)): reason for s, lemma, reason in self.senses.values()}

    def to_dict(self) -> dict:
        return {"synsets": self.synsets, "senses": {k: list(v) for k, v in self.senses.items()},
                "definitions": self.definitions}


def _offensive_table(wn, curated: dict[str, str]) -> Offensive:
    # Only the synsets a rule can fire on are handed to nltk (reading all 117,659 takes
    # a minute on a busy machine): the members of the usage domains, the curated
    # synsets, and those whose raw gloss line (examples included: a superset) matches.
    candidates = {member for domain in OFFENSIVE_DOMAINS for member in wn.synset(domain).in_usage_domains()}
    candidates |= {wn.synset(key) for key in curated if "%" not in key}
    folder = Path(wn.root.path)
    for pos, tag in (("noun", "n"), ("verb", "v"), ("adj", "a"), ("adv", "r")):
        with open(folder / f"data.{pos}", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.startswith(" ") and OFFENSIVE_GLOSS.search(line.partition(" | ")[2]):
                    candidates.add(wn.synset_from_pos_and_offset(tag, int(line[:8])))
    synsets, senses, definitions = {}, {}, {}
    for synset in sorted(candidates, key=lambda s: s.name()):
        reason = offensive_reason(synset, curated)
        if reason:
            synsets[synset.name()] = reason
            definitions[synset.name()] = synset.definition()
            for lemma in synset.lemmas():
                senses[lemma.key()] = (synset.name(), lemma.name(), reason)
    for key, reason in curated.items():
        if "%" in key:
            lemma = wn.lemma_from_key(key)
            senses.setdefault(key, (lemma.synset().name(), lemma.name(), "curated: " + reason))
    return Offensive(synsets, dict(sorted(senses.items())), definitions)


def offensive_fingerprint(path: Path | str = OFFENSIVE_LIST) -> str:
    """A hash of what decides offensiveness (rules and curated list): caches built from
    it (the table, CogEvolve's mined graphs) are rebuilt when it changes."""
    return hashlib.sha256(OFFENSIVE_FORMAT.encode() + OFFENSIVE_GLOSS.pattern.encode()
                          + json.dumps(OFFENSIVE_DOMAINS, sort_keys=True).encode()
                          + Path(path).read_bytes()).hexdigest()[:16]


_OFFENSIVE: dict[str, Offensive] = {}
_OFFENSIVE_BY_READER: dict[tuple[int, str], tuple[object, Offensive]] = {}


def offensive(source=None, path: Path | str = OFFENSIVE_LIST) -> Offensive:
    """The offensive-sense table for a WordNet folder (None: the default one) or an nltk reader.

    Computing it reads every synset with nltk (seconds, and the reader itself), so it is
    cached in ``.cache/`` by the WordNet files', the list's and the rules' fingerprints;
    the list is validated (:func:`load_offensive_list`) whenever the table is computed.
    """
    path = Path(path)
    is_reader = hasattr(source, "all_synsets")
    if is_reader and (id(source), str(path)) in _OFFENSIVE_BY_READER:  # the miner asks once per word
        return _OFFENSIVE_BY_READER[(id(source), str(path))][1]
    folder = Path(source.root.path) if is_reader else wordnet_dir(source)
    cache = CACHE / f"wordnet-offensive-{fingerprint(folder)}-{offensive_fingerprint(path)}.json"
    if str(cache) not in _OFFENSIVE:
        if cache.is_file():
            data = json.loads(cache.read_text())
            table = Offensive(data["synsets"], {k: tuple(v) for k, v in data["senses"].items()}, data["definitions"])
        else:
            wn = source if hasattr(source, "all_synsets") else reader(folder)
            table = _offensive_table(wn, load_offensive_list(wn, path))
            CACHE.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_name(cache.name + f".tmp-{os.getpid()}")
            tmp.write_text(json.dumps(table.to_dict(), sort_keys=True))
            os.replace(tmp, cache)
        _OFFENSIVE[str(cache)] = table
    if is_reader:
        # the entry holds the reader, so that its id is never reused by another one
        _OFFENSIVE_BY_READER[(id(source), str(path))] = (source, _OFFENSIVE[str(cache)])
    return _OFFENSIVE[str(cache)]
