"""Validate "image schema" SVGs: safe to parse, safe to render, and built by reuse.

Every word in the CogEvolve benchmark has one *core* drawing, defined once inside
``<defs>`` as ``<g id="...">``, and every sense image of that word is a separate
SVG file that instantiates the core with ``<use xlink:href="#id"/>``. The benchmark
claims that all senses share one image schema; that claim is only true if the core
is reused, not redrawn or quietly edited in one file. This module checks that
claim, and because the SVGs are later rendered by cairosvg and may come from a
generator we do not fully trust (or a human editor), it also rejects anything
hostile or leaky:

- hostile XML: DOCTYPE / entity declarations (XXE, billion laughs), oversized files;
- hostile SVG: scripts, foreign content, external references, ``<use>`` cycles
  (cairosvg recurses until ``RecursionError``) and ``<use>`` bombs (a 4-way, 8-level
  tree of uses renders 65,536 leaves from a file of a few hundred bytes);
- leaks: text, titles, comments, ``data-*`` attributes and ids such as
  ``scene_human`` would tell a model reading the source what the answer is;
- broken reuse: no core, two cores, the core redrawn outside ``<defs>``, or
  (across one word's files, in :func:`check_files`) cores that differ.

Nothing is ever rendered: every check walks the parsed tree once or twice, and the
``<use>`` graph is evaluated with memoisation, so a bomb costs as much as its
source, not as its expansion. :func:`check` returns every problem at once so that a
generator author can fix a file in one pass; :func:`ensure` raises them together.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from lxml import etree

from cogforge.core.errors import UserError

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"

MAX_BYTES = 512 * 1024
MAX_EXPANDED_USES = 1000
# A single <use> of a 600-path group repeated 999 times stays under the use limit
# yet renders 600,000 paths, so expansion is bounded by rendered primitives too.
MAX_EXPANDED_ELEMENTS = 50_000

ALLOWED = {
    "svg", "defs", "g", "use", "rect", "circle", "ellipse", "line", "polyline",
    "polygon", "path", "linearGradient", "radialGradient", "stop", "clipPath",
}
PRIMITIVES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"}
ALLOWED_ATTRIBUTES = {
    "id", "x", "y", "width", "height", "viewBox", "d", "points", "cx", "cy", "r",
    "rx", "ry", "x1", "y1", "x2", "y2", "fill", "stroke", "stroke-width",
    "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "fill-opacity",
    "stroke-opacity", "opacity", "transform", "href", "fill-rule", "clip-rule",
    "clip-path", "gradientUnits", "gradientTransform", "offset", "stop-color",
    "stop-opacity", "fx", "fy", "spreadMethod", "version", "preserveAspectRatio",
    "stroke-miterlimit", "clipPathUnits",
}
# Words that name the benchmark's own design; an id containing one tells a model
# reading the source which part of the picture matters.
LEAKY_WORDS = (
    "prototype", "proto", "core", "identity", "metaphor", "metonymy", "sense",
    "scene", "role", "answer", "correct", "target", "extension", "literal",
    "figurative",
)
# Opaque ids are random hex-ish tokens; a banned word of one or two letters would
# match most of them by chance, so such words are not looked for.
MIN_BANNED_WORD = 3

_SVG = f"{{{SVG_NS}}}"
_XLINK_HREF = f"{{{XLINK_NS}}}href"
_USE = f"{_SVG}use"
_DEFS = f"{_SVG}defs"
_G = f"{_SVG}g"
_PRIMITIVE_TAGS = tuple(_SVG + name for name in sorted(PRIMITIVES))
_URL = re.compile(r"url\(([^)]*)\)", re.IGNORECASE)
# Browsers ignore whitespace and control characters inside a scheme name
# ("java\tscript:"), so they are removed before looking for one.
_SCHEME_NOISE = re.compile(r"[\x00-\x20]+")
_PLAIN_ATTRIBUTES = frozenset(ALLOWED_ATTRIBUTES - {"href"})
_SUSPICIOUS = re.compile(r"[:(\\]")
_CAP = 10**9  # expansion counts saturate here; anything near it is a bomb anyway


class SVGError(UserError):
    """A rejected SVG. ``problems`` holds every reason; the message lists them."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


@dataclass(frozen=True)
class Problem:
    """One reason to reject a file: where (file, element) and what to do (message)."""

    file: str
    rule: str
    element: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.rule}: {self.element}: {self.message}"


@dataclass
class Checked:
    """What a parsed file turned out to contain.

    ``uses`` counts ``<use>`` instances after expanding every use recursively (a
    use inside a group that is used twice counts twice); ``elements`` counts the
    drawing primitives that would be painted, expanded the same way.
    """

    file: str
    core_id: str | None
    core_sha256: str | None
    uses: int
    elements: int


def parse(data: bytes, file: str = "<svg>") -> etree._Element:
    """Parse SVG bytes without ever resolving an entity or touching the network.

    Args:
        data: the file's bytes.
        file: the name problems are reported under.

    Raises:
        SVGError: rule "size" or "parse".
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"{file}: parse() takes bytes, got {type(data).__name__}")
    if len(data) > MAX_BYTES:
        raise SVGError([Problem(
            file, "size", f"{len(data):,} bytes",
            f"larger than {MAX_BYTES:,} bytes; an image schema is a few KiB, "
            "simplify the paths or check the generator for runaway output",
        )])
    # Declarations are refused outright rather than parsed safely: an image schema
    # never needs one, and a refusal cannot be bypassed by a parser quirk.
    lowered = bytes(data).lower()
    for marker in (b"<!doctype", b"<!entity"):
        if marker in lowered:
            line = lowered.count(b"\n", 0, lowered.index(marker)) + 1
            raise SVGError([Problem(
                file, "parse", f"<!{marker[2:].decode().upper()}> at line {line}",
                "DOCTYPE and entity declarations are not allowed (XXE, billion "
                "laughs); remove the declaration",
            )])
    # The byte test above only works if the markers are spelt in ASCII bytes.
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as err:
        raise SVGError([Problem(
            file, "parse", f"byte {err.start}",
            "not UTF-8; write the SVG as UTF-8",
        )]) from None
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
        remove_comments=False, remove_pis=False,
    )
    try:
        root = etree.fromstring(bytes(data), parser)
    except etree.XMLSyntaxError as err:
        line = err.position[0] if err.position else 0
        raise SVGError([Problem(
            file, "parse", f"line {line}", f"not well-formed XML ({err.msg}); fix the markup",
        )]) from None
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or any(
        isinstance(node, etree._Entity) for node in root.iter()
    ):
        raise SVGError([Problem(
            file, "parse", "<!DOCTYPE>",
            "DOCTYPE and entity declarations are not allowed; remove them",
        )])
    return root


def check(
    data: bytes, file: str = "<svg>", banned_words: Iterable[str] = ()
) -> tuple[Checked | None, list[Problem]]:
    """Check one SVG against every rule, without rendering it.

    Args:
        data: the file's bytes.
        file: the name problems are reported under.
        banned_words: words no id or class may contain, on top of LEAKY_WORDS
            (typically the word itself and the words of its gloss).

    Returns:
        ``(Checked, problems)``; ``Checked`` is None when the bytes did not parse.
        An empty problem list means the file is accepted.
    """
    try:
        root = parse(data, file)
    except SVGError as err:
        return None, err.problems
    doc = _Doc(root, file)
    problems = _check_root(doc)
    problems += _check_nodes(doc)
    problems += _check_attributes(doc, _leaky_words(banned_words))
    targets, reference_problems = _resolve_uses(doc)
    problems += reference_problems
    graph = _UseGraph(doc, targets)
    problems += graph.problems
    core, core_problems = _find_core(doc, graph)
    problems += core_problems
    if core is not None:
        problems += _check_redrawn(doc, core)
    checked = Checked(
        file=file,
        core_id=core.get("id") if core is not None else None,
        core_sha256=_core_sha256(core) if core is not None else None,
        uses=graph.total_uses,
        elements=graph.total_elements,
    )
    return checked, problems


def check_files(
    paths: list[Path | str],
    group_by: Callable[[Path], str] | None = None,
    banned_words: Iterable[str] = (),
) -> list[Problem]:
    """Check files, and that files of one word share a byte-identical core.

    Args:
        paths: SVG files.
        group_by: maps a path to its word; files of one group must have the same
            core. By default all the files given are one word's images.
        banned_words: passed to :func:`check` for every file.

    Returns:
        Every problem of every file, then "core-differs" problems.
    """
    banned = list(banned_words)
    problems: list[Problem] = []
    groups: dict[str, list[tuple[str, Checked]]] = {}
    for entry in paths:
        path = Path(entry)
        name = str(path)
        data, read_problem = _read(path)
        if read_problem is not None:
            problems.append(read_problem)
            continue
        checked, found = check(data, name, banned)
        problems += found
        if checked is not None and checked.core_sha256 is not None:
            key = group_by(path) if group_by is not None else ""
            groups.setdefault(key, []).append((name, checked))
    for members in groups.values():
        problems += _core_differs(members)
    return problems


def ensure(data: bytes, file: str = "<svg>", banned_words: Iterable[str] = ()) -> Checked:
    """Like :func:`check`, but raise :class:`SVGError` listing every problem."""
    checked, problems = check(data, file, banned_words)
    if problems or checked is None:
        raise SVGError(problems)
    return checked


# --- the parsed document ---------------------------------------------------------


class _Doc:
    """A parsed file with the look-ups every rule needs, built in one walk.

    Holding ``elements`` keeps lxml's element proxies alive, which is what makes
    them usable as dictionary keys for the rest of the check.
    """

    def __init__(self, root: etree._Element, file: str) -> None:
        self.root = root
        self.file = file
        self.nodes: list[etree._Element] = list(root.iter())
        self.elements = [node for node in self.nodes if isinstance(node.tag, str)]
        self.ids: dict[str, etree._Element] = {}
        self.id_counts: Counter[str] = Counter()
        self.in_defs: set[etree._Element] = set()
        self.ordinal: dict[etree._Element, int] = {}
        seen: Counter[str] = Counter()
        for element in self.elements:
            seen[element.tag] += 1
            self.ordinal[element] = seen[element.tag]
            ident = element.get("id")
            if ident is not None:
                self.id_counts[ident] += 1
                self.ids.setdefault(ident, element)
            parent = element.getparent()
            if parent is not None and (parent in self.in_defs or parent.tag == _DEFS):
                self.in_defs.add(element)

    def problem(self, rule: str, element: etree._Element | str, message: str) -> Problem:
        where = element if isinstance(element, str) else self.describe(element)
        return Problem(self.file, rule, where, message)

    def describe(self, element: etree._Element) -> str:
        """Name an element so that it can be found: by id, by href, or by position."""
        name = _display_tag(element)
        line = f", line {element.sourceline}" if element.sourceline else ""
        if element.tag == _USE:
            for key, shown in ((_XLINK_HREF, "xlink:href"), ("href", "href")):
                if element.get(key) is not None:
                    return f'<{name} {shown}="{element.get(key)}">{line}'
        if element.get("id") is not None:
            return f'<{name} id="{element.get("id")}">{line}'
        if element is self.root:
            return f"<{name}> root{line}"
        place = "inside" if element in self.in_defs else "outside"
        return f"<{name}> #{self.ordinal[element]} {place} <defs>{line}"


def _split(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        namespace, _, local = tag[1:].partition("}")
        return namespace, local
    return "", tag


def _display_tag(element: etree._Element) -> str:
    namespace, local = _split(element.tag)
    if namespace in ("", SVG_NS):
        return local
    return f"{element.prefix}:{local}" if element.prefix else f"{{{namespace}}}{local}"


def _display_attribute(key: str) -> str:
    namespace, local = _split(key)
    if namespace == XLINK_NS:
        return f"xlink:{local}"
    if namespace == XML_NS:
        return f"xml:{local}"
    return f"{{{namespace}}}{local}" if namespace else local


# --- rules -----------------------------------------------------------------------


def _check_root(doc: _Doc) -> list[Problem]:
    root = doc.root
    if root.tag != f"{_SVG}svg":
        return [doc.problem(
            "root", root,
            f'the root must be <svg xmlns="{SVG_NS}">; wrap the drawing in one',
        )]
    if not root.get("viewBox"):
        return [doc.problem(
            "root", root,
            'the root <svg> has no viewBox; add one (e.g. viewBox="0 0 512 512") so '
            "the image scales to any output size",
        )]
    return []


def _check_nodes(doc: _Doc) -> list[Problem]:
    """Rules "element" and "comment": only plain shapes, and nothing hidden."""
    problems: list[Problem] = []
    top_level = list(doc.root.itersiblings(preceding=True)) + list(doc.root.itersiblings())
    for node in top_level + doc.nodes:
        if not isinstance(node.tag, str):
            problems.append(_hidden_node(doc, node))
        else:
            namespace, local = _split(node.tag)
            if namespace != SVG_NS or local not in ALLOWED:
                problems.append(doc.problem(
                    "element", node,
                    "not an allowed element; image schemas use only "
                    f"{', '.join(sorted(ALLOWED))} in the SVG namespace (draw text as "
                    "paths; drop scripts, metadata, animation and filters)",
                ))
            if node.text and node.text.strip():
                problems.append(_stray_text(doc, node, "inside", node.text))
        # Text is never part of an image schema, and in a source file it is a leak.
        if node.tail and node.tail.strip() and node.getparent() is not None:
            problems.append(_stray_text(doc, node, "after", node.tail))
    return problems


def _hidden_node(doc: _Doc, node: etree._Element) -> Problem:
    kind = "processing instruction" if isinstance(node, etree._ProcessingInstruction) else "comment"
    text = (node.text or "").strip()
    shown = text if len(text) <= 40 else text[:37] + "..."
    return doc.problem(
        "comment", f"{kind} {shown!r} at line {node.sourceline}",
        f"remove the {kind}: it can carry labels a model reading the source would see",
    )


def _stray_text(doc: _Doc, node: etree._Element, where: str, text: str) -> Problem:
    if isinstance(node.tag, str):
        element = doc.describe(node)
    else:
        element = f"comment at line {node.sourceline}"
    return doc.problem(
        "element", element,
        f"character data {where} it ({text.strip()[:40]!r}); remove it, image "
        "schemas carry no text",
    )


def _leaky_words(banned_words: Iterable[str]) -> tuple[str, ...]:
    extra = (word.strip().lower() for word in banned_words)
    return LEAKY_WORDS + tuple(word for word in extra if len(word) >= MIN_BANNED_WORD)


def _check_attributes(doc: _Doc, words: tuple[str, ...]) -> list[Problem]:
    """Rules "attribute", "id" and url(#id) "reference" problems, in one pass."""
    problems: list[Problem] = []
    for element in doc.elements:
        for key, value in element.attrib.items():
            problems += _check_attribute(doc, element, key, value)
        for name in ("id", "class"):
            value = element.get(name)
            if not value:
                continue
            lowered = value.lower()
            found = [word for word in words if word in lowered]
            if found:
                problems.append(doc.problem(
                    "id", element,
                    f'{name} "{value}" contains {", ".join(repr(w) for w in found)}; '
                    "use an opaque random token that names nothing",
                ))
        ident = element.get("id")
        if ident is not None and doc.id_counts[ident] > 1 and doc.ids[ident] is not element:
            problems.append(doc.problem(
                "id", element,
                f'id "{ident}" is defined {doc.id_counts[ident]} times; references to '
                "it are ambiguous, give every element its own id",
            ))
    return problems


def _check_attribute(doc: _Doc, element: etree._Element, key: str, value: str) -> list[Problem]:
    # Fast path for the overwhelmingly common case (a plain geometry or paint
    # value): nothing in it could name a scheme, a url( or a CSS escape.
    if key in _PLAIN_ATTRIBUTES and not _SUSPICIOUS.search(value):
        return []
    shown = _display_attribute(key)
    namespace, local = _split(key)
    if local.lower().startswith("on"):
        return [doc.problem(
            "attribute", element, f"event handler {shown}; remove it, SVGs here are inert",
        )]
    is_href = (namespace == XLINK_NS and local == "href") or key == "href"
    if not is_href and (namespace or local not in ALLOWED_ATTRIBUTES):
        return [doc.problem(
            "attribute", element,
            f"attribute {shown} is not allowed; use only geometry and paint "
            "attributes (data-*, class, style and text attributes can leak labels)",
        )]
    problems: list[Problem] = []
    if is_href and element.tag != _USE:
        problems.append(doc.problem(
            "attribute", element,
            f"{shown} on <{_display_tag(element)}>; only <use> may reference, remove it",
        ))
    squeezed = _SCHEME_NOISE.sub("", value).lower()
    if "javascript:" in squeezed or "data:" in squeezed:
        problems.append(doc.problem(
            "attribute", element,
            f"{shown} holds a javascript: or data: URL; remove it",
        ))
    if "\\" in value:
        # Presentation attributes are parsed as CSS, where escapes could spell url(.
        problems.append(doc.problem(
            "attribute", element, f"{shown} contains a backslash; remove it",
        ))
    if "url(" in value.lower():
        problems += _check_urls(doc, element, shown, value)
    return problems


def _check_urls(doc: _Doc, element: etree._Element, shown: str, value: str) -> list[Problem]:
    matches = list(_URL.finditer(value))
    if len(matches) != value.lower().count("url("):
        return [doc.problem(
            "attribute", element, f"{shown} has an unclosed url(; write url(#id)",
        )]
    problems: list[Problem] = []
    for match in matches:
        inner = match.group(1).strip().strip("'\"").strip()
        if not inner.startswith("#"):
            problems.append(doc.problem(
                "attribute", element,
                f"{shown} points outside the file ({match.group(0)}); only url(#id) "
                "of an element in this file is allowed",
            ))
        elif inner[1:] not in doc.ids:
            problems.append(doc.problem(
                "reference", element,
                f"{shown} points to {match.group(0)}, but no element has id "
                f'"{inner[1:]}"; define it or fix the id',
            ))
    return problems


def _resolve_uses(doc: _Doc) -> tuple[dict[etree._Element, etree._Element], list[Problem]]:
    """Rule "reference": every <use> points at an element of this file."""
    targets: dict[etree._Element, etree._Element] = {}
    problems: list[Problem] = []
    for use in doc.root.iter(_USE):
        xlink, plain = use.get(_XLINK_HREF), use.get("href")
        if xlink is not None and plain is not None and xlink != plain:
            problems.append(doc.problem(
                "reference", use,
                "has both xlink:href and href with different values; renderers "
                "disagree on which wins, keep one",
            ))
            continue
        href = xlink if xlink is not None else plain
        if href is None:
            problems.append(doc.problem(
                "reference", use, 'has no xlink:href or href; add href="#id" of the core',
            ))
        elif not href.startswith("#"):
            problems.append(doc.problem(
                "reference", use,
                f'references "{href}" outside this file; each image must be '
                "self-contained, reference #id of an element defined here",
            ))
        elif href[1:] not in doc.ids:
            problems.append(doc.problem(
                "reference", use,
                f'no element has id "{href[1:]}"; define it in <defs> or fix the id',
            ))
        else:
            targets[use] = doc.ids[href[1:]]
    return targets, problems


class _UseGraph:
    """The <use> graph: cycles, and expansion sizes, without expanding anything.

    A node is an element that some <use> references; its edges are the <use>
    elements in its subtree. Each node's expanded size is computed once (memoised,
    iteratively so that a long chain of uses cannot exhaust Python's stack), which
    makes a 65,536-leaf bomb cost a few dozen additions.
    """

    def __init__(self, doc: _Doc, targets: dict[etree._Element, etree._Element]) -> None:
        self.doc = doc
        self.targets = targets
        nodes = list(dict.fromkeys(targets.values()))
        self.edges = {node: list(node.iter(_USE)) for node in nodes}
        self.uses: dict[etree._Element, int] = {}
        self.painted: dict[etree._Element, int] = {}
        self.cyclic: list[etree._Element] = []
        for node in nodes:
            self._expand(node)
        outside_uses = [u for u in doc.root.iter(_USE) if u not in doc.in_defs]
        self.outside_uses = outside_uses
        self.total_uses = min(_CAP, sum(1 + self._uses_of(u) for u in outside_uses))
        drawn = sum(1 for el in doc.root.iter(*_PRIMITIVE_TAGS) if el not in doc.in_defs)
        self.total_elements = min(_CAP, drawn + sum(self._painted_by(u) for u in outside_uses))
        self.problems = self._cycle_problems() + self._bomb_problems()

    def _uses_of(self, use: etree._Element) -> int:
        target = self.targets.get(use)
        return self.uses.get(target, 0) if target is not None else 0

    def _painted_by(self, use: etree._Element) -> int:
        target = self.targets.get(use)
        return self.painted.get(target, 0) if target is not None else 0

    def _expand(self, start: etree._Element) -> None:
        if start in self.uses:
            return
        on_stack = {start}
        stack = [(start, iter(self.edges[start]))]
        while stack:
            node, pending = stack[-1]
            for use in pending:
                target = self.targets.get(use)
                if target is None or target in self.uses:
                    continue
                if target in on_stack:
                    self.cyclic.append(use)  # a back edge: expansion would never end
                    continue
                on_stack.add(target)
                stack.append((target, iter(self.edges[target])))
                break
            else:
                stack.pop()
                on_stack.discard(node)
                # Back edges add nothing: the cycle is reported, and the counts
                # only need to be finite.
                edges = self.edges[node]
                self.uses[node] = min(_CAP, sum(1 + self._uses_of(u) for u in edges))
                own = sum(1 for _ in node.iter(*_PRIMITIVE_TAGS))
                self.painted[node] = min(_CAP, own + sum(self._painted_by(u) for u in edges))

    def _cycle_problems(self) -> list[Problem]:
        return [
            self.doc.problem(
                "cycle", use,
                "references an element that contains this <use> (directly or through "
                "other uses); rendering would recurse forever, point it at the core",
            )
            for use in dict.fromkeys(self.cyclic)
        ]

    def _bomb_problems(self) -> list[Problem]:
        counted = (
            ("uses", self.total_uses, self.uses, MAX_EXPANDED_USES),
            ("drawn elements", self.total_elements, self.painted, MAX_EXPANDED_ELEMENTS),
        )
        for what, total, per_node, limit in counted:
            if total > limit:
                return [self._bomb(self._worst_use(per_node), what, total, limit)]
            # A bomb in <defs> that nothing uses is not rendered, but it is hostile.
            over = [node for node, size in per_node.items() if size > limit]
            if over:
                return [self._bomb(over[0], what, per_node[over[0]], limit)]
        return []

    def _worst_use(self, per_node: dict[etree._Element, int]) -> etree._Element:
        """The outside <use> that expands most: the one to fix first."""
        sizes = {use: per_node.get(self.targets.get(use), 0) for use in self.outside_uses}
        return max(sizes, key=sizes.__getitem__, default=self.doc.root)

    def _bomb(self, element: etree._Element, what: str, size: int, limit: int) -> Problem:
        amount = f"at least {size:,}" if size >= _CAP else f"{size:,}"
        return self.doc.problem(
            "use-bomb", element,
            f"expands to {amount} {what} (limit {limit:,}); nested <use> multiplies, "
            "instantiate the core directly instead of through layers of groups",
        )


def _find_core(doc: _Doc, graph: _UseGraph) -> tuple[etree._Element | None, list[Problem]]:
    """Rule "core": exactly one leaf <g> in the root's <defs>, used outside <defs>.

    The core is recognised by its role rather than by a name (names must be
    opaque): the <g> directly in <defs> that contains no <use> and that a <use>
    outside <defs> reaches, directly or through helper groups.
    """
    if not graph.outside_uses:
        return None, [doc.problem(
            "core", doc.root,
            'no <use> outside <defs>; instantiate the core with <use href="#id"/>',
        )]
    reached: set[etree._Element] = set()
    frontier = [graph.targets[u] for u in graph.outside_uses if u in graph.targets]
    while frontier:
        node = frontier.pop()
        if node in reached:
            continue
        reached.add(node)
        frontier += [graph.targets[u] for u in graph.edges[node] if u in graph.targets]
    groups = [
        child for defs in doc.root.iterchildren(_DEFS) for child in defs.iterchildren(_G)
    ]
    cores = [g for g in groups if g in reached and next(g.iter(_USE), None) is None]
    if not cores:
        return None, [doc.problem(
            "core", doc.root,
            "no <g> directly in <defs> is drawn by a <use> outside <defs>; define the "
            "core once as <defs><g id=...> and instantiate it with <use href=\"#id\"/>",
        )]
    if len(cores) > 1:
        ids = ", ".join(f'"{g.get("id")}"' for g in cores)
        return None, [doc.problem(
            "core", cores[1],
            f"{len(cores)} drawings in <defs> are used outside <defs> ({ids}); an image "
            "schema has exactly one core, draw everything else outside <defs>",
        )]
    core = cores[0]
    problems: list[Problem] = []
    if doc.id_counts[core.get("id")] > 1:
        problems.append(doc.problem(
            "core", core,
            f'the core id is defined {doc.id_counts[core.get("id")]} times; define the '
            "core exactly once",
        ))
    if next(core.iter(*_PRIMITIVE_TAGS), None) is None:
        problems.append(doc.problem(
            "core", core, "the core draws nothing; put its paths and shapes inside it",
        ))
    return core, problems


def _shape(element: etree._Element) -> tuple[str, tuple[tuple[str, str], ...]]:
    """An element's tag and attributes, ids left out because ids are per copy."""
    attributes = dict(element.attrib)
    attributes.pop("id", None)
    return element.tag, tuple(sorted(attributes.items()))


def _signature(element: etree._Element) -> tuple:
    """A subtree's shapes, nested as the subtree is; equal for copies with new ids."""
    # Built bottom-up from a document-order list so that depth costs no recursion.
    subtree = [el for el in element.iter() if isinstance(el.tag, str)]
    built: dict[etree._Element, tuple] = {}
    for node in reversed(subtree):
        children = tuple(built[child] for child in node if isinstance(child.tag, str))
        built[node] = (_shape(node), children)
    return built[element]


def _check_redrawn(doc: _Doc, core: etree._Element) -> list[Problem]:
    """Rule "redrawn": the core is instantiated, never copied outside <defs>."""
    problems: list[Problem] = []
    core_shapes = {_shape(el) for el in core.iter(*_PRIMITIVE_TAGS)}
    # Comparing (tag, attribute count) first skips sorting the attributes of
    # almost every shape in the scene.
    quick = {(tag, len(attributes)) for tag, attributes in core_shapes}
    for element in doc.root.iter(*_PRIMITIVE_TAGS):
        if element in doc.in_defs:
            continue
        attributes = element.attrib
        count = len(attributes) - (1 if "id" in attributes else 0)
        if (element.tag, count) in quick and _shape(element) in core_shapes:
            problems.append(doc.problem(
                "redrawn", element,
                "identical to a shape of the core; the core must be drawn only "
                f'through <use href="#{core.get("id")}"/>, remove the copy',
            ))
    core_signature = _signature(core)
    core_size = sum(1 for _ in core.iter())
    for group in doc.root.iter(_G):
        if group is core or group in doc.in_defs or len(group) != len(core):
            continue
        if sum(1 for _ in group.iter()) == core_size and _signature(group) == core_signature:
            problems.append(doc.problem(
                "redrawn", group,
                "a copy of the core; replace it with "
                f'<use href="#{core.get("id")}"/>',
            ))
    return problems


def _core_sha256(core: etree._Element) -> str:
    return hashlib.sha256(etree.tostring(core, method="c14n")).hexdigest()


# --- several files -----------------------------------------------------------------


def _read(path: Path) -> tuple[bytes, Problem | None]:
    name = str(path)
    try:
        with open(path, "rb") as handle:
            # One byte past the limit is enough to know the file is too big.
            data = handle.read(MAX_BYTES + 1)
    except OSError as err:
        return b"", Problem(name, "parse", "file", f"cannot read it ({err.strerror}); check the path")
    if len(data) > MAX_BYTES:
        return b"", Problem(
            name, "size", f"more than {MAX_BYTES:,} bytes",
            "an image schema is a few KiB; simplify the paths or check the generator",
        )
    return data, None


def _core_differs(members: list[tuple[str, Checked]]) -> list[Problem]:
    """Files of one word whose core is not the one most of its files share."""
    counts = Counter(checked.core_sha256 for _, checked in members)
    if len(counts) < 2:
        return []
    # The majority is taken as intended; ties go to the first file, for stable output.
    first = members[0][1].core_sha256
    best = max(counts.values())
    reference = first if counts[first] == best else counts.most_common(1)[0][0]
    example = next(name for name, checked in members if checked.core_sha256 == reference)
    return [
        Problem(
            name, "core-differs", f'<g id="{checked.core_id}">',
            f"core sha256 {checked.core_sha256[:12]} differs from {reference[:12]} in "
            f"{example}; every image of a word must instantiate the identical core, "
            "copy it byte for byte",
        )
        for name, checked in members
        if checked.core_sha256 != reference
    ]

