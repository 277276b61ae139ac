"""Planning with the emulator as a perfect model (ALE 2013 §3.2, Appendices B-C): UCT and breadth-first
search, both compiled end to end over compiled snapshots.

A snapshot is a row of a preallocated int64 matrix (the machine state ``env.console.s`` is one int64
array); the tree is a set of flat arrays indexed by node id, children of a node contiguous. Search runs on
scratch copies of the frame buffers and the environment RNG, so the env the Runner plays is never touched.
One search step is one ``ale_core.act`` with the env's own frame skip (the protocol's frames per action).

Duplicate pruning: when a node is expanded, an action whose resulting RAM equals an earlier sibling's is
dropped (it is recorded in that sibling's action mask, so root statistics can show it).

Anytime search (the app's "keep real time"): ``decide(deadline=...)`` searches until a
``time.perf_counter()`` deadline instead of to an exact budget. UCT runs the same compiled search in
short chunks of simulations per tree until the deadline; BFS sizes its frame budget from its measured
emulation speed. Only the app sets deadlines (:attr:`_Planner.next_deadline`); evaluation runs always
use exact budgets, which stay reproducible.

``decide(source=...)`` searches from another position than the agent's env: any object with the env's
``console`` (``s``, ``rom``, ``fb``), ``rng`` and ``frames_per_act``. The app searches ahead this way, from
a copy holding the state the next decision will see, on a thread of its own while the real frames play.
"""
from __future__ import annotations

import math
import time

import numpy as np

from arcade_lab.engine import ale_core
from arcade_lab.engine.env import paddle_delta
from arcade_lab.engine.layout import E_FRAME, E_FRAMESKIP, N_SNAPSHOT, N_STATE, RAM0

from ._nb import njit
from .base import BaseAgent, Observation, Thoughts

# node table columns
N_PARENT, N_ACTION, N_FIRST, N_COUNT, N_VISITS, N_DEPTH, N_TERMINAL, N_MASK = range(8)
N_COLS = 8
UNEXPANDED = -1
# value table columns
V_SUM, V_REWARD, V_VALUE = range(3)
V_COLS = 3
# counters
C_NODES, C_RNG, C_FRAMES, C_FULL = range(4)
N_CTR = 4

PLAYER_B_NOOP = ale_core.PLAYER_B_NOOP
DELTA = paddle_delta(1.0)
ANYTIME_CHUNK = 8  # most simulations one anytime chunk runs between two looks at the clock


@njit(cache=True, nogil=True)
def _rand(ctr):
    # xorshift64*: a compiled, seedable stream independent of numba's global RNG
    x = np.uint64(ctr[C_RNG])
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    ctr[C_RNG] = np.int64(x)
    return np.int64((x * np.uint64(2685821657736338717)) >> np.uint64(33))


@njit(cache=True, nogil=True)
def _step(s, rom, fb, erng, action, ctr):
    f0 = s[E_FRAME]
    r = ale_core.act(s, rom, fb, erng, action, PLAYER_B_NOOP, DELTA, 0, 0)
    ctr[C_FRAMES] += s[E_FRAME] - f0
    return r


@njit(cache=True, nogil=True)
def init_root(nodes, vals, states, ctr, s):
    states[0, :] = s
    nodes[0, N_PARENT] = -1
    nodes[0, N_ACTION] = -1
    nodes[0, N_FIRST] = -1
    nodes[0, N_COUNT] = UNEXPANDED
    nodes[0, N_VISITS] = 0
    nodes[0, N_DEPTH] = 0
    nodes[0, N_TERMINAL] = 1 if ale_core.is_terminal(s) else 0
    nodes[0, N_MASK] = 0
    vals[0, :] = 0.0
    ctr[C_NODES] = 1
    ctr[C_FULL] = 0


@njit(cache=True, nogil=True)
def _expand(n, src, nodes, vals, states, ctr, rom, fb, erng, acts, tmp, rams):
    """Children of node n (state ``src``), RAM duplicates pruned. Child states go to their rows, or to
    ``tmp`` beyond the state matrix (BFS replays those later). False when the node table is full."""
    na = acts.shape[0]
    max_rows = states.shape[0]
    first = ctr[C_NODES]
    if first + na > nodes.shape[0]:
        ctr[C_FULL] = 1
        return False
    k = 0
    for i in range(na):
        c = first + k
        dst = states[c] if c < max_rows else tmp
        dst[:] = src
        r = _step(dst, rom, fb, erng, acts[i], ctr)
        dup = -1
        for j in range(k):
            same = True
            for b in range(128):
                if rams[j, b] != dst[RAM0 + b]:
                    same = False
                    break
            if same:
                dup = first + j
                break
        if dup >= 0:
            nodes[dup, N_MASK] |= 1 << i
            continue
        rams[k, :] = dst[RAM0:RAM0 + 128]
        nodes[c, N_PARENT] = n
        nodes[c, N_ACTION] = i
        nodes[c, N_FIRST] = -1
        nodes[c, N_COUNT] = UNEXPANDED
        nodes[c, N_VISITS] = 0
        nodes[c, N_DEPTH] = nodes[n, N_DEPTH] + 1
        nodes[c, N_TERMINAL] = 1 if ale_core.is_terminal(dst) else 0
        nodes[c, N_MASK] = 1 << i
        vals[c, V_SUM] = 0.0
        vals[c, V_REWARD] = r
        vals[c, V_VALUE] = 0.0
        k += 1
    nodes[n, N_FIRST] = first
    nodes[n, N_COUNT] = k
    ctr[C_NODES] = first + k
    return True


@njit(cache=True, nogil=True)
def uct_search(nodes, vals, states, ctr, rom, fb, erng, acts, target_visits, max_steps, c_explore, gamma, work,
               rams):
    """Simulate from node 0 until it has ``target_visits`` visits (paper App. B). Returns simulations run."""
    na = acts.shape[0]
    sims = 0
    while nodes[0, N_VISITS] < target_visits:
        n = 0
        leaf = -1
        while True:
            if nodes[n, N_TERMINAL] or nodes[n, N_DEPTH] >= max_steps:
                leaf = n
                break
            if nodes[n, N_COUNT] == UNEXPANDED:
                if not _expand(n, states[n], nodes, vals, states, ctr, rom, fb, erng, acts, work, rams):
                    leaf = n
                    break
            first = nodes[n, N_FIRST]
            cnt = nodes[n, N_COUNT]
            best = -1
            best_score = -np.inf
            log_n = math.log(max(1, nodes[n, N_VISITS]))
            for ci in range(first, first + cnt):
                v = nodes[ci, N_VISITS]
                if v == 0:
                    best = ci
                    break
                score = vals[ci, V_SUM] / v + c_explore * math.sqrt(log_n / v)
                if score > best_score:
                    best_score = score
                    best = ci
            if nodes[best, N_VISITS] == 0:
                leaf = best
                break
            n = best
        # random rollout to the horizon m (frames) from the leaf
        g = 0.0
        if not nodes[leaf, N_TERMINAL] and nodes[leaf, N_DEPTH] < max_steps:
            work[:] = states[leaf]
            disc = 1.0
            for _ in range(max_steps - nodes[leaf, N_DEPTH]):
                r = _step(work, rom, fb, erng, acts[_rand(ctr) % na], ctr)
                g += disc * r
                disc *= gamma
                if ale_core.is_terminal(work):
                    break
        # back up: a node's sum holds returns counted from the transition into it
        node = leaf
        ret = vals[leaf, V_REWARD] + gamma * g if leaf != 0 else g
        while True:
            nodes[node, N_VISITS] += 1
            vals[node, V_SUM] += ret
            if node == 0:
                break
            node = nodes[node, N_PARENT]
            ret = (vals[node, V_REWARD] if node != 0 else 0.0) + gamma * ret
        sims += 1
    return sims


@njit(cache=True, nogil=True)
def reroot(nodes, vals, states, ctr, new_root):
    """Keep only ``new_root``'s subtree, renumbered in creation order (parents precede children, so every
    node moves down or stays and children stay contiguous). Returns the new node count."""
    total = ctr[C_NODES]
    remap = np.full(total, -1, np.int64)
    d0 = nodes[new_root, N_DEPTH]
    m = 0
    for i in range(new_root, total):
        if i == new_root or (nodes[i, N_PARENT] >= 0 and remap[nodes[i, N_PARENT]] >= 0):
            remap[i] = m
            if m != i:
                nodes[m, :] = nodes[i, :]
                vals[m, :] = vals[i, :]
                states[m, :] = states[i, :]
            m += 1
    for j in range(m):
        p = nodes[j, N_PARENT]
        nodes[j, N_PARENT] = -1 if j == 0 else remap[p]
        if nodes[j, N_COUNT] > 0:
            nodes[j, N_FIRST] = remap[nodes[j, N_FIRST]]
        nodes[j, N_DEPTH] -= d0
    vals[0, V_REWARD] = 0.0
    ctr[C_NODES] = m
    ctr[C_FULL] = 0
    return m


@njit(cache=True, nogil=True)
def bfs_search(nodes, vals, states, ctr, rom, fb, erng, acts, budget_frames, gamma, work, tmp, path, rams):
    """Expand nodes in breadth-first order while the emulated-frame budget allows a full expansion,
    then back values up: V(n) = r(n) + γ max_children V. Returns the number of nodes."""
    na = acts.shape[0]
    max_rows = states.shape[0]
    fskip = states[0, E_FRAMESKIP]
    q = 0
    while q < ctr[C_NODES]:
        if ctr[C_FRAMES] + na * fskip > budget_frames:
            break
        if not nodes[q, N_TERMINAL]:
            if q < max_rows:
                src = states[q]
            else:
                # replay from the nearest stored ancestor (paths are short: BFS stays shallow)
                k = 0
                a = q
                while a >= max_rows:
                    path[k] = acts[nodes[a, N_ACTION]]
                    k += 1
                    a = nodes[a, N_PARENT]
                work[:] = states[a]
                for i in range(k - 1, -1, -1):
                    _step(work, rom, fb, erng, path[i], ctr)
                src = work
            if not _expand(q, src, nodes, vals, states, ctr, rom, fb, erng, acts, tmp, rams):
                break
        q += 1
    for n in range(ctr[C_NODES] - 1, -1, -1):
        best = 0.0
        if nodes[n, N_COUNT] > 0:
            best = -np.inf
            for ci in range(nodes[n, N_FIRST], nodes[n, N_FIRST] + nodes[n, N_COUNT]):
                if vals[ci, V_VALUE] > best:
                    best = vals[ci, V_VALUE]
        vals[n, V_VALUE] = (vals[n, V_REWARD] if n != 0 else 0.0) + gamma * best
    return ctr[C_NODES]


def _apart(shape) -> np.ndarray:
    """Zeroed int64 scratch with 128 bytes of nothing on either side. Small arrays come from the heap one
    after another, so two root-parallel trees' states or counters could share a cache line, and the
    threads writing them would pass it back and forth on every emulated instruction."""
    n = int(np.prod(shape))
    return np.zeros(n + 32, np.int64)[16:16 + n].reshape(shape)


def _counters(seed_words) -> np.ndarray:
    """A search's counter row, its rollout RNG seeded from ``seed_words``."""
    ctr = _apart(N_CTR)
    ctr[C_RNG] = np.int64(np.random.default_rng(seed_words).integers(1, 2 ** 62))
    return ctr


class _Planner(BaseAgent):
    """Shared plumbing: scratch buffers, the env handle, per-action root statistics."""

    def __init__(self, env, seed: int = 0, gamma: float = 0.999):
        super().__init__(seed)
        self.env = env
        self.gamma = float(gamma)
        self.actions = env.action_set()
        self.ctr = _counters(seed)
        self.fb = env.console.fb.copy()
        self.work = _apart(N_STATE)
        self.tmp = _apart(N_STATE)
        self.rams = _apart((max(1, len(self.actions)), 128))
        self.last_frames = 0
        self.last_time = 0.0
        self._stop = False
        # the next decision's deadline (perf_counter seconds; None: the exact budget). The app sets it
        # before each decision when it keeps real time; a decision consumes it.
        self.next_deadline: float | None = None

    def attach(self, env) -> None:
        if env is not self.env:
            self.env = env
            self.fb = env.console.fb.copy()
            self._drop_tree()

    def _drop_tree(self) -> None:
        pass

    def _acts(self) -> np.ndarray:
        if self.rams.shape[0] < len(self.actions):  # the Runner may hand over a larger action set
            self.rams = _apart((len(self.actions), 128))
        if self.nodes.shape[0] < len(self.actions) + 1:
            raise ValueError(f"node table ({self.nodes.shape[0]}) too small for {len(self.actions)} actions")
        return np.asarray(self.actions, np.int64)

    def _root_children(self):
        n0 = self.nodes[0]
        if n0[N_COUNT] <= 0:
            return []
        return list(range(int(n0[N_FIRST]), int(n0[N_FIRST] + n0[N_COUNT])))

    def thoughts(self) -> Thoughts | None:
        if getattr(self, "nodes", None) is None:
            return None
        st = self.root_stats()
        return Thoughts("plan", list(st["actions"]), np.asarray(st["value"], float), np.asarray(st["visits"]))

    def root_stats(self) -> dict:
        """Per action of ``self.actions``: ``visits``, ``value`` (mean return, or BFS backed-up value) and
        ``same_as`` (index of the action whose child it duplicates, or its own index)."""
        na = len(self.actions)
        visits = np.zeros(na, np.int64)
        value = np.full(na, np.nan)
        same = np.arange(na)
        for c in self._root_children():
            mask, i = int(self.nodes[c, N_MASK]), int(self.nodes[c, N_ACTION])
            v = int(self.nodes[c, N_VISITS])
            val = self._child_value(c)
            for j in range(na):
                if mask >> j & 1:
                    visits[j], value[j], same[j] = v, val, i
        return {"actions": list(self.actions), "visits": visits, "value": value, "same_as": same}

    def _child_value(self, c) -> float:
        raise NotImplementedError

    def _trees(self):
        return [(self.nodes, self.ctr)]

    def abort(self) -> None:
        """End the running search at its next simulation, or the next one at its start when none is
        running yet (from another thread: the app calls this when it detaches the agent, possibly just as
        a decision begins). The compiled loops re-read the root's visit count (UCT) and the frame counter
        (BFS) every simulation; the flag covers a search whose tables are not set up yet."""
        self._stop = True
        for nodes, ctr in self._trees():
            nodes[0, N_VISITS] = 1 << 60
            ctr[C_FRAMES] = 1 << 60

    def _take_deadline(self) -> float | None:
        d, self.next_deadline = self.next_deadline, None
        return d

    def begin_episode(self, obs: Observation) -> int:
        self._drop_tree()
        return self.decide(deadline=self._take_deadline())

    def step(self, reward: float, obs: Observation) -> int:
        return self.decide(deadline=self._take_deadline())


class _Tree:
    """One search tree and the scratch it runs on (a worker's own: trees never share writable arrays)."""

    def __init__(self, cap: int, ctr: np.ndarray, fb: np.ndarray, work: np.ndarray, rams: np.ndarray):
        self.nodes = np.zeros((cap, N_COLS), np.int64)
        self.vals = np.zeros((cap, V_COLS), np.float64)
        self.states = np.zeros((cap, N_STATE), np.int64)
        self.ctr, self.fb, self.work, self.rams = ctr, fb, work, rams

    def make_room(self, rows: int, limit: int) -> None:
        """At least ``rows`` node rows (at most ``limit``), kept nodes copied over: an anytime search does
        not know its simulation count in advance. Called between chunks, never during a search."""
        cap = self.nodes.shape[0]
        if rows <= cap or cap >= limit:
            return
        new = min(limit, max(rows, 2 * cap))
        for name in ("nodes", "vals", "states"):
            old = getattr(self, name)
            grown = np.zeros((new, old.shape[1]), old.dtype)
            grown[:cap] = old
            setattr(self, name, grown)

    def child_for(self, action_index: int) -> int:
        """The root child that action ``action_index`` leads to (duplicates share one), or -1."""
        first, count = self.nodes[0, N_FIRST], self.nodes[0, N_COUNT]
        for c in range(first, first + max(0, count)):
            if self.nodes[c, N_MASK] >> action_index & 1:
                return int(c)
        return -1


class UCTAgent(_Planner):
    """UCT (Kocsis & Szepesvári 2006) as in ALE 2013: k simulations, m-frame horizon, UCB1 with c = 0.1,
    random rollouts, RAM-duplicate pruning, subtree reuse, most-visited root action.

    ``workers`` > 1 runs root-parallel UCT (Chaslot et al. 2008): that many independent trees, each
    seeded from (seed, worker) and given an equal share of the k simulations, are searched at once on
    their own threads (the compiled search releases the GIL); root visits and returns are summed over the
    trees. One worker is the sequential algorithm; a given (seed, workers) is reproducible."""

    name = "uct"

    def __init__(self, env, seed: int = 0, simulations: int = 500, depth_frames: int = 300,
                 exploration: float = 0.1, gamma: float = 0.999, reuse: bool = True, max_nodes: int = 16384,
                 budget: int | None = None, depth: int | None = None, workers: int = 1):
        super().__init__(env, seed, gamma)
        self.simulations = int(budget if budget is not None else simulations)
        self.depth_frames = int(depth if depth is not None else depth_frames)
        self.exploration = float(exploration)
        self.reuse = bool(reuse)
        self.max_nodes = int(max_nodes)
        self.workers = max(1, min(int(workers), max(1, self.simulations)))
        self._shares = [self.simulations // self.workers + (1 if w < self.simulations % self.workers else 0)
                        for w in range(self.workers)]
        na = max(1, len(self.actions))
        caps = [min(int(max_nodes), share * na + 1) for share in self._shares]
        # worker 0's tree runs on the agent's own scratch and seed (exactly a sequential UCT's)
        self.trees = [_Tree(caps[0], self.ctr, self.fb, self.work, self.rams)]
        self.trees += [_Tree(caps[w], _counters([seed, w]), self.fb.copy(), _apart(N_STATE), _apart((na, 128)))
                       for w in range(1, self.workers)]
        self.nodes, self.vals, self.states = self.trees[0].nodes, self.trees[0].vals, self.trees[0].states
        self._has_tree = False
        self._chosen = -1  # index into self.actions of the last decision's root child
        self.last_sims = 0
        self.reused = 0
        self._sim_s = [0.005] * self.workers  # per tree: recent seconds per simulation (anytime pacing)

    def attach(self, env) -> None:
        if env is not self.env:
            self.env = env
            for tree in self.trees:
                tree.fb = env.console.fb.copy()
            self.fb = self.trees[0].fb
            self._drop_tree()

    def _trees(self):
        return [(tree.nodes, tree.ctr) for tree in self.trees]

    def _acts(self) -> np.ndarray:
        for tree in self.trees:  # the Runner may hand over a larger action set
            if tree.rams.shape[0] < len(self.actions):
                tree.rams = _apart((len(self.actions), 128))
            if tree.nodes.shape[0] < len(self.actions) + 1:
                raise ValueError(f"node table ({tree.nodes.shape[0]}) too small for {len(self.actions)} actions")
        self.rams = self.trees[0].rams
        return np.asarray(self.actions, np.int64)

    def _drop_tree(self) -> None:
        self._has_tree = False
        self._chosen = -1

    def _root_totals(self) -> dict:
        """Root children summed over the trees, keyed by the index of the first action reaching them:
        [visits, return sum, action mask]."""
        out = {}
        for tree in self.trees:
            first, count = tree.nodes[0, N_FIRST], tree.nodes[0, N_COUNT]
            for c in range(first, first + max(0, count)):
                i = int(tree.nodes[c, N_ACTION])
                row = out.setdefault(i, [0, 0.0, 0])
                row[0] += int(tree.nodes[c, N_VISITS])
                row[1] += float(tree.vals[c, V_SUM])
                row[2] |= int(tree.nodes[c, N_MASK])
        return out

    def root_stats(self) -> dict:
        na = len(self.actions)
        visits = np.zeros(na, np.int64)
        value = np.full(na, np.nan)
        same = np.arange(na)
        for i, (v, total, mask) in self._root_totals().items():
            for j in range(na):
                if mask >> j & 1:
                    visits[j], value[j], same[j] = v, (total / v if v else np.nan), i
        return {"actions": list(self.actions), "visits": visits, "value": value, "same_as": same}

    def _search(self, w: int, s, rom, acts, steps, erng, deadline: float | None = None, fb=None) -> None:
        tree = self.trees[w]
        tree.ctr[C_FRAMES] = 0
        # the search runs on a copy of everything the machine may read
        tree.fb[:] = self.env.console.fb if fb is None else fb
        c = tree.child_for(self._chosen) if (self.reuse and self._has_tree and self._chosen >= 0) else -1
        # the machine state only: the slots after N_SNAPSHOT are this process's caches (the search's
        # undrawn frames fill some that the env's drawn frame leaves alone)
        if c > 0 and np.array_equal(tree.states[c, :N_SNAPSHOT], s[:N_SNAPSHOT]):
            reroot(tree.nodes, tree.vals, tree.states, tree.ctr, c)
            if w == 0:
                self.reused += 1
        else:
            init_root(tree.nodes, tree.vals, tree.states, tree.ctr, s)
        if self._stop:  # abort() arrived before this tree was set up
            tree.nodes[0, N_VISITS] = 1 << 60
        if deadline is not None:
            self._sims[w] = self._search_until(w, rom, acts, steps, erng.copy(), deadline)
            return
        self._sims[w] = int(uct_search(tree.nodes, tree.vals, tree.states, tree.ctr, rom, tree.fb, erng.copy(),
                                       acts, self._shares[w], steps, self.exploration, self.gamma, tree.work,
                                       tree.rams))

    def _search_until(self, w: int, rom, acts, steps, erng, deadline: float) -> int:
        """Anytime search of tree ``w``: chunks of simulations (each a call of the compiled search with a
        root-visit target a few above the current count, so the tree stays whole between chunks) while
        one more simulation is expected to end before ``deadline``; at least one unless aborted."""
        tree = self.trees[w]
        sims = 0
        while not self._stop:
            left = deadline - time.perf_counter()
            per_sim = self._sim_s[w]
            if sims and left < per_sim:
                break
            k = max(1, min(ANYTIME_CHUNK, int(0.5 * left / per_sim))) if sims else 1  # finer near the end
            tree.make_room(int(tree.ctr[C_NODES]) + k * len(acts) + 1, self.max_nodes)
            if w == 0:
                self.nodes, self.vals, self.states = tree.nodes, tree.vals, tree.states
            target = int(tree.nodes[0, N_VISITS]) + k
            if self._stop:  # an abort between the look at the flag and the target: its visits were overwritten
                break
            t0, f0 = time.perf_counter(), int(tree.ctr[C_FRAMES])
            done = int(uct_search(tree.nodes, tree.vals, tree.states, tree.ctr, rom, tree.fb, erng, acts, target,
                                  steps, self.exploration, self.gamma, tree.work, tree.rams))
            if done:
                # a running mean over a few chunks: rollouts vary with how soon games end
                self._sim_s[w] += 0.5 * ((time.perf_counter() - t0) / done - self._sim_s[w])
            sims += done
            if tree.ctr[C_FRAMES] == f0:  # nothing left to emulate (the game ends whatever is done): more
                break                     # simulations would only repeat the same backups
        return sims

    def decide(self, deadline: float | None = None, source=None) -> int:
        """The most visited root action after the exact budget (``simulations``, split over the trees), or,
        with ``deadline`` (a ``time.perf_counter()`` time), after searching every tree until then.
        ``source``: search from that env-like position instead of the agent's env (see the module notes)."""
        import threading

        env = self.env if source is None else source
        s = env.console.s
        t0 = time.perf_counter()
        steps = max(1, self.depth_frames // env.frames_per_act)
        acts = self._acts()
        erng = env.rng.copy()
        self._sims = [0] * self.workers
        errors = []

        def run(w):
            try:
                self._search(w, s, env.console.rom, acts, steps, erng, deadline, env.console.fb)
            except BaseException as e:  # noqa: BLE001 -- re-raised on the calling thread
                errors.append(e)

        threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in range(1, self.workers)]
        for th in threads:
            th.start()
        run(0)
        for th in threads:
            th.join()
        self._stop = False  # an abort ends one decision
        if errors:
            raise errors[0]
        self._has_tree = True
        self.last_sims = sum(self._sims)
        totals = self._root_totals()
        if not totals:
            self._chosen = -1
            a = int(self.rng.integers(len(self.actions)))
        else:
            # most visits; ties to the better mean, then the earlier action
            a = max(totals, key=lambda i: (totals[i][0], totals[i][1] / totals[i][0] if totals[i][0] else
                                           float("nan"), -i))
            self._chosen = a
        self.last_frames = int(sum(int(tree.ctr[C_FRAMES]) for tree in self.trees))
        self.last_time = time.perf_counter() - t0
        return int(self.actions[a])


class BFSAgent(_Planner):
    """Breadth-first search to a per-decision budget of emulated frames (paper: 133 000), values backed
    up as reward + γ·max over children; the root action with the best value (ties broken at random)."""

    name = "bfs"

    def __init__(self, env, seed: int = 0, frames: int = 133_000, gamma: float = 0.999, max_rows: int = 4096,
                 budget: int | None = None):
        super().__init__(env, seed, gamma)
        self.frames = int(budget if budget is not None else frames)
        fskip = env.frames_per_act
        cap = self.frames // fskip + len(self.actions) + 1
        self.nodes = np.zeros((cap, N_COLS), np.int64)
        self.vals = np.zeros((cap, V_COLS), np.float64)
        self.states = np.zeros((min(cap, int(max_rows)), N_STATE), np.int64)
        self.path = np.zeros(cap, np.int64)
        self._fps = 2000.0  # emulated frames per second of search, measured by anytime decisions

    def _child_value(self, c) -> float:
        return float(self.vals[c, V_VALUE])

    def decide(self, deadline: float | None = None, source=None) -> int:
        """The best root action after the exact frame budget, or, with ``deadline`` (a
        ``time.perf_counter()`` time), after as many frames (at most the budget) as this agent's measured
        emulation speed fits before it: a breadth-first search only has values once it stops, so it cannot
        be cut off by the clock and must be sized up front. ``source``: as for UCT."""
        env = self.env if source is None else source
        t0 = time.perf_counter()
        budget = self.frames
        if deadline is not None:
            one = len(self.actions) * env.frames_per_act  # a single expansion: the root's children
            budget = min(self.frames, max(one, int((deadline - t0) * self._fps)))
        self.ctr[C_FRAMES] = 0
        self.fb[:] = env.console.fb
        init_root(self.nodes, self.vals, self.states, self.ctr, env.console.s)
        if self._stop:  # abort() arrived before the search began
            self.ctr[C_FRAMES] = 1 << 60
        bfs_search(self.nodes, self.vals, self.states, self.ctr, env.console.rom, self.fb, env.rng.copy(),
                   self._acts(), budget, self.gamma, self.work, self.tmp, self.path, self.rams)
        self._stop = False  # an abort ends one decision
        kids = self._root_children()
        if not kids:
            a = int(self.rng.integers(len(self.actions)))
        else:
            v = np.array([self.vals[c, V_VALUE] for c in kids])
            top = [kids[i] for i in np.flatnonzero(v == v.max())]
            a = int(self.nodes[top[int(self.rng.integers(len(top)))], N_ACTION])
        self.last_frames = int(self.ctr[C_FRAMES])
        self.last_time = time.perf_counter() - t0
        if deadline is not None and self.last_frames < 1 << 59 and self.last_time > 0.002:
            self._fps += 0.5 * (self.last_frames / self.last_time - self._fps)
        return int(self.actions[a])
