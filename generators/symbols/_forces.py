"""Force diagrams (free-body diagrams) for the physics domain: scenes, exact forces,
motion, injected errors, pictures.

* A :class:`Scene` is one of eight textbook set-ups (:data:`KINDS`) with its givens and
  stated motion, drawn as in the textbook or mirrored (pushes to the left, slopes rising
  to the left), so no direction is always the answer. Two set-ups use a pulley: a block
  on a table pulled by a hanging mass over a pulley at the table's edge (``table``), and
  two masses hanging either side of a fixed pulley (Atwood's machine, ``atwood``). Everything is exact: magnitudes are :class:`fractions.Fraction`,
  g = 10 N/kg, and the only slope or rope angles are 37° and 53° with the textbook
  sin 37° = 3/5, cos 37° = 4/5 (53°: swapped), so every component is a fraction.
* :func:`free_body` gives the correct forces on every body by rule; it refuses a scene
  whose stated motion the rules cannot produce (a block "at rest" on a slope steeper
  than its friction allows), so :func:`sample_scene` and :func:`load_scenes` validate
  by calling it. :func:`motion` reads the facts (equilibrium, direction, acceleration,
  whether static friction holds) off the net force.
* :func:`inject` makes exactly one error of a type in :data:`ERROR_TYPES`;
  :func:`find_error` recovers (type, symbol) from the scene and the drawn forces alone,
  comparing them with :func:`free_body` as multisets of (symbol, body, angle, magnitude).
* :func:`render` draws a scene and a list of forces with Pillow and matplotlib's DejaVu
  fonts; arrows start where the force acts and, with magnitudes shown, are as long as
  the force is large; labels are placed greedily where they cover the least.

Directions are integer degrees, counter-clockwise from +x (right). Slopes rise to the
right, so "down the slope" is 180° + angle; a mirrored scene has every angle a turned
into 180° - a.
"""

from __future__ import annotations

import io
import math
import random
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from pathlib import Path

from cogforge.core.errors import UserError, read_text

G = Fraction(10)
KINDS = ("floor", "incline", "hanging", "pulled", "stacked", "spring", "table", "atwood")
TWO_BODIES = ("stacked", "table", "atwood")
MIRRORABLE = ("floor", "pulled", "incline", "table")
STATES = ("rest", "constant velocity", "accelerating")
FORCE_NAMES = {"weight": "G", "normal": "N", "friction": "f", "tension": "T", "applied": "F", "spring": "Fs"}
ERROR_TYPES = ("wrong direction", "missing force", "extra force", "wrong body")
ANGLES = (37, 53)
# cos, sin of the angles a diagram may use, within a quarter turn
_TRIG = {0: (Fraction(1), Fraction(0)), 37: (Fraction(4, 5), Fraction(3, 5)), 53: (Fraction(3, 5), Fraction(4, 5))}


def _a(word: str) -> str:
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


class SceneError(UserError):
    """A scene the rules cannot draw, or a scene-file line that cannot be read; the message says where."""


@dataclass(frozen=True)
class Scene:
    """A set-up and its givens. Bodies are "A" and "B" (stacked: A on top of B; table: A
    on the table, B hanging; atwood: A on the left, B on the right).

    ``velocity`` is the sign of the motion, or of the tendency to move, of body A along
    the main axis (:func:`axis`): +1 right / up the slope / up, -1 left / down the slope /
    down, 0 at rest with no tendency; ``mirrored`` swaps right and left. For an
    accelerating hanging mass it is the sign of the acceleration, whose size is
    ``accel`` (m/s²; zero in every other scene: pulley scenes' accelerations follow
    from the masses).
    """
    kind: str
    masses: tuple[Fraction, ...]
    angle: int = 0
    mu: Fraction = Fraction(0)
    applied: Fraction = Fraction(0)
    rope_angle: int = 0
    state: str = "rest"
    velocity: int = 0
    accel: Fraction = Fraction(0)
    mirrored: bool = False

    def as_dict(self) -> dict:
        return {"kind": self.kind, "masses": [str(m) for m in self.masses], "angle": self.angle,
                "mu": str(self.mu), "applied": str(self.applied), "rope_angle": self.rope_angle,
                "state": self.state, "velocity": self.velocity, "accel": str(self.accel),
                "mirrored": self.mirrored}

    @classmethod
    def from_dict(cls, d: dict) -> "Scene":
        return cls(kind=d["kind"], masses=tuple(Fraction(m) for m in d["masses"]), angle=int(d.get("angle", 0)),
                   mu=Fraction(d.get("mu", 0)), applied=Fraction(d.get("applied", 0)),
                   rope_angle=int(d.get("rope_angle", 0)), state=d.get("state", "rest"),
                   velocity=int(d.get("velocity", 0)), accel=Fraction(d.get("accel", 0)),
                   mirrored=bool(d.get("mirrored", False)))

    def mass(self, body: str) -> Fraction:
        return self.masses["AB".index(body)]

    def setup(self) -> dict:
        """The set-up without its style or its motion: the kind and the givens every
        picture of it states (masses, angle, friction, applied force, rope angle).
        Mirroring is style (the same problem seen in a mirror), and the motion is left
        out because a picture may hide it: an incline at rest and one sliding at
        constant velocity with the same givens are one problem when the question asks
        whether the block slides."""
        full = self.as_dict()
        return {key: full[key] for key in ("kind", "masses", "angle", "mu", "applied", "rope_angle")}


@dataclass(frozen=True)
class Force:
    name: str  # the symbol drawn
    kind: str  # a key of FORCE_NAMES
    body: str
    angle: int  # degrees, counter-clockwise from +x
    magnitude: Fraction  # newtons

    def as_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "body": self.body, "angle": self.angle,
                "magnitude": str(self.magnitude)}

    @classmethod
    def from_dict(cls, d: dict) -> "Force":
        return cls(d["name"], d["kind"], d["body"], int(d["angle"]), Fraction(d["magnitude"]))

    def key(self) -> tuple:
        return self.name, self.body, self.angle % 360, self.magnitude


# --------------------------------------------------------------------------- exact vectors


def unit(angle: int) -> tuple[Fraction, Fraction]:
    """(cos, sin) of ``angle`` exactly; only multiples of 90° plus 0, 37 or 53."""
    a = angle % 360
    quarter, rest = divmod(a, 90)
    if rest not in _TRIG:
        raise SceneError(f"angle {angle}°: only multiples of 90° plus 0°, 37° or 53° have exact components")
    c, s = _TRIG[rest]
    for _ in range(quarter):
        c, s = -s, c
    return c, s


def components(force: Force) -> tuple[Fraction, Fraction]:
    c, s = unit(force.angle)
    return force.magnitude * c, force.magnitude * s


def net_force(forces: list[Force], body: str) -> tuple[Fraction, Fraction]:
    x = y = Fraction(0)
    for f in forces:
        if f.body == body:
            fx, fy = components(f)
            x, y = x + fx, y + fy
    return x, y


def _tan(angle: int) -> Fraction:
    c, s = unit(angle)
    return s / c


def turn(scene: Scene, angle: int) -> int:
    """An angle of the unmirrored scene as drawn in ``scene`` (mirrored: 180° - angle)."""
    return (180 - angle) % 360 if scene.mirrored else angle % 360


def axis(scene: Scene) -> tuple[tuple[Fraction, Fraction], str, str]:
    """Body A's main axis (positive unit vector) and the names of its two directions."""
    if scene.kind == "incline":
        return unit(turn(scene, scene.angle)), "up the slope", "down the slope"
    if scene.kind in ("hanging", "spring", "atwood"):
        return unit(90), "up", "down"
    if scene.mirrored:
        return unit(180), "left", "right"
    return unit(0), "right", "left"


def direction_name(scene: Scene, vector: tuple[Fraction, Fraction]) -> str | None:
    """How a person names the direction of ``vector`` in this scene: "none" for zero,
    up / down / left / right, up or down the slope, or None for any other direction."""
    x, y = vector
    if not x and not y:
        return "none"
    if not y:
        return "right" if x > 0 else "left"
    if not x:
        return "up" if y > 0 else "down"
    if scene.kind == "incline":
        c, s = unit(turn(scene, scene.angle))
        if x * s == y * c:  # along the slope
            return "up the slope" if x * c + y * s > 0 else "down the slope"
    return None


# --------------------------------------------------------------------------- rules


def _check(scene: Scene) -> None:
    """Raise SceneError when the givens are out of range or the stated motion is impossible.
    Messages use the scene-file keys (m, angle, mu, F, T, rope, a, state, dir)."""
    if scene.kind not in KINDS:
        raise SceneError(f"kind {scene.kind!r}: use one of {', '.join(KINDS)}")
    if scene.state not in STATES:
        raise SceneError(f"state {scene.state!r}: use rest, constant or accelerating")
    if scene.velocity not in (-1, 0, 1):
        raise SceneError(f"velocity {scene.velocity}: use -1, 0 or +1")
    bodies = 2 if scene.kind in TWO_BODIES else 1
    if len(scene.masses) != bodies or any(m <= 0 for m in scene.masses):
        raise SceneError(f"m={','.join(map(str, scene.masses))}: a {scene.kind} scene needs {bodies} positive "
                         f"mass{'es' if bodies == 2 else ''} in kg")
    if scene.mirrored and scene.kind not in MIRRORABLE:
        raise SceneError(f"mirror: {_a(scene.kind)} scene looks the same mirrored; mirror only "
                         f"{', '.join(MIRRORABLE)} scenes")
    if scene.mu < 0:
        raise SceneError(f"mu={scene.mu}: a friction coefficient cannot be negative")
    if (scene.kind == "incline") != (scene.angle != 0) or (scene.angle and scene.angle not in ANGLES):
        raise SceneError(f"angle={scene.angle}: an incline needs angle=37 or angle=53; other kinds have none")
    if (scene.kind != "pulled" and scene.rope_angle) or scene.rope_angle not in (0, *ANGLES):
        raise SceneError(f"rope={scene.rope_angle}: only a pulled scene has a rope angle, and it is 0, 37 or 53")
    if scene.applied < 0 or (scene.applied and scene.kind not in ("floor", "pulled")):
        raise SceneError(f"F={scene.applied}: only floor (F) and pulled (T) scenes have an applied force, >= 0")
    if scene.kind == "pulled" and not scene.applied:
        raise SceneError("T: a pulled scene needs the rope's tension, T=... newtons")
    if scene.accel and not (scene.kind == "hanging" and scene.state == "accelerating"):
        raise SceneError(f"a={scene.accel}: only an accelerating hanging mass has a stated acceleration")
    if scene.kind in ("stacked", "spring") and (scene.state != "rest" or scene.velocity):
        raise SceneError(f"state={scene.state}: {scene.kind} scenes are at rest (state=rest, no dir)")
    if scene.kind in ("stacked", "spring", "hanging", "atwood") and scene.mu:
        raise SceneError(f"mu={scene.mu}: {_a(scene.kind)} scene has no sliding contact; remove mu")
    m = scene.masses[0]
    if scene.kind in ("floor", "pulled"):
        _check_floor(scene, m)
    elif scene.kind in ("table", "atwood"):
        _check_pulley(scene)
    elif scene.kind == "incline":
        tan = _tan(scene.angle)
        if scene.velocity != -1:
            raise SceneError("dir: a block on an incline moves or tends to move down the slope (dir=down)")
        if scene.state == "rest" and scene.mu < tan:
            raise SceneError(f"state=rest needs mu >= tan {scene.angle}° = {tan} (got mu={scene.mu}): "
                             "raise mu or use state=accelerating")
        if scene.state == "constant velocity" and scene.mu != tan:
            raise SceneError(f"state=constant (sliding down) needs mu = tan {scene.angle}° = {tan} "
                             f"(got mu={scene.mu})")
        if scene.state == "accelerating" and scene.mu >= tan:
            raise SceneError(f"state=accelerating needs mu < tan {scene.angle}° = {tan} (got mu={scene.mu}): "
                             "static friction would hold the block; use state=rest")
    elif scene.kind == "hanging":
        if (scene.state == "rest") != (scene.velocity == 0):
            raise SceneError("dir: a hanging mass at rest has no dir; a moving one needs dir=up or dir=down")
        if scene.state == "accelerating" and not (0 < scene.accel and (scene.velocity > 0 or scene.accel < G)):
            raise SceneError(f"a={scene.accel}: an accelerating hanging mass needs a > 0 (and a < g going down, "
                             "or the rope goes slack)")


def _check_pulley(scene: Scene) -> None:
    a, b = scene.masses
    if scene.kind == "table":
        pull, limit, need = b, scene.mu * a, "mB <= mu mA"
        if scene.velocity != 1:
            raise SceneError("dir: the block on the table moves or tends to move towards the pulley (no dir)")
    else:
        pull, limit, need = abs(b - a), Fraction(0), "mA = mB"
        if scene.state == "accelerating" and scene.velocity != (1 if b > a else -1):
            raise SceneError("dir: with mA < mB block A accelerates up (dir=up), with mA > mB down (dir=down)")
        if scene.state == "constant velocity" and not scene.velocity:
            raise SceneError("dir: blocks moving at constant velocity need dir=up or dir=down (block A's)")
        if scene.state == "rest" and scene.velocity:
            raise SceneError("dir: blocks at rest have no dir")
    if scene.state == "rest" and pull > limit:
        raise SceneError(f"state=rest needs {need} (m={a},{b}, mu={scene.mu}): use state=accelerating")
    if scene.state == "constant velocity" and pull != limit:
        raise SceneError(f"state=constant needs {need.replace('<=', '=')} exactly (m={a},{b}, mu={scene.mu})")
    if scene.state == "accelerating" and pull <= limit:
        raise SceneError(f"state=accelerating needs {need.replace('<=', '>').replace('=', '!=')} "
                         f"(m={a},{b}, mu={scene.mu}): use state=rest")


def _check_floor(scene: Scene, m: Fraction) -> None:
    push, lift = (x * scene.applied for x in unit(scene.rope_angle))
    normal = m * G - lift
    if normal <= 0:
        raise SceneError(f"T={scene.applied}: the rope lifts the block off the floor (N = {normal} N); "
                         "use a smaller T or rope angle")
    limit = scene.mu * normal
    force = "T" if scene.kind == "pulled" else "F"
    if not push:
        if scene.state == "accelerating":
            raise SceneError("state=accelerating: nothing pushes the block along the floor; add F=...")
        if scene.state == "constant velocity" and (scene.mu or not scene.velocity):
            raise SceneError("state=constant with no push needs a smooth floor (mu=0) and dir=left or dir=right")
        if scene.state == "rest" and scene.velocity:
            raise SceneError("dir: a block at rest with no push has no tendency to move; remove dir")
        return
    if scene.velocity != 1:
        raise SceneError(f"dir: the block moves or tends to move the way {force} pulls it (dir=right)")
    if scene.state == "rest" and push > limit:
        raise SceneError(f"state=rest needs the push along the floor ({push} N) <= mu N = {limit} N: "
                         "lower the force, raise mu, or use state=accelerating")
    if scene.state == "constant velocity" and push != limit:
        raise SceneError(f"state=constant needs the push along the floor ({push} N) = mu N = {limit} N")
    if scene.state == "accelerating" and push <= limit:
        raise SceneError(f"state=accelerating needs the push along the floor ({push} N) > mu N = {limit} N; "
                         "use state=rest or a larger force")


def problem_unit(scene: Scene) -> str:
    """The split unit of every item about ``scene``: its set-up (:meth:`Scene.setup`), so a
    problem shown in two styles or states never lands in two splits."""
    import json

    return "scene:" + json.dumps(scene.setup(), sort_keys=True)


def free_body(scene: Scene) -> list[Force]:
    """The correct forces on every body (zero forces left out), body A's first."""
    _check(scene)
    return [Force(f.name, f.kind, f.body, turn(scene, f.angle), f.magnitude) for f in _unmirrored(scene)]


def _unmirrored(scene: Scene) -> list[Force]:
    m = scene.masses[0]
    weight = Force("G", "weight", "A", 270, m * G)
    if scene.kind in ("floor", "pulled"):
        push, lift = (x * scene.applied for x in unit(scene.rope_angle))
        normal = m * G - lift
        out = [weight, Force("N", "normal", "A", 90, normal)]
        friction = push if scene.state == "rest" else scene.mu * normal  # static, else kinetic
        if friction:
            out.append(Force("f", "friction", "A", 180, friction))
        if scene.kind == "floor" and scene.applied:
            out.append(Force("F", "applied", "A", 0, scene.applied))
        if scene.kind == "pulled":
            out.append(Force("T", "tension", "A", scene.rope_angle, scene.applied))
        return out
    if scene.kind == "incline":
        cos, sin = unit(scene.angle)
        normal = m * G * cos
        friction = m * G * sin if scene.state == "rest" else scene.mu * normal
        out = [weight, Force("N", "normal", "A", 90 + scene.angle, normal)]
        if friction:
            out.append(Force("f", "friction", "A", scene.angle, friction))
        return out
    if scene.kind == "hanging":
        return [weight, Force("T", "tension", "A", 90, m * (G + scene.velocity * scene.accel))]
    if scene.kind == "spring":
        return [weight, Force("Fs", "spring", "A", 90, m * G)]
    if scene.kind in ("table", "atwood"):
        a, b = scene.masses
        if scene.kind == "atwood":  # a = |mB - mA| g / (mA + mB), T = 2 mA mB g / (mA + mB)
            return [weight, Force("T", "tension", "A", 90, 2 * a * b * G / (a + b)),
                    Force("G", "weight", "B", 270, b * G), Force("T", "tension", "B", 90, 2 * a * b * G / (a + b))]
        if scene.state == "accelerating":  # a = (mB - mu mA) g / (mA + mB), T = mB (g - a)
            tension, friction = b * (G - (b - scene.mu * a) * G / (a + b)), scene.mu * a * G
        else:  # static friction holds B's weight (or kinetic friction equals it)
            tension = friction = b * G
        out = [weight, Force("N", "normal", "A", 90, a * G), Force("T", "tension", "A", 0, tension)]
        if friction:
            out.append(Force("f", "friction", "A", 180, friction))
        return out + [Force("G", "weight", "B", 270, b * G), Force("T", "tension", "B", 90, tension)]
    top, bottom = scene.masses  # stacked
    return [weight, Force("N", "normal", "A", 90, top * G),
            Force("G", "weight", "B", 270, bottom * G), Force("N", "normal", "B", 90, (top + bottom) * G),
            Force("N'", "normal", "B", 270, top * G)]


def motion(scene: Scene) -> dict:
    """Exact facts read off the net forces of :func:`free_body`.

    ``slides`` (incline, table, floor or pulled with a force along the floor, else None)
    says whether static friction could NOT hold the block: tan(angle) > mu on an
    incline, push > mu N on a floor, mB > mu mA on a table. A block sliding at constant
    velocity has slides False. ``net`` names the direction of each body's net force
    (:func:`direction_name`), which is also the direction of its acceleration.
    """
    forces = free_body(scene)
    (ax, ay), plus, minus = axis(scene)
    nets = {b: net_force(forces, b) for b in sorted({f.body for f in forces})}
    equilibrium = all(n == (0, 0) for n in nets.values())
    along = nets["A"][0] * ax + nets["A"][1] * ay
    slides = None
    if scene.kind == "incline":
        slides = _tan(scene.angle) > scene.mu
    elif scene.kind in ("floor", "pulled") and scene.applied:
        push, lift = (x * scene.applied for x in unit(scene.rope_angle))
        slides = push > scene.mu * (scene.masses[0] * G - lift)
    elif scene.kind == "table":
        slides = scene.masses[1] > scene.mu * scene.masses[0]
    return {"equilibrium": equilibrium,
            "net_direction": "none" if not along else plus if along > 0 else minus,
            "acceleration": abs(along) / scene.masses[0], "slides": slides,
            "net": {b: direction_name(scene, n) for b, n in nets.items()}}


# --------------------------------------------------------------------------- sampling


def _nice(forces: list[Force]) -> bool:
    """Every magnitude has at most one decimal place, so labels stay exact."""
    return all((f.magnitude * 10).denominator == 1 for f in forces)


def sample_scene(rng: random.Random, kind: str | None = None) -> Scene:
    """A consistent scene of ``kind`` (any kind when None) with round numbers."""
    kind = kind or rng.choice(KINDS)
    if kind not in KINDS:
        raise SceneError(f"kind {kind!r}: use one of {', '.join(KINDS)}")
    for _ in range(1000):
        try:
            scene = _draw(rng, kind)
            if kind in MIRRORABLE and rng.random() < 0.5:
                scene = replace(scene, mirrored=True)
            if _nice(free_body(scene)):
                return scene
        except SceneError:
            continue  # a draw the rules refuse (e.g. the rope lifts the block): draw again
    raise SceneError(f"no consistent {kind} scene in 1000 draws")


def _draw(rng: random.Random, kind: str) -> Scene:
    m = Fraction(rng.randint(1, 5))
    state = rng.choice(STATES)
    if kind == "stacked":
        return Scene(kind, (m, Fraction(rng.randint(1, 5))))
    if kind == "spring":
        return Scene(kind, (m,))
    if kind == "atwood":
        b = Fraction(rng.randint(1, 5))
        if b != m:
            return Scene(kind, (m, b), state="accelerating", velocity=1 if b > m else -1)
        moving = rng.choice([0, 1, -1])
        return Scene(kind, (m, b), state="constant velocity" if moving else "rest", velocity=moving)
    if kind == "table":
        b = Fraction(rng.randint(1, 5))
        mu = rng.choice([Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1)])
        if rng.random() < 0.4:  # at rest or at constant velocity: B no heavier than static friction allows
            options = [x for x in (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(3)) if x <= mu * m]
            if not options:
                raise SceneError("no hanging mass small enough")
            b = rng.choice(options)
        state = "accelerating" if b > mu * m else rng.choice(["rest", "constant velocity"]) if b == mu * m \
            else "rest"
        return Scene(kind, (m, b), mu=mu, state=state, velocity=1)
    if kind == "hanging":
        direction = 0 if state == "rest" else rng.choice([1, -1])
        accel = Fraction(rng.choice([2, 5])) if state == "accelerating" else Fraction(0)
        return Scene(kind, (m,), state=state, velocity=direction, accel=accel)
    if kind == "incline":
        angle = rng.choice(ANGLES)
        tan = _tan(angle)
        mu = {"rest": rng.choice([tan] + [x for x in (Fraction(1), Fraction(3, 2)) if x > tan]),
              "constant velocity": tan,
              "accelerating": rng.choice([Fraction(0), Fraction(1, 4), Fraction(1, 2)])}[state]
        return Scene(kind, (m,), angle=angle, mu=mu, state=state, velocity=-1)
    mu = rng.choice([Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)])
    if kind == "floor" and rng.random() < 0.3:  # nothing pushes: at rest, or gliding on a smooth floor
        if mu == 0 and rng.random() < 0.5:
            return Scene(kind, (m,), state="constant velocity", velocity=rng.choice([1, -1]))
        return Scene(kind, (m,), mu=mu)
    rope = rng.choice((0, *ANGLES)) if kind == "pulled" else 0
    cos, sin = unit(rope)
    exact = mu * m * G / (cos + mu * sin)  # the applied force whose push along the floor is mu N
    if state == "constant velocity":
        applied = exact
    elif state == "rest":
        applied = Fraction(rng.randint(max(1, math.ceil(exact / 3)), max(1, math.floor(exact))))
    else:
        applied = Fraction(math.floor(exact) + rng.choice([2, 5, 10, 15]))
    return Scene(kind, (m,), mu=mu, applied=applied, rope_angle=rope, state=state, velocity=1)


# --------------------------------------------------------------------------- errors


def _extras(scene: Scene) -> list[Force]:
    """Forces with no physical source, under symbols no correct diagram uses."""
    m = scene.masses[0]
    out = []
    if scene.velocity:  # the "force of motion" misconception, along the motion or its tendency
        along = {"incline": scene.angle, "hanging": 90, "atwood": 90}.get(scene.kind, 0)
        out.append(Force("Fm", "applied", "A", along + (0 if scene.velocity > 0 else 180), m * G / 2))
    if scene.kind == "incline":  # the weight's component drawn as a force of its own
        out.append(Force("Fd", "applied", "A", 180 + scene.angle, m * G * unit(scene.angle)[1]))
    hanging = {"hanging": "A", "spring": "A", "atwood": "AB", "table": "B"}.get(scene.kind, "")
    for body, mass in zip("AB", scene.masses):
        if body in hanging:  # a support from below that is not there
            out.append(Force("N2", "normal", body, 90, mass * G))
        else:  # a push from a wall that is not there
            out.append(Force("N2", "normal", body, 0, mass * G / 2))
    return [Force(f.name, f.kind, f.body, turn(scene, f.angle), f.magnitude) for f in out]


def inject(scene: Scene, forces: list[Force], kind: str, rng: random.Random) -> tuple[list[Force], str]:
    """``forces`` (the correct ones) with exactly one error of ``kind``, and its symbol."""
    out = list(forces)
    if kind == "wrong direction":
        k = rng.randrange(len(out))
        f = out[k]
        turns = [f.angle + 180]
        if scene.kind == "incline" and f.kind == "normal":
            turns.append(90)  # the normal drawn vertical, as if on flat ground
        out[k] = Force(f.name, f.kind, f.body, rng.choice(turns) % 360, f.magnitude)
    elif kind == "missing force":
        f = out.pop(rng.randrange(len(out)))
    elif kind == "extra force":
        f = rng.choice(_extras(scene))
        out.append(f)
    elif kind == "wrong body":
        if scene.kind not in TWO_BODIES:
            raise SceneError(f"wrong body needs two bodies; a {scene.kind} scene has one "
                             f"(use a {', '.join(TWO_BODIES)} scene)")
        k = rng.randrange(len(out))
        f = out[k]
        out[k] = Force(f.name, f.kind, "B" if f.body == "A" else "A", f.angle, f.magnitude)
    else:
        raise SceneError(f"unknown error type {kind!r}; known: {', '.join(ERROR_TYPES)}")
    if find_error(scene, out) != (kind, f.name):  # by construction it is; this guards the rules
        raise SceneError(f"injecting {kind!r} on {f.name} did not give a recoverable error")
    return out, f.name


def find_error(scene: Scene, drawn: list[Force]) -> tuple[str, str] | None:
    """(error type, symbol) when one of the four errors turns the correct forces into
    ``drawn``; None when they agree or differ in any other way."""
    from collections import Counter

    right = free_body(scene)
    missing = list((Counter(f.key() for f in right) - Counter(f.key() for f in drawn)).elements())
    extra = list((Counter(f.key() for f in drawn) - Counter(f.key() for f in right)).elements())
    if len(missing) == 1 and not extra:
        return "missing force", missing[0][0]
    if len(extra) == 1 and not missing:
        return ("extra force", extra[0][0]) if extra[0][0] not in {f.name for f in right} else None
    if len(missing) == 1 and len(extra) == 1:
        (name, body, angle, size), (name2, body2, angle2, size2) = missing[0], extra[0]
        if name != name2 or size != size2:
            return None
        if body == body2 and angle != angle2:
            return "wrong direction", name
        if body != body2 and angle == angle2 and scene.kind in TWO_BODIES:
            return "wrong body", name
    return None


# --------------------------------------------------------------------------- scene files

_STATE_WORDS = {"rest": "rest", "constant": "constant velocity", "constant-velocity": "constant velocity",
                "constant_velocity": "constant velocity", "accelerating": "accelerating"}
_DIRS = {"right": 1, "up": 1, "left": -1, "down": -1, "none": 0}
_KEYS = {"m": "masses in kg, two comma-separated for stacked, table and atwood (m=2,3)", "angle": "incline angle, 37 or 53",
         "mu": "friction coefficient (mu=1/4)", "F": "floor: push to the right, N",
         "T": "pulled: rope tension, N", "rope": "pulled: rope angle above horizontal, 0, 37 or 53",
         "a": "hanging: acceleration, m/s²", "state": "rest, constant or accelerating",
         "dir": "right, left, up, down or none (atwood: block A's)",
         "mirror": "yes to draw the scene mirrored (pushes to the left, slopes rising to the left)"}
_KIND_KEYS = {"floor": {"F", "mu", "dir", "mirror"}, "incline": {"angle", "mu", "dir", "mirror"},
              "hanging": {"a", "dir"}, "pulled": {"T", "rope", "mu", "dir", "mirror"}, "stacked": set(),
              "spring": set(), "table": {"mu", "mirror"}, "atwood": {"dir"}}


def load_scenes(path: Path | str) -> list[Scene]:
    """Scenes from a user file: ``kind key=value ...`` per line, ``#`` comments.

    Keys: m, angle, mu, F, T, rope, a, state, dir (see ``_KEYS``). ``dir`` defaults to
    the only possible one (right when pushed, down on a slope, none at rest). Every
    scene is checked with :func:`free_body`; a problem names ``file:line`` and the key.
    """
    path = Path(path)
    out = []
    try:
        lines = read_text(path, "scene file").splitlines()
    except UserError as err:
        raise SceneError(str(err)) from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        where = f"{path}:{number}"
        try:
            scene = _parse_line(text)
            free_body(scene)
        except SceneError as err:
            raise SceneError(f"{where}: {err}") from None
        out.append(scene)
    if not out:
        raise SceneError(f"{path}: no scenes; write one per line, e.g. 'incline m=2 angle=37 mu=3/4 state=rest'")
    return out


def _number(key: str, value: str, integer: bool = False) -> Fraction:
    if len(value) > 20:  # past any mass, angle or force a picture can show (and Python's digit limit)
        raise SceneError(f"{key}={value[:20]}...: too long for a number; write e.g. {key}=3/4")
    if not re.fullmatch(r"\d+(/\d+|\.\d+)?", value) or (integer and not value.isdigit()):
        raise SceneError(f"{key}={value}: not a {'whole number' if integer else 'number'} "
                         f"(write e.g. {key}={'37' if integer else '3/4'})")
    return Fraction(value)


def _parse_line(text: str) -> Scene:
    kind, *pairs = text.split()
    if kind not in KINDS:
        raise SceneError(f"unknown kind {kind!r}: start the line with one of {', '.join(KINDS)}")
    given = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not value:
            raise SceneError(f"{pair!r}: write key=value with no spaces around '='")
        if key not in _KEYS:
            raise SceneError(f"unknown key {key!r}: known keys are {', '.join(_KEYS)}")
        if key in given:
            raise SceneError(f"key {key!r} given twice; keep one")
        if key not in _KIND_KEYS[kind] | {"m", "state"}:
            raise SceneError(f"key {key!r} ({_KEYS[key]}) does not apply to {_a(kind)} scene; remove it")
        given[key] = value
    if "m" not in given:
        raise SceneError(f"missing mass: add m=... (kg{', two: m=2,3' if kind in TWO_BODIES else ''})")
    masses = tuple(_number("m", v) for v in given["m"].split(","))
    state = _STATE_WORDS.get(given.get("state", "rest"))
    if state is None:
        raise SceneError(f"state={given['state']}: use state=rest, state=constant or state=accelerating")
    fields = {"masses": masses, "state": state}
    if "mirror" in given:
        if given["mirror"] not in ("yes", "no"):
            raise SceneError(f"mirror={given['mirror']}: use mirror=yes or mirror=no")
        fields["mirrored"] = given["mirror"] == "yes"
    for key, name in (("angle", "angle"), ("rope", "rope_angle")):
        if key in given:
            fields[name] = int(_number(key, given[key], integer=True))
    for key, name in (("mu", "mu"), ("F", "applied"), ("T", "applied"), ("a", "accel")):
        if key in given:
            fields[name] = _number(key, given[key])
    if "dir" in given:
        if given["dir"] not in _DIRS:
            raise SceneError(f"dir={given['dir']}: use one of {', '.join(_DIRS)}")
        fields["velocity"] = _DIRS[given["dir"]] * (-1 if fields.get("mirrored") and given["dir"] in
                                                     ("left", "right") else 1)
    elif kind == "incline":
        fields["velocity"] = -1
    elif kind == "table":
        fields["velocity"] = 1
    elif kind in ("floor", "pulled") and fields.get("applied"):
        fields["velocity"] = 1
    elif kind == "floor" and state == "constant velocity":
        fields["velocity"] = 1
    elif kind == "hanging" and state != "rest":
        raise SceneError("dir: a moving hanging mass needs dir=up or dir=down")
    elif kind == "atwood" and state == "accelerating" and len(masses) == 2:
        fields["velocity"] = 1 if masses[1] > masses[0] else -1
    return Scene(kind, **fields)


# --------------------------------------------------------------------------- pictures

WIDTH, HEIGHT = 768, 576
HATCH = 12  # px: the hatched band under a surface, solid ground for arrows and labels
_INKS = [(200, 30, 30), (25, 70, 200), (0, 120, 70), (150, 40, 150)]
_FILLS = [(232, 232, 232), (222, 234, 250), (250, 238, 215)]


@cache
def _font(name: str, size: int):
    import matplotlib
    from PIL import ImageFont

    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / f"{name}.ttf"), size)


@dataclass
class _Body:
    """A block in image coordinates: u runs along the surface it sits on, v away from it."""
    centre: tuple[float, float]
    u: tuple[float, float]
    v: tuple[float, float]
    hw: float
    hh: float
    letter_at: tuple[float, float] = (-0.55, 0.35)  # in half-widths, half-heights

    def point(self, a: float, b: float) -> tuple[float, float]:
        return (self.centre[0] + self.u[0] * a + self.v[0] * b, self.centre[1] + self.u[1] * a + self.v[1] * b)

    def corners(self) -> list[tuple[float, float]]:
        return [self.point(a * self.hw, b * self.hh) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


@dataclass
class _Canvas:
    """What is drawn besides the arrows: kept as segments so labels can avoid them."""
    lines: list[tuple[tuple[float, float], tuple[float, float], int]] = field(default_factory=list)
    bodies: dict[str, _Body] = field(default_factory=dict)
    texts: list[tuple[tuple[float, float], str, int]] = field(default_factory=list)  # centre, text, size
    polygons: list[list[tuple[float, float]]] = field(default_factory=list)
    # solid ground: the hatched band under a floor or table (over a ceiling) and the wedge
    # of an incline; no arrow or label may enter it
    grounds: list[list[tuple[float, float]]] = field(default_factory=list)


def _img(angle: float) -> tuple[float, float]:
    """Image-space unit vector (y down) of a direction in degrees."""
    return math.cos(math.radians(angle)), -math.sin(math.radians(angle))


def _hatch(canvas: _Canvas, x0: float, x1: float, y: float, below: bool) -> None:
    canvas.lines.append(((x0, y), (x1, y), 3))
    step = 1 if below else -1
    canvas.grounds.append([(x0 - 10, y), (x1, y), (x1, y + HATCH * step), (x0 - 10, y + HATCH * step)])
    for x in range(int(x0) + 6, int(x1), 16):
        canvas.lines.append(((x, y), (x - 10, y + 10 * step), 1))


def _circle(canvas: _Canvas, centre: tuple[float, float], r: float) -> None:
    points = [(centre[0] + r * math.cos(k * math.pi / 18), centre[1] + r * math.sin(k * math.pi / 18))
              for k in range(37)]
    canvas.lines.extend((a, b, 2) for a, b in zip(points, points[1:]))


def _mirror(canvas: _Canvas) -> _Canvas:
    """The canvas reflected left to right (x -> WIDTH - x)."""
    def x(point):
        return WIDTH - point[0], point[1]

    def flip(v):
        return -v[0], v[1]
    return _Canvas(lines=[(x(a), x(b), w) for a, b, w in canvas.lines],
                   bodies={n: _Body(x(b.centre), flip(b.u), flip(b.v), b.hw, b.hh, b.letter_at)
                           for n, b in canvas.bodies.items()},
                   texts=[(x(c), t, size) for c, t, size in canvas.texts],
                   polygons=[[x(p) for p in polygon] for polygon in canvas.polygons],
                   grounds=[[x(p) for p in polygon] for polygon in canvas.grounds])


def _layout(scene: Scene) -> _Canvas:
    canvas = _Canvas()
    _layout_unmirrored(scene, canvas)
    return _mirror(canvas) if scene.mirrored else canvas


def _layout_unmirrored(scene: Scene, canvas: _Canvas) -> None:
    flat_u, flat_v = (1.0, 0.0), (0.0, -1.0)
    if scene.kind in ("floor", "pulled"):
        _hatch(canvas, 60, 708, 400, below=True)
        x = 330 if scene.kind == "pulled" else 360
        canvas.bodies["A"] = _Body((x, 345), flat_u, flat_v, 90, 55)
        if scene.kind == "pulled":
            start = canvas.bodies["A"].point(90, 0)
            d = _img(scene.rope_angle)
            canvas.lines.append((start, (start[0] + 230 * d[0], start[1] + 230 * d[1]), 2))
    elif scene.kind == "stacked":
        _hatch(canvas, 60, 708, 400, below=True)
        # A sits on B's left half so that B's own forces have the right half to themselves
        canvas.bodies["B"] = _Body((400, 340), flat_u, flat_v, 200, 60, letter_at=(0.8, 0.0))
        canvas.bodies["A"] = _Body((290, 225), flat_u, flat_v, 75, 55, letter_at=(-0.6, 0.4))
    elif scene.kind == "table":  # A on the table, the rope over a pulley at its right edge to B
        _hatch(canvas, 40, 520, 300, below=True)
        canvas.lines.append(((520, 300), (520, 560), 3))
        canvas.lines.append(((520, 300), (545, 270), 2))
        _circle(canvas, (545, 270), 25)
        canvas.bodies["A"] = _Body((290, 245), flat_u, flat_v, 75, 55)  # tall: its weight has room above the table
        canvas.bodies["B"] = _Body((570, 400), flat_u, flat_v, 38, 32, letter_at=(-0.45, 0.4))
        canvas.lines.append(((365, 245), (545, 245), 2))
        canvas.lines.append(((570, 270), (570, 368), 2))
    elif scene.kind == "atwood":  # a fixed pulley, A on the left rope, B on the right
        _hatch(canvas, 250, 518, 60, below=False)
        canvas.lines.append(((384, 60), (384, 150), 2))
        _circle(canvas, (384, 150), 80)
        canvas.bodies["A"] = _Body((304, 330), flat_u, flat_v, 45, 35, letter_at=(-0.5, 0.4))
        canvas.bodies["B"] = _Body((464, 380), flat_u, flat_v, 45, 35, letter_at=(-0.5, 0.4))
        canvas.lines.append(((304, 150), (304, 295), 2))
        canvas.lines.append(((464, 150), (464, 345), 2))
    elif scene.kind in ("hanging", "spring"):
        _hatch(canvas, 250, 518, 90, below=False)
        body = canvas.bodies["A"] = _Body((384, 320), flat_u, flat_v, 60, 45)
        top = body.point(0, 45)
        if scene.kind == "hanging":
            canvas.lines.append(((384, 90), top, 2))
        else:
            ys = [90 + 20 + k * (top[1] - 130) / 10 for k in range(11)]
            points = [(384, 90)] + [(384 + (0 if k in (0, 10) else 14 * (-1) ** k), y) for k, y in enumerate(ys)]
            points.append(top)
            canvas.lines.extend((a, b, 2) for a, b in zip(points, points[1:]))
    else:  # incline rising to the right
        cos, sin = (float(x) for x in unit(scene.angle))
        length, x0, y0 = 520, 120, 520
        right, top = (x0 + length * cos, y0), (x0 + length * cos, y0 - length * sin)
        canvas.polygons.append([(x0, y0), right, top])
        canvas.grounds.append([(x0, y0), right, top])
        _hatch(canvas, 70, max(right[0] + 60, 600), y0, below=True)
        canvas.lines.append(((x0, y0), top, 2))
        u, v = (cos, -sin), (-sin, -cos)
        foot = (x0 + 0.55 * length * cos, y0 - 0.55 * length * sin)
        canvas.bodies["A"] = _Body((foot[0] + 50 * v[0], foot[1] + 50 * v[1]), u, v, 60, 50)
        mid = math.radians(scene.angle / 2)
        canvas.texts.append(((x0 + 88 * math.cos(mid), y0 - 88 * math.sin(mid)), f"{scene.angle}°", 20))
    return canvas


def _anchor(scene: Scene, force: Force, canvas: _Canvas) -> tuple[float, float]:
    """Where a force acts: weight at the centre, normal on the contact face, friction
    along it, ropes and springs where they attach; invented forces at the centre."""
    body = canvas.bodies[force.body]
    d = _img(force.angle)
    along = d[0] * body.u[0] + d[1] * body.u[1]
    if force.kind == "weight" or force.name in ("Fm", "Fd"):
        return body.centre
    if force.kind == "friction":  # start on the side it points to, clear of the normal's foot
        return body.point(0.55 * body.hw * (1 if along >= 0 else -1), -body.hh + 6)
    hangs = scene.kind in ("hanging", "atwood") or (scene.kind == "table" and force.body == "B")
    if force.kind == "spring" or (force.kind == "tension" and hangs):
        return body.point(0, body.hh)
    if force.kind in ("tension", "applied"):
        return body.point(body.hw, 0)
    if force.name == "N'":  # the push of the block above, under its footprint
        other = canvas.bodies["B" if force.body == "A" else "A"]
        offset = (other.centre[0] - body.centre[0]) * body.u[0] - 0.35 * other.hw
        return body.point(max(-body.hw + 10, min(body.hw - 10, offset)), body.hh)
    if force.name == "N2" and force.angle % 180 == 0:
        return body.point(-body.hw, -0.45 * body.hh)  # below the body's letter
    return body.point(0.3 * body.hw, -body.hh)


def _fmt(x: Fraction) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    if (x * 100).denominator == 1:
        return f"{float(x):g}"
    return f"{x.numerator}/{x.denominator}"


def _caption(scene: Scene, show_motion: bool = True) -> str:
    if scene.kind in TWO_BODIES:
        parts = [f"mA = {_fmt(scene.masses[0])} kg", f"mB = {_fmt(scene.masses[1])} kg"]
    else:
        parts = [f"m = {_fmt(scene.masses[0])} kg"]
    if scene.kind == "floor" and scene.applied:
        parts.append(f"F = {_fmt(scene.applied)} N")
    if scene.kind == "pulled":
        parts.append(f"T = {_fmt(scene.applied)} N" + (f" (rope at {scene.rope_angle}°)" if scene.rope_angle else ""))
    if scene.kind in ("floor", "pulled", "incline", "table"):
        parts.append(f"μ = {scene.mu}" if scene.mu else "smooth surface")
    if scene.accel and show_motion:
        parts.append(f"a = {_fmt(scene.accel)} m/s² {'upward' if scene.velocity > 0 else 'downward'}")
    parts.append("g = 10 N/kg")
    if not show_motion:
        return ", ".join(parts)
    state = {"rest": "at rest", "constant velocity": "moving at constant velocity",
             "accelerating": "accelerating"}[scene.state]
    return f"{', '.join(parts)}; {state}"


def _segments_points(segments, step: float = 6.0):
    for (x0, y0), (x1, y1) in segments:
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) / step))
        for k in range(n + 1):
            yield x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n


def render(scene: Scene, forces: list[Force], labels: dict[int, str] | None = None, show_magnitudes: bool = True,
           style_seed: int = 0, show_values: bool = True, show_motion: bool = True) -> bytes:
    """PNG bytes (RGB, WIDTH x HEIGHT, no text chunks) of ``scene`` with ``forces`` drawn.

    Args:
        labels: text for force k instead of its symbol (neutral labels hide the symbol).
        show_magnitudes: arrow lengths in proportion and " = 20 N" after each label;
            otherwise every arrow has one length and no value.
        style_seed: picks line width, arrow head, ink and block colour.
        show_values: with ``show_magnitudes``, write " = 20 N" (False: lengths alone
            tell which force is larger).
        show_motion: the caption states the motion (at rest, accelerating, a = ...);
            False when the motion is what the question asks.
    """
    from PIL import Image, ImageDraw

    style = random.Random(style_seed)
    width, head, ink, fill = style.choice([2, 3]), style.choice([12, 14, 16]), style.choice(_INKS), \
        style.choice(_FILLS)
    canvas = _layout(scene)
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    for polygon in canvas.polygons:
        draw.polygon(polygon, fill=(242, 242, 242), outline=(0, 0, 0))
    for a, b, w in canvas.lines:
        draw.line([a, b], fill=(90, 90, 90) if w == 2 else (0, 0, 0), width=w)
    if scene.kind == "incline":
        x0, y0 = canvas.polygons[0][0]
        start, end = (180, 180 + scene.angle) if scene.mirrored else (-scene.angle, 0)
        draw.arc([x0 - 60, y0 - 60, x0 + 60, y0 + 60], start, end, fill=(0, 0, 0), width=2)
    for name, body in sorted(canvas.bodies.items(), reverse=True):  # B first, A drawn over it
        draw.polygon(body.corners(), fill=fill, outline=(0, 0, 0), width=2)
    for name, at in _letters(canvas).items():
        draw.text(at, name, font=_font("DejaVuSans-Bold", 24), fill=(0, 0, 0), anchor="mm")
    for centre, text, size in canvas.texts:
        draw.text(centre, text, font=_font("DejaVuSans", size), fill=(0, 0, 0), anchor="mm")
    caption, caption_box = _caption_box(scene, show_motion)
    draw.multiline_text((WIDTH / 2, 28), caption, font=_font("DejaVuSans", 17), fill=(0, 0, 0), anchor="mm",
                        align="center")

    arrows, boxes = _diagram(scene, forces, labels, show_magnitudes, show_values, canvas, caption_box)
    for start, end, _ in arrows:
        _arrow(draw, start, end, ink, width, head)
    for box, text in boxes:
        draw.rectangle(box, fill=(255, 255, 255))
        draw.text(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), text, font=_font("DejaVuSans", 19), fill=ink,
                  anchor="mm")
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=9, compress_type=3)  # run-length: fast on flat drawings
    return out.getvalue()


MIN_ARROW = 30.0  # px: the shortest arrow drawn (a small force must still show its head)
MAX_ARROW = 150.0  # px: the largest force's arrow where the drawing leaves it room
POINTS_INTO = MIN_ARROW + 2  # px: an arrow with less room (and more behind it) is drawn to end at its anchor


def _letters(canvas: _Canvas) -> dict[str, tuple[float, float]]:
    return {name: body.point(body.letter_at[0] * body.hw, body.letter_at[1] * body.hh)
            for name, body in canvas.bodies.items()}


def _blocked(canvas: _Canvas, body: str):
    """What an arrow or label of a force on ``body`` must stay out of: the other bodies
    and the solid ground, as one shapely shape shrunk by a pixel (touching is allowed:
    a normal force starts on the surface it comes from)."""
    from shapely.geometry import Polygon
    from shapely.ops import unary_union

    shapes = [Polygon(b.corners()) for name, b in canvas.bodies.items() if name != body]
    shapes += [Polygon(g) for g in canvas.grounds]
    return unary_union(shapes).buffer(-1.5) if shapes else Polygon()


def _room(blocked, start, d) -> float:
    """How far an arrow can run from ``start`` along ``d`` before it enters ``blocked``."""
    from shapely.geometry import LineString, Point

    ray = LineString([start, (start[0] + d[0] * 2 * WIDTH, start[1] + d[1] * 2 * WIDTH)])
    hit = ray.intersection(blocked)
    return 2.0 * WIDTH if hit.is_empty else Point(start).distance(hit)


def _diagram(scene: Scene, forces: list[Force], labels: dict[int, str] | None, show_magnitudes: bool,
             show_values: bool, canvas: _Canvas, caption_box) -> tuple[list, list]:
    """Where every arrow and label goes: ``([(start, end, force)], [(box, text)])``.

    Arrows stay on their body: one scale for the whole diagram (longer arrow, larger
    force) chosen so that no arrow runs into another body or the ground; an arrow that
    points straight into a solid (a normal force turned round) is drawn inside its body,
    ending at its anchor. Labels go where they cover least, never on another body or
    the ground (:func:`_place`)."""
    blocked = {name: _blocked(canvas, name) for name in canvas.bodies}
    largest = max((f.magnitude for f in forces), default=Fraction(1)) or Fraction(1)
    plans = []  # force, direction, anchor, backwards
    scale = MAX_ARROW / float(largest)
    for f in forces:
        d, at = _img(f.angle), _anchor(scene, f, canvas)
        room, behind = _room(blocked[f.body], at, d), _room(blocked[f.body], at, (-d[0], -d[1]))
        backwards = room < POINTS_INTO and behind > room  # it points into a solid: drawn inside its body
        room = behind if backwards else room
        plans.append((f, d, at, backwards))
        if show_magnitudes and f.magnitude:
            scale = min(scale, (room - 2) / float(f.magnitude))
    arrows = []
    for f, d, at, backwards in plans:
        length = max(MIN_ARROW, scale * float(f.magnitude)) if show_magnitudes else 90.0
        choice = None
        for shift in (0, 26, -26, 52, -52):  # slide off an arrow already drawn on the same line
            start = (at[0] - d[1] * shift, at[1] + d[0] * shift)
            if backwards:
                start = (start[0] - d[0] * length, start[1] - d[1] * length)
            if any(_collinear(start, d, length, s, e) for s, e, _ in arrows):
                continue
            fits = _room(blocked[f.body], start, d) >= length - 1
            if choice is None or fits:
                choice = start
            if fits:
                break
        start = choice if choice is not None else at
        arrows.append((start, (start[0] + d[0] * length, start[1] + d[1] * length), f))

    label_font = _font("DejaVuSans", 19)
    obstacles = [(s, e) for s, e, _ in arrows] + [(a, b) for a, b, _ in canvas.lines]
    for body in canvas.bodies.values():
        c = body.corners()
        obstacles += list(zip(c, c[1:] + c[:1]))
    points = list(_segments_points(obstacles))
    taken = [caption_box] + [_box(c, t, _font("DejaVuSans", s)) for c, t, s in canvas.texts]
    taken += [_box(letter, name, _font("DejaVuSans-Bold", 24)) for name, letter in _letters(canvas).items()]
    boxes = []
    for k, (start, end, f) in enumerate(arrows):
        text = (labels or {}).get(k, f.name)
        if show_magnitudes and show_values:
            text += f" = {_fmt(f.magnitude)} N"
        box = _place(text, start, end, label_font, taken, points, blocked[f.body])
        taken.append(box)
        boxes.append((box, text))
    return arrows, boxes


def _caption_box(scene: Scene, show_motion: bool) -> tuple[str, tuple[float, float, float, float]]:
    """The caption's text (givens, then the state on a second line when one is too long) and its box."""
    from PIL import Image, ImageDraw

    caption, caption_font = _caption(scene, show_motion), _font("DejaVuSans", 17)
    if caption_font.getlength(caption) > WIDTH - 40:  # givens on one line, the state on the next
        caption = caption.replace("; ", "\n")
    box = ImageDraw.Draw(Image.new("RGB", (1, 1))).multiline_textbbox(
        (WIDTH / 2, 28), caption, font=caption_font, anchor="mm", align="center")
    return caption, box


def drawing_problems(scene: Scene, forces: list[Force], labels: dict[int, str] | None = None,
                     show_magnitudes: bool = True, show_values: bool = True, show_motion: bool = True) -> list[str]:
    """What a reader could misread in the picture :func:`render` draws: an arrow or a
    label that lies on another body or on the ground (it would seem to act there). QC
    runs it on every force picture."""
    from shapely.geometry import LineString, box as rectangle

    canvas = _layout(scene)
    _, caption_box = _caption_box(scene, show_motion)
    arrows, boxes = _diagram(scene, forces, labels, show_magnitudes, show_values, canvas, caption_box)
    out = []
    for (start, end, f), (box, text) in zip(arrows, boxes):
        blocked = _blocked(canvas, f.body)
        if LineString([start, end]).intersects(blocked):
            out.append(f"the arrow of {f.name} on {f.body} runs into another body or the ground")
        if rectangle(*box).intersects(blocked):
            out.append(f"the label {text!r} of a force on {f.body} lies on another body or the ground")
    return out


def _collinear(start, d, length, s2, e2) -> bool:
    """Whether an arrow from ``start`` along ``d`` would run over the segment s2-e2."""
    d2 = (e2[0] - s2[0], e2[1] - s2[1])
    l2 = math.hypot(*d2)
    if abs(d[0] * d2[1] - d[1] * d2[0]) / l2 > 0.05:
        return False
    off = ((start[0] - s2[0]) * d2[1] - (start[1] - s2[1]) * d2[0]) / l2
    if abs(off) > 12:
        return False
    a = ((start[0] - s2[0]) * d2[0] + (start[1] - s2[1]) * d2[1]) / l2
    b = a + length * (d[0] * d2[0] + d[1] * d2[1]) / l2
    return max(a, b) > -12 and min(a, b) < l2 + 12  # touching end to end reads as one arrow too


def _arrow(draw, start, end, ink, width, head) -> None:
    dx, dy = end[0] - start[0], end[1] - start[1]
    n = math.hypot(dx, dy)
    ux, uy = dx / n, dy / n
    base = (end[0] - ux * head, end[1] - uy * head)
    draw.line([start, base], fill=ink, width=width + 1)
    draw.polygon([end, (base[0] - uy * head * 0.45, base[1] + ux * head * 0.45),
                  (base[0] + uy * head * 0.45, base[1] - ux * head * 0.45)], fill=ink)
    draw.ellipse([start[0] - 3, start[1] - 3, start[0] + 3, start[1] + 3], fill=ink)


def _box(centre, text, font, pad: int = 3) -> tuple[float, float, float, float]:
    left, top, right, bottom = font.getbbox(text, anchor="mm")
    return (centre[0] + left - pad, centre[1] + top - pad, centre[0] + right + pad, centre[1] + bottom + pad)


def _place(text, start, end, font, taken, points, blocked=None) -> tuple[float, float, float, float]:
    """The candidate box near the arrow's tip that covers the fewest labels, lines and arrows,
    and never ``blocked`` (another body or the ground) where any candidate avoids it."""
    import numpy as np
    import shapely
    from shapely.geometry import LineString, box as rectangle

    dx, dy = end[0] - start[0], end[1] - start[1]
    n = math.hypot(dx, dy)
    ux, uy, px, py = dx / n, dy / n, -dy / n, dx / n
    left, top, right, bottom = font.getbbox(text, anchor="mm")
    half_w, half_h = (right - left) / 2 + 3, (bottom - top) / 2 + 3
    reach = abs(ux) * half_w + abs(uy) * half_h  # from the box centre to its edge along the arrow
    side = abs(px) * half_w + abs(py) * half_h
    candidates = []
    for back in (0, 0.25, 0.5, 0.75, 1.0):  # beyond the tip, then beside the shaft nearer the start
        at = (end[0] - dx * back, end[1] - dy * back)
        for s in ((0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1)) if back == 0 else ((1, 0), (-1, 0)):
            along, across = s[1] * (reach + 6), s[0] * (side + 8)
            candidates.append((at[0] + ux * along + px * across, at[1] + uy * along + py * across))
    for r in (45, 75, 110):  # further out around the arrow's middle, for a short arrow near a surface
        for k in range(12):
            a = k * math.pi / 6
            candidates.append(((start[0] + end[0]) / 2 + r * math.cos(a), (start[1] + end[1]) / 2 + r * math.sin(a)))
    xs, ys = np.array([p[0] for p in points], dtype=float), np.array([p[1] for p in points], dtype=float)
    if blocked is not None:
        shapely.prepare(blocked)  # many candidates are tested against the same shape
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    best, best_score = None, None
    for c in candidates:
        box = (c[0] + left - 3, c[1] + top - 3, c[0] + right + 3, c[1] + bottom + 3)  # _box(c, text, font)
        if box[0] < 2 or box[1] < 2 or box[2] > WIDTH - 2 or box[3] > HEIGHT - 2:
            continue
        score = sum(_overlap(box, t) for t in taken) * 10 + math.dist(c, end)  # near its own tip
        if blocked is not None and rectangle(*box).intersects(blocked):
            score += 10 ** 7
        elif blocked is not None and LineString([c, middle]).intersects(blocked):
            score += 10 ** 5  # across a surface from its arrow: it reads as another body's
        inside = (box[0] + 3 < xs) & (xs < box[2] - 3) & (box[1] + 3 < ys) & (ys < box[3] - 3)
        score += int(np.count_nonzero(inside)) * 20
        if best_score is None or score < best_score:
            best, best_score = box, score
    return best if best is not None else _box(end, text, font)


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0
