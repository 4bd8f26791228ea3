"""Answer positions balanced by construction, shared by the builders."""

from __future__ import annotations

import random
from collections import Counter, defaultdict


class Positions:
    """Balances answer positions: each new item puts its answer at the least used
    position for its task and number of options (ties broken by the item's RNG)."""

    def __init__(self):
        self.used: dict[tuple[str, int], Counter] = defaultdict(Counter)

    def choose(self, task: str, n: int, rng: random.Random, feasible: list[int] | None = None) -> int:
        """The least used of the ``feasible`` positions (default: all ``n``), counted as used."""
        used = self.used[(task, n)]
        feasible = list(range(n)) if feasible is None else feasible
        low = min(used[p] for p in feasible)
        pos = rng.choice([p for p in feasible if used[p] == low])
        used[pos] += 1
        return pos

    def place(self, task: str, answer, others: list, rng: random.Random) -> list:
        """``others`` shuffled with ``answer`` inserted at the chosen position."""
        pos = self.choose(task, len(others) + 1, rng)
        rest = list(others)
        rng.shuffle(rest)
        return rest[:pos] + [answer] + rest[pos:]
