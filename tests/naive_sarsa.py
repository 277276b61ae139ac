"""A slow, obviously-correct SARSA(λ) with replacing traces (dicts and loops) to hold the kernel to."""
from __future__ import annotations

import numpy as np


class NaiveSarsa:
    def __init__(self, n_actions, n_features, alpha, gamma, lam, threshold):
        self.w = np.zeros((n_actions, n_features))
        self.e: dict[tuple[int, int], float] = {}
        self.alpha, self.gamma, self.lam, self.threshold = alpha, gamma, lam, threshold

    def q(self, feats, a):
        return float(sum(self.w[a, f] for f in feats))

    def update(self, feats, a, reward, q_next):
        for f in feats:
            self.e[(a, int(f))] = 1.0                     # replacing traces
        delta = reward + self.gamma * q_next - self.q(feats, a)
        for (b, f), v in self.e.items():
            self.w[b, f] += self.alpha * delta * v
        self.e = {k: v * self.gamma * self.lam for k, v in self.e.items()
                  if v * self.gamma * self.lam >= self.threshold}
        return delta
