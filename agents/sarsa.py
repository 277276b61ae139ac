"""SARSA(λ) with linear function approximation, replacing traces and ε-greedy exploration (ALE 2013 §3.1).

Q(s, a) = Σ_{f active in s} w[a, f]. Traces are sparse: a list of (key = a * n_features + f, value) pairs
with an open-addressing hash table from key to list position, so a step costs O(active features + live
traces), never O(n_features). Entries decay by γλ each step and are dropped below ``trace_threshold``.

Step size: α is divided by the largest number of active features seen so far. The paper quotes α per
feature set without spelling out the normaliser; dividing by the active count is what keeps one update
from overshooting when thousands of BASS/RAM pairs are on at once, and a running maximum keeps the step
size from jumping with every screen. (Documented in docs/agents.md.)
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import numpy as np

from ._nb import HASH_MUL, njit
from .base import BaseAgent, Observation, Thoughts

# (alpha, lambda) per feature set: ALE 2013 Appendix C; Blob-PROST from Machado et al. 2018 Appendix B.4
PAPER_PARAMS = {"basic": (0.5, 0.9), "bass": (0.5, 0.9), "disco": (0.1, 0.9), "ram": (0.2, 0.5), "lsh": (0.5, 0.5),
                "blobprost": (0.5, 0.9)}
# other SarsaConfig defaults that differ per feature set (for_env applies them; params still override):
# the 2013 sets share gamma 0.999 and epsilon 0.05, Machado et al. 2018 ran Blob-PROST with 0.99 and 0.01
PAPER_CONFIG = {"blobprost": {"gamma": 0.99, "epsilon": 0.01}}
WEIGHTS_FORMAT = "arcade-lab-sarsa"
WEIGHTS_VERSION = 1

# ctr array slots
TR_N = 0          # trace entries in the list (live and tombstones)
TR_LIVE = 1       # entries with a non-zero trace
N_CTR = 2


@dataclass
class SarsaConfig:
    alpha: float = 0.5
    """Step size before normalisation (paper App. C: Basic .5, BASS .5, DISCO .1, RAM .2, LSH .5;
    Blob-PROST .5, Machado et al. 2018)."""
    lam: float = 0.9
    """Trace decay λ (paper: Basic .9, BASS .9, DISCO .9, RAM .5, LSH .5; Blob-PROST .9)."""
    gamma: float = 0.999
    """Discount per decision (paper App. C; ``for_env`` gives Blob-PROST 0.99, see ``PAPER_CONFIG``)."""
    epsilon: float = 0.05
    """ε-greedy exploration, during training and evaluation alike (paper App. C; Blob-PROST 0.01)."""
    trace_threshold: float = 0.01
    """Traces below this are dropped (sparse-trace pruning; not a paper parameter)."""
    normalise_alpha: bool = True
    """Divide α by the largest number of active features seen (see module docstring)."""


@njit(cache=True, nogil=True)
def _slot(table, keys, key, mask):
    h = np.int64((np.uint64(key) * HASH_MUL) >> np.uint64(40)) & mask
    while True:
        p = table[h]
        if p < 0 or keys[p] == key:
            return h
        h = (h + 1) & mask


@njit(cache=True, nogil=True)
def q_values(w, feats, out):
    for a in range(w.shape[0]):
        acc = 0.0
        for f in feats:
            acc += w[a, f]
        out[a] = acc


@njit(cache=True, nogil=True)
def _compact(keys, vals, slots, table, ctr):
    """Drop dead entries (value 0) and re-point the table; amortised: runs when the dead outnumber the live."""
    mask = table.shape[0] - 1
    n = ctr[TR_N]
    for i in range(n):
        table[slots[i]] = -1
    m = 0
    for i in range(n):
        if vals[i] > 0.0:
            keys[m] = keys[i]
            vals[m] = vals[i]
            m += 1
    for i in range(m):
        h = _slot(table, keys, keys[i], mask)
        table[h] = i
        slots[i] = h
    ctr[TR_N] = m
    ctr[TR_LIVE] = m


@njit(cache=True, nogil=True)
def sarsa_update(w, keys, vals, slots, table, ctr, feats, a, reward, q_next, alpha, gamma, lam, threshold):
    """One SARSA(λ) update for the transition out of (s, a) with features ``feats`` of s; ``q_next`` is
    Q(s', a') (0 at a terminal). Returns δ. The caller guarantees room for len(feats) more traces.

    Keys are flat indices into ``w`` (a * n_features + f). Pruned traces stay in the list and the table as
    value-0 tombstones (a later visit revives them in place) until they outnumber the live ones."""
    nf = w.shape[1]
    wf = w.reshape(-1)
    mask = table.shape[0] - 1
    n = ctr[TR_N]
    live = ctr[TR_LIVE]
    for f in feats:
        k = a * nf + f
        h = _slot(table, keys, k, mask)
        p = table[h]
        if p >= 0:
            if vals[p] == 0.0:
                live += 1
            vals[p] = 1.0                 # replacing trace
        else:
            keys[n] = k
            vals[n] = 1.0
            slots[n] = h
            table[h] = n
            n += 1
            live += 1
    q = 0.0
    for f in feats:
        q += wf[a * nf + f]
    delta = reward + gamma * q_next - q
    step = alpha * delta
    decay = gamma * lam
    for i in range(n):
        v = vals[i]
        if v > 0.0:
            wf[keys[i]] += step * v
            v *= decay
            if v < threshold:
                v = 0.0
                live -= 1
            vals[i] = v
    ctr[TR_N] = n
    ctr[TR_LIVE] = live
    if n - live > live:
        _compact(keys, vals, slots, table, ctr)
    return delta


@njit(cache=True, nogil=True)
def clear_traces(slots, table, ctr):
    for i in range(ctr[TR_N]):
        table[slots[i]] = -1
    ctr[TR_N] = 0
    ctr[TR_LIVE] = 0


class SparseTraces:
    """The trace list and its hash table; grows (outside compiled code) when a step might not fit."""

    def __init__(self, capacity: int = 1 << 12):
        self._alloc(capacity)
        self.ctr = np.zeros(N_CTR, np.int64)

    def _alloc(self, capacity):
        self.keys = np.zeros(capacity, np.int64)
        self.vals = np.zeros(capacity, np.float64)
        self.slots = np.zeros(capacity, np.int64)
        hcap = 1
        while hcap < 2 * capacity:
            hcap <<= 1
        self.table = np.full(hcap, -1, np.int64)

    def reserve(self, extra: int) -> None:
        n = int(self.ctr[TR_N])
        if n + extra <= self.keys.shape[0]:
            return
        keys, vals = self.keys[:n].copy(), self.vals[:n].copy()
        cap = self.keys.shape[0]
        while cap < n + extra:
            cap *= 2
        self._alloc(cap)
        self.keys[:n], self.vals[:n] = keys, vals
        _compact(self.keys, self.vals, self.slots, self.table, self.ctr)  # fresh table: re-point every entry

    def clear(self) -> None:
        clear_traces(self.slots, self.table, self.ctr)

    def as_dict(self, n_features: int) -> dict:
        n = int(self.ctr[TR_N])
        return {(int(k) // n_features, int(k) % n_features): float(v)
                for k, v in zip(self.keys[:n], self.vals[:n]) if v > 0.0}


class SarsaAgent(BaseAgent):
    """Linear SARSA(λ) over one feature set. ``learning = False`` freezes the weights (evaluation)."""

    def __init__(self, features, config: SarsaConfig | None = None, seed: int = 0, game: str = ""):
        super().__init__(seed)
        self.features = features
        self.config = config or SarsaConfig()
        self.game = game
        self.name = f"sarsa:{features.name}"
        self.learning = True
        self.w: np.ndarray | None = None
        self.traces = SparseTraces()
        self.max_active = 1
        self._q = np.zeros(18)
        self._feats = np.zeros(0, np.int64)
        self._a = 0
        self.last_delta = 0.0

    @classmethod
    def for_env(cls, feature_set: str, env, seed: int = 0, n_samples: int = 18_000, **params) -> "SarsaAgent":
        """The paper's agent for ``feature_set``: its α and λ (``PAPER_PARAMS``) and any other defaults of its
        own (``PAPER_CONFIG``: Blob-PROST's γ and ε), each unless overridden in ``params``."""
        from . import features

        alpha, lam = PAPER_PARAMS[feature_set]
        own = dict(PAPER_CONFIG.get(feature_set, {}))
        own.update({k: params.pop(k) for k in list(params) if k in SarsaConfig.__dataclass_fields__})
        cfg = SarsaConfig(alpha=own.pop("alpha", alpha), lam=own.pop("lam", lam), **own)
        fs = features.make(feature_set, env, seed=seed, n_samples=n_samples, **params)
        agent = cls(fs, cfg, seed=seed, game=getattr(getattr(env, "info", None), "id", ""))
        if env is not None:
            agent.actions = env.action_set()
        return agent

    # -- policy -------------------------------------------------------------------------------------
    def _ensure_weights(self):
        if self.w is None or self.w.shape[0] != len(self.actions):
            # float32 keeps BASS (1.6 M features x actions) within a few hundred MB; sums run in float64
            self.w = np.zeros((len(self.actions), self.features.n_features), np.float32)
            self._q = np.zeros(len(self.actions))

    def _choose(self, feats) -> int:
        q_values(self.w, feats, self._q)
        if self.rng.random() < self.config.epsilon:
            return int(self.rng.integers(len(self.actions)))
        best = np.flatnonzero(self._q == self._q.max())
        return int(best[0] if best.size == 1 else best[self.rng.integers(best.size)])

    def q_values(self) -> np.ndarray:
        """Q of each action in ``self.actions`` for the last observation."""
        return self._q.copy()

    def thoughts(self) -> Thoughts | None:
        return None if self.w is None else Thoughts("q", list(self.actions), self.q_values())

    def _alpha(self) -> float:
        return self.config.alpha / self.max_active if self.config.normalise_alpha else self.config.alpha

    def _update(self, reward, q_next):
        feats = self._feats
        self.traces.reserve(len(feats))
        t = self.traces
        c = self.config
        self.last_delta = float(sarsa_update(self.w, t.keys, t.vals, t.slots, t.table, t.ctr, feats, self._a,
                                             float(reward), float(q_next), self._alpha(), c.gamma, c.lam,
                                             c.trace_threshold))

    def begin_episode(self, obs: Observation) -> int:
        self._ensure_weights()
        self.traces.clear()
        self.features.reset()
        self._feats = self.features.active(obs)
        self.max_active = max(self.max_active, len(self._feats))
        self._a = self._choose(self._feats)
        return int(self.actions[self._a])

    def step(self, reward: float, obs: Observation) -> int:
        feats = self.features.active(obs)
        self.max_active = max(self.max_active, len(feats))
        a = self._choose(feats)  # fills self._q with Q(s', ·) under the current weights
        if self.learning:
            self._update(reward, self._q[a])
        self._feats, self._a = feats, a
        return int(self.actions[a])

    def end_episode(self, reward: float) -> None:
        if self.learning:
            self._update(reward, 0.0)
        self.traces.clear()

    # -- weights files --------------------------------------------------------------------------------
    def header(self) -> dict:
        return {"format": WEIGHTS_FORMAT, "version": WEIGHTS_VERSION, "agent": self.name, "game": self.game,
                "features": self.features.header(), "params": asdict(self.config),
                "actions": [int(a) for a in self.actions], "max_active": int(self.max_active)}

    def save(self, path) -> None:
        self._ensure_weights()
        extra = self.features.save_arrays()  # what the feature set keeps beyond its header
        np.savez_compressed(path, header=np.array(json.dumps(self.header())), w=self.w, **extra)

    def load(self, path) -> None:
        with np.load(path, allow_pickle=False) as z:
            head = json.loads(str(z["header"]))
            if head.get("format") != WEIGHTS_FORMAT:
                raise ValueError(f"{path}: not a SARSA weights file")
            if head["features"]["features"] != self.features.name:
                raise ValueError(f"{path}: weights are for {head['features']['features']} features, "
                                 f"this agent uses {self.features.name}")
            if self.game and head.get("game") and head["game"] != self.game:
                raise ValueError(f"{path}: weights are for {head['game']}, not {self.game}")
            fh = head["features"]
            w = z["w"]
            if w.ndim != 2 or w.shape[1] != int(fh.get("n_features", w.shape[1])):
                raise ValueError(f"{path}: weights of shape {w.shape} for {fh.get('n_features')} features")
            if fh["features"] == "lsh" and (fh.get("seed"), fh.get("height")) != (
                    getattr(self.features, "seed", None), getattr(self.features, "height", None)):
                from .features.lsh import LshFeatures
                self.features = LshFeatures(height=fh["height"], seed=fh["seed"], n_probes=fh["n_probes"],
                                            probe_bits=fh["probe_bits"], m=fh["m"])
            try:
                self.features.load_arrays({k: z[k] for k in z.files if k not in ("header", "w")}, fh)
            except ValueError as e:
                raise ValueError(f"{path}: {e}") from None
            if w.shape[1] != self.features.n_features:
                raise ValueError(f"{path}: {w.shape[1]} features, this feature set has {self.features.n_features}")
            self.w = w.astype(np.float32)
            self.actions = list(head["actions"])
            self._q = np.zeros(len(self.actions))
            self.max_active = int(head.get("max_active", 1))
            self.config = SarsaConfig(**head["params"])
