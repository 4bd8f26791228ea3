"""cogforge.svgcheck accepts reused image schemas and rejects hostile or copied ones.

Every rejection test asserts the rule by name and that the file name is in the
message, because a generator author fixes files from those two facts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cogforge.core import svgcheck
from cogforge.core.svgcheck import MAX_BYTES, SVGError, check, check_files, ensure

HEAD = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'width="512" height="512" viewBox="0 0 512 512">'
)
CORE = (
    '<g id="k3f9a1c"><path fill="#E1E8ED" d="M20 32a2 2 0 1 1-4 0z"/>'
    '<circle cx="11.5" cy="18.5" r="1.5" fill="#292F33"/></g>'
)
BACKGROUND = '<rect x="0" y="0" width="512" height="512" fill="#FFFFFF"/>'


def svg(body: str, defs: str = CORE, head: str = HEAD) -> bytes:
    return f"{head}\n<defs>{defs}</defs>\n{BACKGROUND}\n{body}\n</svg>".encode()


SCENE_A = (
    '<g id="q81be02"><rect x="20" y="300" width="470" height="40" fill="#8899AA"/>'
    '<use xlink:href="#k3f9a1c" transform="translate(100 100) scale(8)"/></g>'
)
SCENE_B = (
    '<g id="z4c07d1"><circle cx="400" cy="120" r="60" fill="#F4900C"/>'
    '<use href="#k3f9a1c" transform="translate(200 220) scale(6)"/>'
    '<use xlink:href="#k3f9a1c" transform="translate(20 20) scale(3)"/></g>'
)
VALID_A = svg(SCENE_A)
VALID_B = svg(SCENE_B)


def rules_of(data: bytes, file: str = "w.svg", banned_words: tuple[str, ...] = ()) -> set[str]:
    """The rules a file breaks, after checking the file name is in every problem."""
    _, problems = check(data, file, banned_words)
    assert problems, "expected the file to be rejected"
    for problem in problems:
        assert str(problem).startswith(f"{file}: {problem.rule}: ")
    return {problem.rule for problem in problems}


def test_valid_pair_passes_with_identical_core_hash(tmp_path: Path) -> None:
    checked_a, problems_a = check(VALID_A, "a.svg")
    checked_b, problems_b = check(VALID_B, "b.svg")
    assert problems_a == [] and problems_b == []
    assert checked_a is not None and checked_b is not None
    assert checked_a.core_id == checked_b.core_id == "k3f9a1c"
    assert checked_a.core_sha256 == checked_b.core_sha256
    assert len(checked_a.core_sha256 or "") == 64
    assert (checked_a.uses, checked_b.uses) == (1, 2)
    # background + scene shape + 2 core primitives per use
    assert (checked_a.elements, checked_b.elements) == (4, 6)
    (tmp_path / "a.svg").write_bytes(VALID_A)
    (tmp_path / "b.svg").write_bytes(VALID_B)
    assert check_files([tmp_path / "a.svg", tmp_path / "b.svg"]) == []


def test_core_through_helper_group_in_defs_is_accepted() -> None:
    helper = CORE + '<g id="m0d2e9f"><use href="#k3f9a1c"/><rect x="0" y="0" width="4" height="4"/></g>'
    checked, problems = check(svg('<use href="#m0d2e9f"/>', defs=helper), "h.svg")
    assert problems == []
    assert checked is not None and checked.core_id == "k3f9a1c"
    assert checked.uses == 2


def test_ensure_returns_checked_or_raises_with_file_and_rule() -> None:
    assert ensure(VALID_A, "ok.svg").core_id == "k3f9a1c"
    with pytest.raises(SVGError) as caught:
        ensure(svg(SCENE_A + "<script>alert(1)</script>"), "bad.svg")
    assert "bad.svg: element: <script>" in str(caught.value)
    assert {p.rule for p in caught.value.problems} >= {"element"}


def test_xxe_is_rejected_before_parsing() -> None:
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        + svg(SCENE_A.replace('<rect x="20"', '<rect id="&x;" x="20"'))
    )
    checked, problems = check(data, "xxe.svg")
    assert checked is None
    assert [p.rule for p in problems] == ["parse"]
    assert "xxe.svg" in str(problems[0])
    assert "passwd" not in str(problems[0])


def test_billion_laughs_is_rejected() -> None:
    entities = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">'
        for i in range(1, 10)
    )
    data = f'<!DOCTYPE svg [{entities}]>'.encode() + svg(SCENE_A)
    assert rules_of(data, "laughs.svg") == {"parse"}


def test_lowercase_doctype_and_malformed_xml_are_parse_problems() -> None:
    assert rules_of(b"<!doctype svg>" + VALID_A, "lower.svg") == {"parse"}
    assert rules_of(VALID_A[:-10], "cut.svg") == {"parse"}


def test_huge_file_is_rejected_by_size() -> None:
    padding = '<rect x="1" y="1" width="1" height="1"/>' * (MAX_BYTES // 40 + 10)
    assert rules_of(svg(SCENE_A + padding), "huge.svg") == {"size"}


def test_self_referencing_use_is_a_cycle() -> None:
    defs = CORE + '<g id="a"><use xlink:href="#a"/></g>'
    assert "cycle" in rules_of(svg(SCENE_A + '<use xlink:href="#a"/>', defs=defs), "self.svg")


def test_mutual_cycle_is_detected() -> None:
    defs = CORE + '<g id="b1"><use href="#b2"/></g><g id="b2"><use href="#b1"/></g>'
    rules = rules_of(svg(SCENE_A + '<use href="#b1"/>', defs=defs), "mutual.svg")
    assert "cycle" in rules


def test_use_bomb_is_detected_without_expanding_it() -> None:
    # 4 uses per level, 8 levels: 65,536 copies of the core from a ~1.5 KiB file.
    levels = [CORE]
    previous = "k3f9a1c"
    for level in range(1, 9):
        uses = f'<use href="#{previous}"/>' * 4
        levels.append(f'<g id="v{level}">{uses}</g>')
        previous = f"v{level}"
    checked, problems = check(svg(f'<use href="#{previous}"/>', defs="".join(levels)), "bomb.svg")
    assert "use-bomb" in {p.rule for p in problems}
    assert all("bomb.svg" in str(p) for p in problems)
    assert checked is not None
    assert checked.uses == sum(4**i for i in range(9))  # 1 + 4 + ... + 4**8
    assert checked.elements == 1 + 2 * 4**8


def test_redrawn_core_shape_outside_defs_is_rejected() -> None:
    copied = '<path fill="#E1E8ED" d="M20 32a2 2 0 1 1-4 0z"/>'
    assert "redrawn" in rules_of(svg(SCENE_A + copied), "redrawn.svg")


def test_copied_core_group_outside_defs_is_rejected() -> None:
    copy = CORE.replace('id="k3f9a1c"', 'id="p9e1b3a"')
    assert "redrawn" in rules_of(svg(SCENE_A + copy), "copy.svg")


def test_two_cores_are_rejected() -> None:
    second = '<g id="j7c2d0e"><rect x="0" y="0" width="9" height="9" fill="#000000"/></g>'
    data = svg(SCENE_A + '<use href="#j7c2d0e"/>', defs=CORE + second)
    assert "core" in rules_of(data, "two.svg")


def test_core_defined_twice_under_one_id_is_rejected() -> None:
    assert "core" in rules_of(svg(SCENE_A, defs=CORE + CORE), "twice.svg")


def test_missing_core_is_rejected() -> None:
    # The scene draws everything itself: nothing in <defs> is reused.
    scene = '<g id="q81be02"><rect x="20" y="300" width="470" height="40" fill="#8899AA"/></g>'
    assert "core" in rules_of(svg(scene), "nocore.svg")
    assert "core" in rules_of(svg(scene, defs=""), "nodefs.svg")


@pytest.mark.parametrize(
    ("name", "markup"),
    [
        ("script", "<script>alert(1)</script>"),
        ("foreignObject", '<foreignObject width="9" height="9"></foreignObject>'),
        ("image", '<image href="http://example.invalid/x.png" width="9" height="9"/>'),
        ("animate", '<animate attributeName="x" from="0" to="9" dur="1s"/>'),
        ("text", '<text x="9" y="9">human</text>'),
        ("title", "<title>prototype</title>"),
        ("desc", "<desc>the literal sense</desc>"),
        ("metadata", "<metadata></metadata>"),
    ],
)
def test_disallowed_elements_are_rejected(name: str, markup: str) -> None:
    _, problems = check(svg(SCENE_A + markup), f"{name}.svg")
    hits = [p for p in problems if p.rule == "element" and p.element.startswith(f"<{name}")]
    assert hits, problems
    assert f"{name}.svg: element: <{name}" in str(hits[0])


def test_comment_is_rejected() -> None:
    assert rules_of(svg(SCENE_A + "<!-- PROTOTYPE -->"), "comment.svg") == {"comment"}


def test_external_url_in_fill_is_rejected() -> None:
    scene = SCENE_A.replace('fill="#8899AA"', 'fill="url(http://x/y#f)"')
    assert rules_of(svg(scene), "url.svg") == {"attribute"}


def test_external_use_href_is_rejected() -> None:
    assert "reference" in rules_of(svg(SCENE_A + '<use xlink:href="other.svg#a"/>'), "ext.svg")


def test_reference_to_missing_id_is_rejected() -> None:
    assert rules_of(svg(SCENE_A + '<use href="#nothere"/>'), "missing.svg") == {"reference"}
    scene = SCENE_A.replace('fill="#8899AA"', 'fill="url(#nothere)"')
    assert rules_of(svg(scene), "missingurl.svg") == {"reference"}


@pytest.mark.parametrize("ident", ["scene_human", "IdentityCore"])
def test_leaky_ids_are_rejected(ident: str) -> None:
    assert rules_of(svg(SCENE_A.replace("q81be02", ident)), "leak.svg") == {"id"}


def test_banned_word_in_id_is_rejected() -> None:
    data = svg(SCENE_A.replace("q81be02", "ox_bridge"))
    assert check(data, "w.svg")[1] == []
    assert rules_of(data, "banned.svg", banned_words=("bridge",)) == {"id"}


def test_unlisted_attribute_is_rejected() -> None:
    scene = SCENE_A.replace('<g id="q81be02">', '<g id="q81be02" data-role="prototype">')
    assert rules_of(svg(scene), "data.svg") == {"attribute"}


def test_cores_differing_by_one_coordinate_are_reported(tmp_path: Path) -> None:
    (tmp_path / "a.svg").write_bytes(VALID_A)
    (tmp_path / "b.svg").write_bytes(VALID_B)
    (tmp_path / "c.svg").write_bytes(VALID_B.replace(b'cx="11.5"', b'cx="11.6"'))
    problems = check_files(sorted(tmp_path.glob("*.svg")))
    assert [p.rule for p in problems] == ["core-differs"]
    assert str(tmp_path / "c.svg") in str(problems[0])


def test_group_by_compares_cores_only_within_a_word(tmp_path: Path) -> None:
    other_core = VALID_B.replace(b'cx="11.5"', b'cx="11.6"')
    for word, data in (("ox", VALID_A), ("ox", VALID_B), ("elm", other_core)):
        (tmp_path / f"{word}-{len(list(tmp_path.iterdir()))}.svg").write_bytes(data)
    paths = sorted(tmp_path.glob("*.svg"))
    assert check_files(paths, group_by=lambda p: p.name.split("-")[0]) == []
    assert {p.rule for p in check_files(paths)} == {"core-differs"}


def test_href_and_xlink_href_forms_are_both_accepted() -> None:
    plain = VALID_A.replace(b"xlink:href", b"href")
    assert check(plain, "plain.svg")[1] == []
    assert check(VALID_A, "xlink.svg")[1] == []


def test_rule_names_and_limits_are_the_documented_ones() -> None:
    assert svgcheck.MAX_EXPANDED_USES == 1000
    assert svgcheck.PRIMITIVES <= svgcheck.ALLOWED
