"""Intentionality: seeing what others want from how they move (goal attribution and the
principle of rational, efficient action; Gergely & Csibra 2003; Baker, Saxe & Tenenbaum
2009).

CoreCognition's own items are photos of people acting ("clean the fish tank"); those
need natural images. These families test the same inference with abstract agents.

* ``goal-inference`` (inverse planning, Baker et al. 2009): a top-down map with grey
  walls, three goal objects and an agent (an orange disc with eyes). A dotted trail with
  the agent at its head shows the path walked so far: the first 40 to 70% of the
  shortest path (8-connected grid, then pulled taut) to the goal the agent was planned
  to reach. "Which object is the agent going to?", options by colour and shape. The
  answer is the object standing on the planned goal cell. The check never reads the
  planned goal: it is a Boltzmann inverse-planning posterior, P(g | trail) ~
  exp(-beta * (walked + dist_g(end) - dist_g(start))) with grid shortest-path distances
  around the same walls (beta = 1 per cell), and items are kept only where the posterior
  of the answer is at least 0.9. The twin swaps the positions of the true goal object and
  another goal object and keeps the trail pixel-identical, so the trail now points at
  the other object. Control answers cycle over the three options with the pair index
  and twin answers are the next option, so a fixed guess scores chance.
* ``efficient-jump`` (Gergely et al. 1995, the "rational jump"): side view, frames
  start / mid-jump / arrival. An agent hops over a wall on its way to a goal; "Is the
  agent taking a sensible, efficient path to get there?" Yes with the wall, No when the
  wall is absent and the same hop is made over open ground; the twin adds or removes
  the wall, nothing else (even pairs start with the wall, odd pairs without). The check
  compares the length of the drawn trajectory with the shortest path a disc of the
  agent's size could take past the obstacles present (straight along the ground, or
  taut over the wall's corners): efficient iff the ratio is below 1.35 (a hop is never
  as short as a taut string), and sampling keeps both states at least 0.08 from it.
"""

from __future__ import annotations

import heapq
import math
import random

from cogforge.generators.corecognition import SIZE, Family, canvas

CONCEPT = "intentionality"
_COLOURS = {"red": (215, 45, 45), "blue": (40, 95, 215), "green": (30, 150, 70), "purple": (140, 60, 180)}
_SHAPES = ["star", "diamond", "triangle", "square"]
_AGENT = (245, 140, 30)
_INK = (40, 40, 60)


def _arrowhead(draw, tip, angle, colour, size=16):
    left = (tip[0] - math.cos(angle - 0.5) * size, tip[1] - math.sin(angle - 0.5) * size)
    right = (tip[0] - math.cos(angle + 0.5) * size, tip[1] - math.sin(angle + 0.5) * size)
    draw.polygon([tip, left, right], fill=colour)


def _agent(draw, centre, r, heading):
    """An orange disc with two eyes looking along ``heading`` (radians)."""
    x, y = centre
    draw.ellipse([x - r, y - r, x + r, y + r], fill=_AGENT, outline=(120, 60, 10), width=2)
    for side in (-1, 1):
        ex = x + math.cos(heading) * r * 0.45 + math.cos(heading + side * math.pi / 2) * r * 0.38
        ey = y + math.sin(heading) * r * 0.45 + math.sin(heading + side * math.pi / 2) * r * 0.38
        e = r * 0.24
        draw.ellipse([ex - e, ey - e, ex + e, ey + e], fill=(255, 255, 255))
        p = e * 0.55
        px, py = ex + math.cos(heading) * e * 0.4, ey + math.sin(heading) * e * 0.4
        draw.ellipse([px - p, py - p, px + p, py + p], fill=(20, 20, 20))


def _dots(draw, points, colour, step=15, r=3.5):
    """Dots every ``step`` px along a polyline."""
    carry = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        seg = math.hypot(x1 - x0, y1 - y0)
        t = carry
        while t < seg:
            x, y = x0 + (x1 - x0) * t / seg, y0 + (y1 - y0) * t / seg
            draw.ellipse([x - r, y - r, x + r, y + r], fill=colour)
            t += step
        carry = t - seg


def _length(points) -> float:
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(points, points[1:]))


def _cut(points, length: float):
    """The polyline's first ``length`` px."""
    out, left = [points[0]], length
    for a, b in zip(points, points[1:]):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        if seg >= left:
            out.append((a[0] + (b[0] - a[0]) * left / seg, a[1] + (b[1] - a[1]) * left / seg))
            return out
        out.append(b)
        left -= seg
    return out


# --------------------------------------------------------------------------- goal inference

_CELL = 40
_COLS, _ROWS = SIZE[0] // _CELL, SIZE[1] // _CELL
_BETA = 1.0  # rationality per cell of extra path
_KEEP = 0.9  # minimum posterior of the answer


def _blocked(walls) -> set[tuple[int, int]]:
    return {(c, r) for c0, r0, c1, r1 in walls for c in range(c0, c1 + 1) for r in range(r0, r1 + 1)}


def _neighbours(cell, blocked):
    c, r = cell
    for dc in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (dc or dr) and 0 <= c + dc < _COLS and 0 <= r + dr < _ROWS and (c + dc, r + dr) not in blocked:
                if dc and dr and ((c + dc, r) in blocked or (c, r + dr) in blocked):
                    continue  # no cutting a wall's corner
                yield (c + dc, r + dr), math.sqrt(2) if dc and dr else 1.0


def _distances(source, blocked) -> dict:
    """Dijkstra from ``source`` over the free cells (8-connected)."""
    dist = {tuple(source): 0.0}
    queue = [(0.0, tuple(source))]
    while queue:
        d, cell = heapq.heappop(queue)
        if d > dist[cell]:
            continue
        for nxt, step in _neighbours(cell, blocked):
            if d + step < dist.get(nxt, math.inf) - 1e-9:
                dist[nxt] = d + step
                heapq.heappush(queue, (d + step, nxt))
    return dist


def _centre(cell) -> tuple[float, float]:
    return (cell[0] + 0.5) * _CELL, (cell[1] + 0.5) * _CELL


class GoalInference(Family):
    concept = CONCEPT
    name = "goal-inference"
    type = "MC"
    causal_param = "goal_positions"
    min_margin = _KEEP  # the inverse-planning posterior of the answer
    paradigm = "Goal inference by inverse planning (Baker, Saxe & Tenenbaum 2009; Heider-Simmel style agents)"
    level_cuts = (-0.625, -0.545)
    hardness_doc = "the share of the path shown before the cut, 0.4 to 0.7: less is harder"

    def hardness(self, control: dict, twin: dict) -> float:
        return -control["cut"]

    def sample(self, rng: random.Random, k: int) -> dict:
        while True:
            params = self._try(rng, k)
            if params is not None:
                return params

    def _try(self, rng: random.Random, k: int) -> dict | None:
        walls = []
        for _ in range(rng.randint(3, 5)):
            n = rng.randint(2, 5)
            if rng.random() < 0.5:
                c, r = rng.randrange(1, _COLS - n), rng.randrange(1, _ROWS - 1)
                walls.append([c, r, c + n - 1, r])
            else:
                c, r = rng.randrange(1, _COLS - 1), rng.randrange(1, _ROWS - n)
                walls.append([c, r, c, r + n - 1])
        blocked = _blocked(walls)
        free = [(c, r) for c in range(_COLS) for r in range(_ROWS) if (c, r) not in blocked]
        start = rng.choice(free)
        reach = _distances(start, blocked)
        far = [cell for cell in free if 8 <= reach.get(cell, 0) <= 16]
        if len(far) < 3:
            return None
        cells = rng.sample(far, 3)
        if min(max(abs(a[0] - b[0]), abs(a[1] - b[1])) for i, a in enumerate(cells) for b in cells[i + 1:]) < 4:
            return None
        names = [f"{c} {s}" for c, s in zip(rng.sample(sorted(_COLOURS), 3), rng.sample(_SHAPES, 3))]
        target = cells[0]
        # the object on the planned goal cell is option k % 3, the one the twin swaps in is the next option
        positions = [None] * 3
        positions[k % 3], positions[(k + 1) % 3], positions[(k + 2) % 3] = target, cells[1], cells[2]
        params = {"seed": rng.randrange(10 ** 6), "walls": walls, "start": list(start), "target": list(target),
                  "other": list(cells[1]), "goals": names, "goal_positions": [list(p) for p in positions],
                  "cut": round(rng.uniform(0.4, 0.7), 2)}
        path = self._path(params)
        if any(math.dist(_centre(cell), p) < 70 for cell in cells[1:] for p in path):
            return None  # the full path must not brush past another goal
        if self._posterior(params)[k % 3] < _KEEP:
            return None
        return params

    def twin(self, params: dict) -> dict:
        target, other = params["target"], params["other"]
        swapped = [other if p == target else target if p == other else p for p in params["goal_positions"]]
        return {**params, "goal_positions": swapped}

    def question(self, params: dict) -> str:
        return ("Seen from above: the dotted trail shows where the orange agent has walked so far (it cannot pass "
                "through the grey walls). Which object is the agent going to?")

    def options(self, params: dict) -> list[str]:
        return [f"The {name}" for name in params["goals"]]

    def answer(self, params: dict) -> str:
        return self.options(params)[params["goal_positions"].index(params["target"])]

    def _path(self, params: dict) -> list[tuple[float, float]]:
        """The planned path to the target: a shortest grid path, pulled taut where the
        straight line keeps clear of the walls."""
        from shapely.geometry import LineString, box
        from shapely.ops import unary_union

        blocked = _blocked(params["walls"])
        dist = _distances(params["target"], blocked)
        cell, cells = tuple(params["start"]), [tuple(params["start"])]
        while dist[cell] > 0:  # descend the distance field (ties broken by neighbour order)
            cell = min(_neighbours(cell, blocked), key=lambda n: dist.get(n[0], math.inf) + n[1])[0]
            cells.append(cell)
        walls = unary_union([box(c0 * _CELL, r0 * _CELL, (c1 + 1) * _CELL, (r1 + 1) * _CELL)
                             for c0, r0, c1, r1 in params["walls"]]).buffer(14)
        points, i = [_centre(cells[0])], 0
        while i < len(cells) - 1:
            j = len(cells) - 1
            while j > i + 1 and LineString([_centre(cells[i]), _centre(cells[j])]).intersects(walls):
                j -= 1
            points.append(_centre(cells[j]))
            i = j
        return points

    def _trail(self, params: dict) -> list[tuple[float, float]]:
        path = self._path(params)
        return _cut(path, params["cut"] * _length(path))

    def _posterior(self, params: dict) -> list[float]:
        """P(goal | trail) for each option, by Boltzmann inverse planning on grid distances."""
        blocked = _blocked(params["walls"])
        trail = self._trail(params)
        walked = _length(trail) / _CELL
        # the trail keeps 14 px from every wall, so its head lies in a free cell
        end = (min(_COLS - 1, int(trail[-1][0] // _CELL)), min(_ROWS - 1, int(trail[-1][1] // _CELL)))
        scores = []
        for cell in params["goal_positions"]:
            dist = _distances(cell, blocked)
            excess = walked + dist.get(end, math.inf) - dist[tuple(params["start"])]
            scores.append(math.exp(-_BETA * excess))
        total = sum(scores)
        return [s / total for s in scores]

    def check(self, params: dict) -> str:
        post = self._posterior(params)
        best = max(range(len(post)), key=post.__getitem__)
        return self.options(params)[best] if post[best] >= _KEEP else "ambiguous"

    def _goal(self, draw, name: str, centre):
        colour, shape = name.split()
        x, y, s = centre[0], centre[1], 15
        fill = _COLOURS[colour]
        if shape == "star":
            pts = [(x + (s + 2 if i % 2 == 0 else s * 0.45) * math.sin(math.pi * i / 5),
                    y + 2 - (s + 2 if i % 2 == 0 else s * 0.45) * math.cos(math.pi * i / 5)) for i in range(10)]
        elif shape == "diamond":
            pts = [(x, y - s - 2), (x + s, y), (x, y + s + 2), (x - s, y)]
        elif shape == "triangle":
            pts = [(x, y - s), (x + s, y + s * 0.8), (x - s, y + s * 0.8)]
        else:
            pts = [(x - s * 0.85, y - s * 0.85), (x + s * 0.85, y - s * 0.85), (x + s * 0.85, y + s * 0.85),
                   (x - s * 0.85, y + s * 0.85)]
        draw.polygon(pts, fill=fill, outline=(20, 20, 20), width=2)

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        floor = rng.choice([(244, 242, 232), (236, 242, 236), (238, 240, 248)])
        trail_colour = rng.choice([(60, 60, 70), (90, 50, 20)])
        image, draw = canvas(floor)
        for c in range(1, _COLS):
            draw.line([(c * _CELL, 0), (c * _CELL, SIZE[1])], fill=tuple(v - 10 for v in floor))
        for r in range(1, _ROWS):
            draw.line([(0, r * _CELL), (SIZE[0], r * _CELL)], fill=tuple(v - 10 for v in floor))
        for c0, r0, c1, r1 in params["walls"]:
            draw.rectangle([c0 * _CELL, r0 * _CELL, (c1 + 1) * _CELL - 1, (r1 + 1) * _CELL - 1], fill=(120, 120, 125),
                           outline=(80, 80, 85), width=2)
        for name, cell in zip(params["goals"], params["goal_positions"]):
            self._goal(draw, name, _centre(cell))
        trail = self._trail(params)
        sx, sy = trail[0]
        draw.ellipse([sx - 9, sy - 9, sx + 9, sy + 9], outline=trail_colour, width=3)
        _dots(draw, trail, trail_colour)  # the agent is drawn over the trail's head
        (ax, ay), (bx, by) = trail[-2], trail[-1]
        heading = math.atan2(by - ay, bx - ax)
        _agent(draw, trail[-1], 14, heading)
        tip = (bx + math.cos(heading) * 34, by + math.sin(heading) * 34)
        draw.line([(bx + math.cos(heading) * 16, by + math.sin(heading) * 16), tip], fill=_INK, width=4)
        _arrowhead(draw, (tip[0] + math.cos(heading) * 6, tip[1] + math.sin(heading) * 6), heading, _INK)
        return [image]

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        (x0, y0), (x1, y1) = _centre(params["target"]), _centre(params["other"])
        return (math.floor(min(x0, x1) - 20), math.floor(min(y0, y1) - 20),
                math.ceil(max(x0, x1) + 20), math.ceil(max(y0, y1) + 20))

    def margin(self, params: dict) -> float:
        post = self._posterior(params)
        return post[params["goal_positions"].index(params["target"])]

    def feature_px(self, params: dict) -> float:
        return 30.0  # a goal object, and the trail's heading arrow


# --------------------------------------------------------------------------- efficient jump

_GROUND = 390
_R = 22  # the agent's radius
_THRESHOLD, _GAP = 1.35, 0.08  # efficiency ratio and the margin kept on both sides


class EfficientJump(Family):
    concept = CONCEPT
    name = "efficient-jump"
    type = "TF"
    causal_param = "barrier"
    frames = 3
    min_margin = _GAP
    paradigm = "Rational action: jumping over a barrier to a goal (Gergely, Nadasdy, Csibra & Biro 1995)"
    level_cuts = (-0.14, -0.11)
    hardness_doc = "how far the path's height ratio sits from the efficiency threshold: nearer is harder"

    def sample(self, rng: random.Random, k: int) -> dict:
        while True:
            width = rng.choice([30, 40, 50])
            height = rng.randrange(110, 181, 10)
            params = {"seed": rng.randrange(10 ** 6), "start": rng.randrange(60, 111, 10),
                      "goal": rng.randrange(540, 591, 10), "wall_x": rng.randrange(280, 361, 10),
                      "wall_w": width, "wall_h": height, "clearance": rng.randrange(6, 15, 4),
                      "run_up": rng.randrange(50, 81, 10), "barrier": k % 2 == 0}
            twin = self.twin(params)
            ratios = {p["barrier"]: self._ratio(p) for p in (params, twin)}
            if ratios[True] <= _THRESHOLD - _GAP and ratios[False] >= _THRESHOLD + _GAP and self._clear(params):
                return params

    def twin(self, params: dict) -> dict:
        return {**params, "barrier": not params["barrier"]}

    def question(self, params: dict) -> str:
        return ("The orange agent wants to reach the green apple. Is the agent taking a sensible, efficient path "
                "to get there?")

    def answer(self, params: dict) -> str:
        return "Yes" if params["barrier"] else "No"

    def _wall(self, params: dict) -> tuple[float, float, float, float]:
        half = params["wall_w"] / 2
        return (params["wall_x"] - half, _GROUND - params["wall_h"], params["wall_x"] + half, _GROUND)

    def _trajectory(self, params: dict, n: int = 60) -> list[tuple[float, float]]:
        """The agent's centre: along the ground, a parabolic hop over where the wall
        stands, just high enough that the disc passes ``clearance`` px from the wall's
        corners, then along the ground to the goal."""
        from shapely.geometry import LineString, box

        x0, top, x1, _ = self._wall(params)
        a, b = x0 - _R - params["run_up"], x1 + _R + params["run_up"]
        base = _GROUND - _R
        wall = box(x0, top, x1, _GROUND)

        def hop(rise):  # a parabola through (a, base) and (b, base), its vertex ``rise`` px up
            return [(a + (b - a) * i / n, base - rise * 4 * (i / n) * (1 - i / n)) for i in range(n + 1)]

        low, high = 0.0, 4.0 * params["wall_h"]
        for _ in range(30):  # bisect the lowest hop that keeps the clearance
            mid = (low + high) / 2
            if LineString(hop(mid)).distance(wall) >= _R + params["clearance"]:
                high = mid
            else:
                low = mid
        return [(params["start"], base)] + hop(round(high, 1)) + [(params["goal"] - _R - 8, base)]

    def _clear(self, params: dict) -> bool:
        """The hop clears the wall (so the Yes item is physically right)."""
        from shapely.geometry import LineString, box

        return not LineString(self._trajectory(params)).buffer(_R - 1).intersects(box(*self._wall(params)))

    def _ratio(self, params: dict) -> float:
        """Length of the path taken / length of the shortest path a disc of radius _R can
        take to the same end point: straight along the ground, or taut over the wall's
        corners (inflated by _R) when the wall stands in the way."""
        from shapely.geometry import LineString, box

        path = self._trajectory(params)
        s, g = path[0], path[-1]
        shortest = math.dist(s, g)
        if params["barrier"]:
            x0, top, x1, _ = self._wall(params)
            wall = box(x0, top, x1, _GROUND)
            if LineString([s, g]).buffer(_R - 1).intersects(wall):
                c0, c1 = (x0 - _R, top - _R), (x1 + _R, top - _R)
                shortest = math.dist(s, c0) + math.dist(c0, c1) + math.dist(c1, g)
        return _length(path) / shortest

    def check(self, params: dict) -> str:
        return "Yes" if self._ratio(params) < _THRESHOLD else "No"

    def render(self, params: dict) -> list:
        rng = random.Random(params["seed"])
        sky = rng.choice([(232, 242, 252), (244, 244, 236), (238, 248, 240)])
        wall_colour = rng.choice([(150, 80, 60), (110, 110, 120), (90, 110, 150)])
        path = self._trajectory(params)
        stops = [0, len(path) // 2, len(path) - 1]  # start, top of the hop, arrival
        gx = params["goal"]
        out = []
        for frame in range(self.frames):
            image, draw = canvas(sky)
            draw.rectangle([0, _GROUND, SIZE[0], SIZE[1]], fill=(120, 170, 90))
            draw.line([(0, _GROUND), (SIZE[0], _GROUND)], fill=(70, 120, 50), width=3)
            if params["barrier"]:
                x0, y0, x1, y1 = self._wall(params)
                draw.rectangle([x0, y0, x1, y1], fill=wall_colour, outline=(50, 40, 40), width=2)
                for y in range(int(y0) + 18, int(y1), 18):  # brick courses
                    draw.line([(x0 + 2, y), (x1 - 2, y)], fill=tuple(max(0, c - 40) for c in wall_colour), width=2)
            # the goal: a green apple on the ground
            draw.ellipse([gx - 16, _GROUND - 32, gx + 16, _GROUND], fill=(60, 170, 60), outline=(30, 90, 30), width=2)
            draw.line([(gx, _GROUND - 32), (gx + 4, _GROUND - 42)], fill=(100, 70, 30), width=3)
            upto = stops[frame]
            if upto:
                _dots(draw, path[:upto + 1], _INK, step=16, r=3)
            _agent(draw, path[upto], _R, 0.0)  # looking ahead, towards the goal
            out.append(image)
        return out

    def causal_box(self, params: dict) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = self._wall(params)
        return (math.floor(x0) - 2, math.floor(y0) - 2, math.ceil(x1) + 2, math.ceil(y1) + 2)

    def margin(self, params: dict) -> float:
        return abs(self._ratio(params) - _THRESHOLD)

    def feature_px(self, params: dict) -> float:
        return float(params["wall_w"])


FAMILIES = [GoalInference(), EfficientJump()]
