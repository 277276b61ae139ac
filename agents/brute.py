"""The Brute (Bellemare et al. 2015; Machado et al. 2018, §5.1 and Appendix A): an agent that exploits
determinism instead of generalising, kept here as the yardstick for why sticky actions matter.

It grows a tree of histories — each node is the sequence of (action, observation) pairs since the episode
began — and estimates every (history, action) by the returns seen after it. It then replays the best
known trajectory, deviating at each step with a small probability ("narrow exploration"). In a
deterministic game every node has one child per action, so the estimate is a max-backup of the best
return found and the Brute converges on an open-loop script; with sticky actions the same actions lead
to different histories, the tree fans out and its estimates lose their meaning.

Choices where the summary leaves us free (all parameters): the observation of a step is a 64-bit digest
of the 128 RAM bytes (the console's memory, which determines what the game does next); ε = 0.005 per
decision; returns are undiscounted episode scores; (history, action) values average their children
weighted by visits (equal to the max-backup when the game is deterministic); a new node, or one whose
actions were never tried, picks uniformly at random.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from .base import BaseAgent, Observation, Thoughts

BRUTE_FORMAT = "arcade-lab-brute/1"


def observation_key(obs: Observation) -> int:
    return int.from_bytes(hashlib.blake2b(np.ascontiguousarray(obs.ram).tobytes(), digest_size=8).digest(),
                          "little")


class BruteAgent(BaseAgent):
    name = "brute"

    def __init__(self, seed: int = 0, epsilon: float = 0.005):
        super().__init__(seed)
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.epsilon = float(epsilon)
        self.learning = True  # off: replay the best trajectory without exploring or updating the tree
        self.game = ""
        # edges: (parent, action, observation) -> child node; per edge its visits and summed reward
        self._edge: dict[tuple[int, int, int], int] = {}
        self._e_parent: list[int] = []
        self._e_action: list[int] = []
        self._e_obs: list[int] = []
        self._e_n: list[int] = []
        self._e_r: list[float] = []
        self._by_pair: dict[tuple[int, int], list[int]] = {}     # (node, action) -> its edges
        self._q: list[dict[int, float]] = [{}]                     # per node: tried action -> value
        self._v: list[float] = [0.0]                               # per node: best value (0 if untried)
        self._path: list[int] = []
        self._node = 0
        self._last = 0
        self._pending = 0.0

    # -- tree -------------------------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self._v)

    def _child(self, node: int, action: int, key: int) -> int:
        e = self._edge.get((node, action, key))
        if e is None:
            e = len(self._e_n)
            self._edge[(node, action, key)] = e
            self._e_parent.append(node)
            self._e_action.append(action)
            self._e_obs.append(key)
            self._e_n.append(0)
            self._e_r.append(0.0)
            self._by_pair.setdefault((node, action), []).append(e)
            self._q.append({})
            self._v.append(0.0)
        return e

    def _child_of(self, e: int) -> int:
        return e + 1  # node 0 is the root; edge e creates node e + 1

    def _choose(self, node: int) -> int:
        q = self._q[node]
        if not q or (self.learning and self.rng.random() < self.epsilon):
            return int(self.actions[int(self.rng.integers(len(self.actions)))])
        best = max(q.values())
        ties = sorted(a for a, v in q.items() if v == best)
        return ties[0] if len(ties) == 1 else int(ties[int(self.rng.integers(len(ties)))])

    def _advance(self, reward: float, obs: Observation) -> None:
        e = self._child(self._node, self._last, observation_key(obs))
        self._e_n[e] += 1
        self._e_r[e] += reward
        self._path.append(e)
        self._node = self._child_of(e)

    # -- agent ------------------------------------------------------------------------------------------
    def begin_episode(self, obs: Observation) -> int:
        self._path = []
        self._node = 0
        self._last = self._choose(0)
        return self._last

    def step(self, reward: float, obs: Observation) -> int:
        self._advance(reward, obs)
        self._last = self._choose(self._node)
        return self._last

    def end_episode(self, reward: float) -> None:
        # the final step's reward lands on a terminal child (its value stays 0); then back up the path
        self._advance(reward, Observation(screen=None, ram=np.zeros(0, np.uint8), lives=0, frame=0,
                                          terminal=True))
        if self.learning:
            for e in reversed(self._path):
                self._back_up(e)
        self._path = []

    def _back_up(self, e: int) -> None:
        """Re-estimate the (history, action) pair edge ``e`` leaves from: its children's rewards and values
        weighted by visits; then the history's value, the best of its tried actions."""
        parent, action = self._e_parent[e], self._e_action[e]
        edges = self._by_pair[(parent, action)]
        n = sum(self._e_n[k] for k in edges)
        if n:
            self._q[parent][action] = sum(self._e_r[k] + self._e_n[k] * self._v[self._child_of(k)]
                                          for k in edges) / n
            self._v[parent] = max(self._q[parent].values())

    def history_values(self) -> np.ndarray:
        """Value of each action in ``self.actions`` after the current history (NaN: never tried there)."""
        q = self._q[self._node] if 0 <= self._node < len(self._q) else {}
        return np.array([q.get(int(a), np.nan) for a in self.actions], float)

    def thoughts(self) -> Thoughts | None:
        return Thoughts("q", list(self.actions), self.history_values())

    def best_return(self) -> float:
        """The value of the root: the return the Brute expects from replaying its best trajectory."""
        return self._v[0]

    # -- files ------------------------------------------------------------------------------------------
    def header(self) -> dict:
        return {"format": BRUTE_FORMAT, "game": self.game, "epsilon": self.epsilon, "nodes": self.n_nodes}

    def save(self, path) -> None:
        np.savez_compressed(
            path, header=np.array(json.dumps(self.header())),
            parent=np.asarray(self._e_parent, np.int64), action=np.asarray(self._e_action, np.int64),
            obs=np.asarray(self._e_obs, np.uint64), n=np.asarray(self._e_n, np.int64),
            r=np.asarray(self._e_r, np.float64))

    def load(self, path) -> None:
        with np.load(path, allow_pickle=False) as z:
            try:
                head = json.loads(str(z["header"]))
            except (KeyError, ValueError):
                raise ValueError(f"{path}: not a Brute tree file") from None
            if head.get("format") != BRUTE_FORMAT:
                raise ValueError(f"{path}: not a Brute tree file")
            if self.game and head.get("game") and head["game"] != self.game:
                raise ValueError(f"{path}: the tree is for {head['game']}, not {self.game}")
            parent, action, obs, n, r = (z[k] for k in ("parent", "action", "obs", "n", "r"))
        fresh = BruteAgent(0, self.epsilon)
        for k in range(len(parent)):
            e = fresh._child(int(parent[k]), int(action[k]), int(obs[k]))
            fresh._e_n[e], fresh._e_r[e] = int(n[k]), float(r[k])
        # values from the leaves up: a child always has a larger node number than its parent
        for e in range(len(parent) - 1, -1, -1):
            fresh._back_up(e)
        for attr in ("_edge", "_e_parent", "_e_action", "_e_obs", "_e_n", "_e_r", "_by_pair", "_q", "_v"):
            setattr(self, attr, getattr(fresh, attr))
        self._path, self._node = [], 0
