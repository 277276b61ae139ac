"""The ALE 2013 baseline policies (Bellemare et al. 2013, §3.1.2): Random, Const(a), Perturb(a).

Random decides on every frame (60 Hz), not every 5 frames as the learners do; it says so with
``frames_per_action = 1``, which the Runner honours. Const and Perturb decide at the protocol's rate.
"""
from __future__ import annotations

from .base import BaseAgent, Observation

N_ALE_ACTIONS = 18
PERTURB_KEEP = 0.95  # Perturb keeps its action with this probability, else uniform (paper §3.1.2)


class RandomAgent(BaseAgent):
    """Uniform over the action set, chosen anew every frame."""

    name = "random"
    frames_per_action = 1

    def _act(self) -> int:
        return int(self.actions[int(self.rng.integers(len(self.actions)))])

    def begin_episode(self, obs: Observation) -> int:
        return self._act()

    def step(self, reward: float, obs: Observation) -> int:
        return self._act()


class ConstAgent(BaseAgent):
    """Always the same ALE action (it need not be in the minimal set: the env maps illegal ones to NOOP)."""

    def __init__(self, action: int, seed: int = 0):
        super().__init__(seed)
        if not 0 <= int(action) < N_ALE_ACTIONS:
            raise ValueError(f"action must be 0..17, got {action!r}")
        self.action = int(action)
        self.name = f"const:{self.action}"

    def begin_episode(self, obs: Observation) -> int:
        return self.action

    def step(self, reward: float, obs: Observation) -> int:
        return self.action


class PerturbAgent(ConstAgent):
    """Const(a) with probability 0.95, otherwise uniform over the action set."""

    def __init__(self, action: int, seed: int = 0, keep: float = PERTURB_KEEP):
        super().__init__(action, seed)
        self.keep = float(keep)
        self.name = f"perturb:{self.action}"

    def _act(self) -> int:
        if self.rng.random() < self.keep:
            return self.action
        return int(self.actions[int(self.rng.integers(len(self.actions)))])

    def begin_episode(self, obs: Observation) -> int:
        return self._act()

    def step(self, reward: float, obs: Observation) -> int:
        return self._act()


def all_baselines(seed: int = 0) -> list[BaseAgent]:
    """The 37 baseline policies the paper's baseline-normalised score spans."""
    return ([RandomAgent(seed)] + [ConstAgent(a, seed) for a in range(N_ALE_ACTIONS)]
            + [PerturbAgent(a, seed) for a in range(N_ALE_ACTIONS)])
