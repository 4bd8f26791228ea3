"""Force diagrams: exact free-body forces that agree with the stated motion, hand-worked
textbook cases, injected errors recovered from the drawing alone, reproducible PNGs
without text chunks, and scene files whose every bad line names file:line and the key."""

from __future__ import annotations

import io
import random
from fractions import Fraction as F

import pytest
from PIL import Image

from cogforge.generators.symbols import _forces as fz
from cogforge.generators.symbols._molecules import png_text_chunks


def by_key(forces: list[fz.Force]) -> dict[tuple[str, str], fz.Force]:
    return {(f.name, f.body): f for f in forces}


def expected_acceleration(scene: fz.Scene) -> F:
    """a from the textbook formula for each kind, independently of free_body's forces."""
    m, g = scene.masses[0], fz.G
    if scene.kind == "incline":
        cos, sin = {37: (F(4, 5), F(3, 5)), 53: (F(3, 5), F(4, 5))}[scene.angle]
        return g * sin - scene.mu * g * cos
    if scene.kind in ("floor", "pulled"):
        cos, sin = {0: (1, 0), 37: (F(4, 5), F(3, 5)), 53: (F(3, 5), F(4, 5))}[scene.rope_angle]
        return (scene.applied * cos - scene.mu * (m * g - scene.applied * sin)) / m
    if scene.kind == "hanging":
        return scene.accel
    if scene.kind == "table":
        return (scene.masses[1] - scene.mu * m) * g / (m + scene.masses[1])
    if scene.kind == "atwood":
        return abs(scene.masses[1] - m) * g / (m + scene.masses[1])
    raise AssertionError(f"{scene.kind} scenes do not accelerate")


# --------------------------------------------------------------------------- physics


@pytest.mark.parametrize("kind", fz.KINDS)
def test_sampled_scenes_have_net_forces_that_match_their_stated_motion(kind):
    rng = random.Random(kind)
    states = set()
    for _ in range(150):
        scene = fz.sample_scene(rng, kind)
        states.add(scene.state)
        forces = fz.free_body(scene)
        assert all(f.magnitude > 0 for f in forces)
        assert len({(f.name, f.body) for f in forces}) == len(forces)
        if scene.state in ("rest", "constant velocity"):
            assert all(fz.net_force(forces, b) == (0, 0) for b in "AB"[:len(scene.masses)])
            continue
        a = expected_acceleration(scene)
        assert a > 0
        net = fz.net_force(forces, "A")
        fact = fz.motion(scene)
        assert fact["acceleration"] == a and not fact["equilibrium"]
        assert (net[0] ** 2 + net[1] ** 2) == (scene.masses[0] * a) ** 2  # |net| = m a, exactly
    assert states == ({"rest"} if kind in ("stacked", "spring") else set(fz.STATES))


def test_block_at_rest_on_a_37_degree_incline():
    scene = fz.Scene("incline", (F(2),), angle=37, mu=F(3, 4), state="rest", velocity=-1)
    forces = by_key(fz.free_body(scene))
    assert forces["G", "A"] == fz.Force("G", "weight", "A", 270, F(20))
    assert forces["N", "A"] == fz.Force("N", "normal", "A", 127, F(16))
    assert forces["f", "A"] == fz.Force("f", "friction", "A", 37, F(12))  # up the slope
    assert fz.components(forces["N", "A"]) == (F(-48, 5), F(64, 5))
    assert fz.motion(scene) == {"equilibrium": True, "net_direction": "none", "acceleration": 0, "slides": False,
                                "net": {"A": "none"}}


def test_block_sliding_down_a_53_degree_incline():
    scene = fz.Scene("incline", (F(2),), angle=53, mu=F(1, 2), state="accelerating", velocity=-1)
    forces = by_key(fz.free_body(scene))
    assert forces["N", "A"].magnitude == 12 and forces["f", "A"].magnitude == 6  # kinetic, mu N
    # a = g sin 53 - mu g cos 53 = 8 - 3
    assert fz.motion(scene) == {"equilibrium": False, "net_direction": "down the slope", "acceleration": 5,
                                "slides": True, "net": {"A": "down the slope"}}


def test_pulled_block_with_rope_at_37_degrees():
    scene = fz.Scene("pulled", (F(5),), mu=F(1, 4), applied=F(20), rope_angle=37, state="accelerating",
                     velocity=1)
    forces = by_key(fz.free_body(scene))
    assert forces["N", "A"].magnitude == 38  # 50 - 20 sin 37
    assert forces["f", "A"] == fz.Force("f", "friction", "A", 180, F(19, 2))  # mu N
    assert forces["T", "A"].angle == 37 and fz.components(forces["T", "A"]) == (16, 12)
    assert fz.net_force(list(forces.values()), "A") == (F(13, 2), 0)
    assert fz.motion(scene)["net_direction"] == "right" and fz.motion(scene)["acceleration"] == F(13, 10)


def test_stacked_blocks_ground_pushes_with_both_weights():
    scene = fz.Scene("stacked", (F(2), F(3)))
    forces = by_key(fz.free_body(scene))
    assert forces["N", "B"] == fz.Force("N", "normal", "B", 90, F(50))
    assert forces["N'", "B"] == fz.Force("N'", "normal", "B", 270, F(20))
    assert forces["N", "A"].magnitude == 20 and forces["G", "B"].magnitude == 30
    assert fz.motion(scene)["equilibrium"]


def test_floor_static_friction_equals_the_push_and_slides_only_past_mu_n():
    rest = fz.Scene("floor", (F(4),), mu=F(1, 2), applied=F(12), state="rest", velocity=1)
    assert by_key(fz.free_body(rest))["f", "A"].magnitude == 12
    assert fz.motion(rest)["slides"] is False
    smooth = fz.Scene("floor", (F(4),))
    assert {f.name for f in fz.free_body(smooth)} == {"G", "N"} and fz.motion(smooth)["slides"] is None
    with pytest.raises(fz.SceneError, match="mu N = 20"):
        fz.free_body(fz.Scene("floor", (F(4),), mu=F(1, 2), applied=F(30), state="rest", velocity=1))


def test_hanging_mass_tension_follows_the_acceleration():
    up = fz.Scene("hanging", (F(2),), state="accelerating", velocity=1, accel=F(5))
    down = fz.Scene("hanging", (F(2),), state="accelerating", velocity=-1, accel=F(2))
    assert by_key(fz.free_body(up))["T", "A"].magnitude == 30
    assert by_key(fz.free_body(down))["T", "A"].magnitude == 16
    assert fz.motion(up)["net_direction"] == "up" and fz.motion(down)["net_direction"] == "down"


def test_block_on_a_table_pulled_over_a_pulley_by_a_hanging_mass():
    # a = (mB - mu mA) g / (mA + mB) = (2 - 3/4) 10 / 5 = 5/2; T = mB (g - a) = 15
    scene = fz.Scene("table", (F(3), F(2)), mu=F(1, 4), state="accelerating", velocity=1)
    forces = by_key(fz.free_body(scene))
    assert forces["T", "A"] == fz.Force("T", "tension", "A", 0, F(15))
    assert forces["T", "B"] == fz.Force("T", "tension", "B", 90, F(15))
    assert forces["f", "A"].magnitude == F(15, 2) and forces["N", "A"].magnitude == 30
    assert fz.net_force(list(forces.values()), "B") == (0, -5)  # mB a, downward
    assert fz.motion(scene)["net"] == {"A": "right", "B": "down"} and fz.motion(scene)["slides"]
    held = fz.Scene("table", (F(4), F(1)), mu=F(1, 2), state="rest", velocity=1)  # 10 N < mu mA g = 20 N
    assert by_key(fz.free_body(held))["f", "A"].magnitude == 10 and fz.motion(held)["slides"] is False
    with pytest.raises(fz.SceneError, match="state=rest needs mB <= mu mA"):
        fz.free_body(fz.Scene("table", (F(1), F(2)), mu=F(1, 2), state="rest", velocity=1))


def test_atwood_machine_heavier_side_goes_down():
    scene = fz.Scene("atwood", (F(2), F(3)), state="accelerating", velocity=1)
    forces = by_key(fz.free_body(scene))
    assert forces["T", "A"].magnitude == 24 == forces["T", "B"].magnitude  # 2 mA mB g / (mA + mB)
    assert fz.motion(scene)["acceleration"] == 2 and fz.motion(scene)["net"] == {"A": "up", "B": "down"}
    assert fz.motion(fz.Scene("atwood", (F(2), F(2))))["equilibrium"]
    with pytest.raises(fz.SceneError, match="dir=down"):
        fz.free_body(fz.Scene("atwood", (F(3), F(2)), state="accelerating", velocity=1))


def test_a_mirrored_scene_is_the_reflection_of_the_original():
    for kind in fz.MIRRORABLE:
        rng = random.Random(kind)
        scene = fz.sample_scene(rng, kind)
        mirrored = fz.Scene(**{**scene.__dict__, "mirrored": not scene.mirrored})
        for f, g in zip(fz.free_body(scene), fz.free_body(mirrored)):
            (x, y), (x2, y2) = fz.components(f), fz.components(g)
            assert (x2, y2) == (-x, y) and (f.name, f.body) == (g.name, g.body)
        swap = {"left": "right", "right": "left"}
        assert fz.motion(mirrored)["net"] == {b: swap.get(w, w) for b, w in fz.motion(scene)["net"].items()}
        assert fz.render(scene, fz.free_body(scene)) != fz.render(mirrored, fz.free_body(mirrored))
    pushed = fz.Scene("floor", (F(2),), applied=F(5), state="accelerating", velocity=1, mirrored=True)
    assert fz.motion(pushed)["net_direction"] == "left" and fz.axis(pushed)[1] == "left"
    with pytest.raises(fz.SceneError, match="mirror"):
        fz.free_body(fz.Scene("hanging", (F(1),), mirrored=True))


def test_components_are_exact_and_refuse_other_angles():
    for angle, want in [(0, (1, 0)), (90, (0, 1)), (143, (F(-4, 5), F(3, 5))), (233, (F(-3, 5), F(-4, 5))),
                        (323, (F(4, 5), F(-3, 5)))]:
        assert fz.components(fz.Force("F", "applied", "A", angle, F(1))) == want
    with pytest.raises(fz.SceneError, match="45°"):
        fz.components(fz.Force("F", "applied", "A", 45, F(1)))


def test_scene_and_force_round_trip_through_dicts():
    rng = random.Random(3)
    for _ in range(30):
        scene = fz.sample_scene(rng)
        assert fz.Scene.from_dict(scene.as_dict()) == scene
        for force in fz.free_body(scene):
            assert fz.Force.from_dict(force.as_dict()) == force


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("error", fz.ERROR_TYPES)
def test_each_injected_error_is_recovered_from_the_drawing(error):
    rng = random.Random(error)
    symbols = set()
    for seed in range(200):
        scene = fz.sample_scene(rng, fz.TWO_BODIES[seed % 3] if error == "wrong body" else None)
        right = fz.free_body(scene)
        drawn, symbol = fz.inject(scene, right, error, random.Random(seed))
        assert fz.find_error(scene, drawn) == (error, symbol)
        assert drawn != right
        symbols.add(symbol)
    assert len(symbols) >= 3  # not always the same force


def test_wrong_body_is_refused_for_a_single_body():
    scene = fz.sample_scene(random.Random(1), "incline")
    with pytest.raises(fz.SceneError, match="two bodies"):
        fz.inject(scene, fz.free_body(scene), "wrong body", random.Random(0))


def test_find_error_is_none_for_a_correct_or_doubly_wrong_diagram():
    scene = fz.Scene("incline", (F(2),), angle=37, mu=F(3, 4), state="rest", velocity=-1)
    right = fz.free_body(scene)
    assert fz.find_error(scene, right) is None
    assert fz.find_error(scene, right[1:2]) is None  # two forces missing
    turned = [fz.Force(f.name, f.kind, f.body, f.angle + 180, f.magnitude) for f in right]
    assert fz.find_error(scene, turned) is None
    resized = [right[0], right[1], fz.Force("f", "friction", "A", 37, F(5))]
    assert fz.find_error(scene, resized) is None  # a wrong magnitude is not one of the four


# --------------------------------------------------------------------------- pictures


def test_render_is_an_rgb_png_without_text_and_reproducible():
    scene = fz.Scene("pulled", (F(5),), mu=F(1, 4), applied=F(20), rope_angle=37, state="accelerating",
                     velocity=1)
    forces = fz.free_body(scene)
    png = fz.render(scene, forces, style_seed=4)
    assert png.startswith(b"\x89PNG") and png == fz.render(scene, forces, style_seed=4)
    assert not png_text_chunks(png)
    with Image.open(io.BytesIO(png)) as image:
        assert image.mode == "RGB" and image.size == (fz.WIDTH, fz.HEIGHT)


def test_labels_passed_in_replace_the_symbols():
    scene = fz.Scene("stacked", (F(2), F(3)))
    forces = fz.free_body(scene)
    plain = fz.render(scene, forces)
    neutral = fz.render(scene, forces, labels={k: str(k + 1) for k in range(len(forces))})
    assert plain != neutral
    assert fz.render(scene, forces, show_magnitudes=False) != plain


def test_every_kind_and_error_renders():
    rng = random.Random(9)
    for kind in fz.KINDS:
        scene = fz.sample_scene(rng, kind)
        for error in fz.ERROR_TYPES[:3]:
            drawn, _ = fz.inject(scene, fz.free_body(scene), error, rng)
            assert fz.render(scene, drawn, style_seed=rng.randrange(10)).startswith(b"\x89PNG")


# --------------------------------------------------------------------------- scene files


def test_load_scenes_reads_a_good_file(tmp_path):
    path = tmp_path / "scenes.txt"
    path.write_text("# force scenes\n\nincline m=2 angle=37 mu=3/4 state=rest\nstacked m=2,3  # two blocks\n"
                    "pulled m=5 T=20 rope=37 mu=1/4 state=accelerating\nhanging m=2 a=5 state=accelerating dir=up\n"
                    "floor m=2 F=5 mu=1/2\nspring m=1.5\ntable m=3,2 mu=1/4 state=accelerating mirror=yes\n"
                    "atwood m=2,3 state=accelerating\nfloor m=2 F=5 mu=1/2 dir=left mirror=yes\n")
    scenes = fz.load_scenes(path)
    assert [s.kind for s in scenes] == ["incline", "stacked", "pulled", "hanging", "floor", "spring", "table",
                                        "atwood", "floor"]
    assert scenes[6].mirrored and fz.motion(scenes[6])["net"] == {"A": "left", "B": "down"}
    assert scenes[7].velocity == 1 and scenes[8].velocity == 1 and scenes[8].mirrored
    assert scenes[0] == fz.Scene("incline", (F(2),), angle=37, mu=F(3, 4), velocity=-1)
    assert scenes[1].masses == (2, 3) and scenes[4].velocity == 1 and scenes[5].masses == (F(3, 2),)
    assert by_key(fz.free_body(scenes[3]))["T", "A"].magnitude == 30


@pytest.mark.parametrize("line, message", [
    ("ramp m=2", r"unknown kind 'ramp'"),
    ("incline m=2 angle=37 colour=red", r"unknown key 'colour'"),
    ("incline m=2 angle=37 mu=lots", r"mu=lots: not a number"),
    ("incline m=2 angle=45 mu=1", r"angle=45: an incline needs angle=37 or angle=53"),
    ("incline m=2 angle=37 mu=1/2 state=rest", r"state=rest needs mu >= tan 37° = 3/4 \(got mu=1/2\)"),
    ("incline angle=37 mu=1", r"missing mass: add m="),
    ("floor m=2 rope=37", r"key 'rope' .* does not apply to a floor scene"),
    ("hanging m=2 state=accelerating a=2", r"dir: a moving hanging mass needs dir=up"),
    ("pulled m=1 T=50 rope=53", r"T=50: the rope lifts the block"),
    ("floor m=2 state=wobbly", r"state=wobbly: use state=rest"),
    ("table m=2 mu=1/2", r"m=2: a table scene needs 2 positive masses"),
    ("table m=1,2 mu=1/4", r"state=rest needs mB <= mu mA"),
    ("atwood m=2,2 state=accelerating", r"state=accelerating needs mA != mB"),
    ("spring m=1 mirror=yes", r"key 'mirror' .* does not apply to a spring scene"),
    ("floor m=1 mirror=maybe", r"mirror=maybe: use mirror=yes"),
])
def test_a_bad_scene_line_names_file_line_and_key(tmp_path, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(f"# header\nstacked m=1,2\n{line}\n")
    with pytest.raises(fz.SceneError, match=rf"bad\.txt:3: {message}"):
        fz.load_scenes(path)
