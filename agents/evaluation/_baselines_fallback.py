"""Stand-in for ``agents.baselines`` (written on the agents branch) so evaluation runs before the merge.

The three baseline policies of ALE 2013 (Sec. 3.1.3), nothing more:
  random      uniform over the action set, a new choice **every frame** (the runner
              then drives the environment with frame skip 1 and calls the agent once per emulated frame,
              whatever the protocol's frame skip — that is how the paper's Random is defined; the flag is
              ``frames_per_action = 1``, the agents package's convention);
  const:A     always action A;
  perturb:A   action A, but with probability 0.05 a uniformly random action (decided at each decision).
Specs "const"/"perturb" without an action mean all 18 (the runner expands them).
"""
from __future__ import annotations

from agents.base import BaseAgent

PERTURB_EPSILON = 0.05


class Random(BaseAgent):
    name = "random"
    frames_per_action = 1

    def _pick(self) -> int:
        return int(self.actions[self.rng.integers(len(self.actions))])

    def begin_episode(self, obs) -> int:
        return self._pick()

    def step(self, reward, obs) -> int:
        return self._pick()


class Const(BaseAgent):
    def __init__(self, action: int, seed: int = 0):
        super().__init__(seed)
        self.action = int(action)
        self.name = f"const:{self.action}"

    def begin_episode(self, obs) -> int:
        return self.action

    def step(self, reward, obs) -> int:
        return self.action


class Perturb(Const):
    def __init__(self, action: int, seed: int = 0, epsilon: float = PERTURB_EPSILON):
        super().__init__(action, seed)
        self.epsilon = epsilon
        self.name = f"perturb:{self.action}"

    def _pick(self) -> int:
        if self.rng.random() < self.epsilon:
            return int(self.actions[self.rng.integers(len(self.actions))])
        return self.action

    def begin_episode(self, obs) -> int:
        return self._pick()

    def step(self, reward, obs) -> int:
        return self._pick()


def make_agent(spec: str, env=None, seed: int = 0):
    kind, _, arg = spec.partition(":")
    if kind == "random" and not arg:
        return Random(seed)
    if kind in ("const", "perturb") and arg:
        try:
            a = int(arg)
        except ValueError:
            a = -1
        if not 0 <= a < 18:
            raise ValueError(f"agent {spec!r}: the action must be an ALE action id 0..17")
        return Const(a, seed) if kind == "const" else Perturb(a, seed)
    raise ValueError(f"unknown agent {spec!r} (known: random, const:A, perturb:A, const, perturb, baselines)")
