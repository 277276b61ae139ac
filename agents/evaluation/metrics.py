"""Scores across games: normalisation, aggregates with bootstrap CIs, distributions, paired tests, separability.

Definitions and where they come from:
  normalise(s, lo, hi) = (s - lo) / (hi - lo)                    ALE 2013 Sec. 4.1 (z_g,i)
  random-normalised    = s / r_random        (range [0, r_random])  ALE 2013 Sec. 4.1.1 (reference score)
  human-normalised     = (s - r_random) / (r_human - r_random)      Mnih et al. 2015
  baseline-normalised  = range of the 37 baseline policies' scores  ALE 2013 Sec. 4.1.2
  inter-algorithm      = range of the compared algorithms' scores   ALE 2013 Sec. 4.1.3
  score distribution   = fraction of games with normalised score >= x   ALE 2013 Sec. 4.2.2 (Fig. 4)
  Agarwal et al. 2021 (rliable 1.2), on a (runs, games) matrix of normalised scores:
    mean / median      = mean / median over games of each game's mean over runs
    IQM                = mean of the middle 50% of all run × game scores (25% cut on each side)
    optimality gap     = gamma - mean over all scores of min(score, gamma), gamma = 1
    P(X > Y)           = per game, P(x > y) over all run pairs with ties counted half; mean over games
    performance profile = per game, fraction of runs with score > tau; mean over games
    intervals          = stratified bootstrap: runs resampled with replacement within each game; percentile
  Welch's t-test, two-tailed, 99%: win/tie/loss per game            ALE 2013 Sec. 4.3 (Table 3)
  separability (3 criteria, BH across games)                        AtariBench 2026 Sec. 4.2
  Machado score: mean of the last 100 episodes up to a frame threshold   Machado et al. 2018 Sec. 6.1
A range of zero (hi == lo) gives NaN: that game says nothing about the agent and aggregates skip it.
"""
from __future__ import annotations

import csv
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from .distributions import f_sf, trim_mean, welch_t

REFERENCE_FILE = Path(__file__).resolve().parents[2] / "resources" / "reference_scores.csv"


# -- normalisation ------------------------------------------------------------------------------------
def normalise(score, lo, hi):
    """(score - lo) / (hi - lo), NaN where the range is empty."""
    score, lo, hi = np.asarray(score, float), np.asarray(lo, float), np.asarray(hi, float)
    rng = hi - lo
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rng != 0, (score - lo) / np.where(rng != 0, rng, 1.0), np.nan)


def random_normalised(score, random_score):
    return normalise(score, 0.0, random_score)


def human_normalised(score, random_score, human_score):
    return normalise(score, random_score, human_score)


def baseline_range(baseline_means: Mapping[str, float]) -> tuple[float, float]:
    """(min, max) over the baseline policies' mean scores on one game."""
    v = np.asarray(list(baseline_means.values()), float)
    return float(v.min()), float(v.max())


def baseline_normalised(score, baseline_means: Mapping[str, float]):
    lo, hi = baseline_range(baseline_means)
    return normalise(score, lo, hi)


def inter_algorithm(means: Mapping[str, float]) -> dict[str, float]:
    """Each algorithm's mean mapped onto [0, 1] by the worst and best of the compared set (one game).
    When all tie no algorithm is better: every one gets NaN (skipped by aggregates)."""
    lo, hi = baseline_range(means)
    return {k: float(normalise(v, lo, hi)) for k, v in means.items()}


@dataclass(frozen=True)
class Reference:
    game: str
    random: float
    human: float
    source: str


def load_references(path=REFERENCE_FILE) -> dict[str, Reference]:
    out = {}
    with open(path, newline="", encoding="utf-8") as f:
        rows = (line for line in f if not line.startswith("#"))
        for r in csv.DictReader(rows):
            out[r["game"]] = Reference(r["game"], float(r["random"]), float(r["human"]), r["source"])
    return out


# -- Machado 2018 -------------------------------------------------------------------------------------
def machado_score(episode_frames: Sequence[int], episode_scores: Sequence[float], threshold: int,
                  last_n: int = 100) -> float:
    """Mean score of the last ``last_n`` episodes up to ``threshold`` training frames, *including the
    episode in which the total is exceeded* (Sec. 6.1). NaN when there are no episodes."""
    frames = np.cumsum(np.asarray(episode_frames, dtype=np.int64))
    scores = np.asarray(episode_scores, float)
    if scores.size == 0:
        return float("nan")
    # index of the first episode whose cumulative total reaches/exceeds the threshold (inclusive)
    k = int(np.searchsorted(frames, threshold, side="left"))
    upto = scores[: min(k + 1, scores.size)]
    return float(upto[-last_n:].mean())


# -- aggregates (rliable's definitions) ---------------------------------------------------------------
def _games_matrix(matrix) -> np.ndarray:
    """A (runs, games) float matrix without the games whose every score is NaN (empty normalisation range).
    One-dimensional input is the runs of one game, as in rliable."""
    m = np.asarray(matrix, float)
    if m.ndim == 1:
        m = m[:, None]
    if m.ndim != 2:
        raise ValueError(f"scores must be a (runs, games) matrix; got an array of shape {m.shape}")
    return m[:, ~np.all(np.isnan(m), axis=0)]


def aggregate_mean(matrix) -> float:
    """Mean over games of each game's mean over runs."""
    m = _games_matrix(matrix)
    return float(np.mean(np.nanmean(m, axis=0))) if m.size else float("nan")


def aggregate_median(matrix) -> float:
    """Median over games of each game's mean over runs (not the median of all run × game cells)."""
    m = _games_matrix(matrix)
    return float(np.median(np.nanmean(m, axis=0))) if m.size else float("nan")


def iqm(matrix) -> float:
    """Interquartile mean of all run × game scores: the trimmed mean with 25% cut on each side."""
    x = np.asarray(matrix, float).ravel()
    x = x[~np.isnan(x)]
    return float(trim_mean(x, 0.25)) if x.size else float("nan")


def optimality_gap(matrix, gamma: float = 1.0) -> float:
    """How far all run × game scores fall short of ``gamma``: gamma - mean(min(score, gamma))."""
    x = np.asarray(matrix, float).ravel()
    x = x[~np.isnan(x)]
    return float(gamma - np.mean(np.minimum(x, gamma))) if x.size else float("nan")


AGGREGATES: dict[str, Callable] = {"median": aggregate_median, "iqm": iqm, "mean": aggregate_mean,
                                   "optimality gap": optimality_gap}

# the same statistics over a (replicates, runs, games) stack in one numpy call each: reports bootstrap
# dozens of agents, and a Python loop over thousands of replicates dominates their time
_VECTORISED = {
    aggregate_mean: lambda b: b.mean(axis=1).mean(axis=1),
    aggregate_median: lambda b: np.median(b.mean(axis=1), axis=1),
    iqm: lambda b: trim_mean(b.reshape(len(b), -1), 0.25, axis=1),
    optimality_gap: lambda b: 1.0 - np.minimum(b, 1.0).reshape(len(b), -1).mean(axis=1),
}


def _resampled(m: np.ndarray, reps: int, rng) -> np.ndarray:
    """(reps, runs, games): every replicate draws each game's runs with replacement from that game only
    (the strata), so each game keeps its weight — rliable's recipe for few runs on many games."""
    n, g = m.shape
    return m[rng.integers(0, n, size=(reps, n, g)), np.arange(g)]


def _interval(boots: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval over the replicates (axis 0)."""
    if not 0 < level < 1:
        raise ValueError(f"confidence level must lie strictly between 0 and 1; got {level}")
    a = (1 - level) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a statistic NaN in every replicate stays NaN
        lo, hi = np.nanquantile(boots, [a, 1 - a], axis=0)
    return lo, hi


def stratified_bootstrap_ci(matrix, stat: Callable = iqm, reps: int = 2000, level: float = 0.95,
                            seed: int = 0) -> tuple[float, float, float]:
    """(point, low, high) of ``stat`` over a (runs, games) matrix of normalised scores; ``stat`` receives
    a (runs, games) matrix. Stratified bootstrap, percentile interval; games whose column is all NaN are
    left out, and a single run gives no interval."""
    m = _games_matrix(matrix)
    n, g = m.shape
    point = stat(m)
    if n < 2 or g == 0:
        return point, float("nan"), float("nan")
    b = _resampled(m, reps, np.random.default_rng(seed))
    vec = _VECTORISED.get(stat)
    boots = vec(b) if vec is not None and not np.isnan(b).any() else np.array([stat(x) for x in b])
    lo, hi = _interval(boots, level)
    return point, float(lo), float(hi)


# -- performance profiles -----------------------------------------------------------------------------
def score_distribution(per_game: Sequence[float], xs: Sequence[float]) -> np.ndarray:
    """Fraction of games whose (normalised) score is >= x, for each x (NaN games excluded)."""
    v = np.asarray(per_game, float)
    v = v[~np.isnan(v)]
    xs = np.asarray(xs, float)
    if v.size == 0:
        return np.full(xs.shape, np.nan)
    return (v[None, :] >= xs[:, None]).mean(axis=1)


def _profiles(b: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """(reps, taus) profiles of a (reps, runs, games) stack: per game the fraction of its (non-NaN) runs
    above tau, averaged over games."""
    if not np.isnan(b).any():
        # every game has all its runs: the mean over games of per-game fractions is the fraction of all
        # scores, read off each replicate's sorted scores
        flat = np.sort(b.reshape(len(b), -1), axis=1)
        n = flat.shape[1]
        return np.stack([(n - np.searchsorted(row, taus, side="right")) / n for row in flat])
    valid = (~np.isnan(b)).sum(axis=1)
    out = np.empty((len(b), taus.size))
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)   # a resampled game with no valid run is skipped
        for i, t in enumerate(taus):
            out[:, i] = np.nanmean((b > t).sum(axis=1) / valid, axis=1)
    return out


def performance_profile(matrix, taus: Sequence[float]) -> np.ndarray:
    """Fraction of runs with score strictly above tau, averaged over games (rliable's score distribution,
    ``create_performance_profile``), for each tau."""
    m = _games_matrix(matrix)
    taus = np.asarray(taus, float)
    if m.size == 0:
        return np.full(taus.shape, np.nan)
    return _profiles(m[None], taus)[0]


def performance_profile_ci(matrix, taus: Sequence[float], reps: int = 2000, level: float = 0.95,
                           seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(profile, low, high) at each tau: the profile and its stratified bootstrap band."""
    m = _games_matrix(matrix)
    taus = np.asarray(taus, float)
    point = performance_profile(m, taus)
    if m.shape[0] < 2 or m.shape[1] == 0:
        return point, np.full(taus.shape, np.nan), np.full(taus.shape, np.nan)
    lo, hi = _interval(_profiles(_resampled(m, reps, np.random.default_rng(seed)), taus), level)
    return point, lo, hi


# -- probability of improvement -----------------------------------------------------------------------
def _paired(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Two (runs, games) matrices over the same games, without the games either has no score on."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    x, y = (x[:, None] if x.ndim == 1 else x), (y[:, None] if y.ndim == 1 else y)
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1]:
        raise ValueError(f"probability of improvement needs (runs, games) matrices over the same games; "
                         f"got shapes {x.shape} and {y.shape}")
    keep = ~(np.all(np.isnan(x), axis=0) | np.all(np.isnan(y), axis=0))
    return x[:, keep], y[:, keep]


def _improvement(x: np.ndarray, y: np.ndarray, wx: np.ndarray, wy: np.ndarray) -> np.ndarray:
    """P(X > Y) for each (reps,) row of run weights wx (reps, games, runs_x) and wy (reps, games, runs_y):
    per game the weighted share of run pairs with x > y, ties counted half, then the mean over games.
    NaN runs weigh nothing (their comparisons are False and their weights zeroed)."""
    xt, yt = x.T[:, :, None], y.T[:, None, :]
    wins = (xt > yt) + 0.5 * (xt == yt)                       # (games, runs_x, runs_y)
    wx, wy = wx * ~np.isnan(x.T), wy * ~np.isnan(y.T)
    # per game a batched matrix product (BLAS): (games, reps, runs_x) @ (games, runs_x, runs_y)
    num = (np.matmul(wx.transpose(1, 0, 2), wins) * wy.transpose(1, 0, 2)).sum(axis=2).T
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(num / (wx.sum(axis=2) * wy.sum(axis=2)), axis=1)


def probability_of_improvement(x, y) -> float:
    """P(X > Y): per game, the probability that a run of X scores above a run of Y (ties count half,
    the Mann–Whitney U over nx·ny), averaged over the games; x (runs_x, games), y (runs_y, games)."""
    x, y = _paired(x, y)
    if x.shape[1] == 0:
        return float("nan")
    return float(_improvement(x, y, np.ones((1, *x.T.shape)), np.ones((1, *y.T.shape)))[0])


def _run_counts(rng, reps: int, games: int, runs: int) -> np.ndarray:
    """(reps, games, runs): how often each run is drawn when a game's runs are resampled with replacement."""
    idx = rng.integers(0, runs, size=(reps, games, runs))
    idx += runs * np.arange(reps * games).reshape(reps, games, 1)
    return np.bincount(idx.ravel(), minlength=reps * games * runs).reshape(reps, games, runs).astype(float)


def probability_of_improvement_ci(x, y, reps: int = 2000, level: float = 0.95, seed: int = 0
                                  ) -> tuple[float, float, float]:
    """(point, low, high) of P(X > Y); each replicate resamples X's and Y's runs independently within
    every game (rliable's StratifiedIndependentBootstrap). Resampling runs only reweights the fixed
    pairwise comparisons, so replicates are weight products, not new comparisons."""
    x, y = _paired(x, y)
    point = probability_of_improvement(x, y)
    g = x.shape[1]
    if g == 0 or max(x.shape[0], y.shape[0]) < 2:
        return point, float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    boots = _improvement(x, y, _run_counts(rng, reps, g, x.shape[0]), _run_counts(rng, reps, g, y.shape[0]))
    lo, hi = _interval(boots, level)
    return point, float(lo), float(hi)


# -- paired tests (ALE 2013 Table 3) ------------------------------------------------------------------
def welch(a, b) -> tuple[float, float]:
    """Two-tailed Welch's t-test: (t, p). Degenerate samples (both constant) are decided exactly:
    different constants differ with certainty (p = 0), equal ones do not (p = 1)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.size < 2 or b.size < 2:
        return float("nan"), float("nan")
    if a.var() == 0 and b.var() == 0:
        d = a.mean() - b.mean()
        return (math.copysign(math.inf, d), 0.0) if d else (0.0, 1.0)
    return welch_t(a, b)


def compare(a, b, alpha: float = 0.01) -> str:
    """"win" if A's mean is significantly higher (two-tailed Welch, level 1 - alpha), "loss" if lower, else "tie"."""
    t, p = welch(a, b)
    if p != p or p >= alpha:
        return "tie"
    return "win" if np.mean(a) > np.mean(b) else "loss"


def win_tie_loss(scores: Mapping[str, Mapping[str, Sequence[float]]], alpha: float = 0.01
                 ) -> dict[tuple[str, str], tuple[int, int, int]]:
    """{(A, B): (wins, ties, losses) of A against B over the games both played}; scores[agent][game]."""
    agents = list(scores)
    out = {}
    for a in agents:
        for b in agents:
            if a == b:
                continue
            w = t = l = 0
            for g in set(scores[a]) & set(scores[b]):
                r = compare(scores[a][g], scores[b][g], alpha)
                w, t, l = w + (r == "win"), t + (r == "tie"), l + (r == "loss")
            out[(a, b)] = (w, t, l)
    return out


# -- AtariBench separability --------------------------------------------------------------------------
def cohens_d(a, b) -> float:
    """(mean a - mean b) / pooled SD (ddof 1). ±inf when both samples are constant and differ."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    na, nb = a.size, b.size
    diff = a.mean() - b.mean()
    if na + nb <= 2:
        return float("nan")
    va = a.var(ddof=1) if na > 1 else 0.0
    vb = b.var(ddof=1) if nb > 1 else 0.0
    sp = math.sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2))
    if sp == 0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return float(diff / sp)


def anova(groups: Sequence[Sequence[float]]) -> tuple[float, float, float]:
    """One-way ANOVA: (F, p, eta²) with eta² = SS_between / SS_total. Same F and p as SciPy's f_oneway;
    written out so constant groups give a decided answer instead of a warning and NaN."""
    gs = [np.asarray(g, float) for g in groups if len(g)]
    allv = np.concatenate(gs)
    k, n = len(gs), allv.size
    grand = allv.mean()
    ss_b = float(sum(g.size * (g.mean() - grand) ** 2 for g in gs))
    ss_w = float(sum(((g - g.mean()) ** 2).sum() for g in gs))
    ss_t = ss_b + ss_w
    eta2 = ss_b / ss_t if ss_t > 0 else 0.0
    if k < 2 or n <= k:
        return float("nan"), float("nan"), eta2
    df_b, df_w = k - 1, n - k
    if ss_w == 0:
        return (math.inf, 0.0, eta2) if ss_b > 0 else (float("nan"), 1.0, eta2)
    f = (ss_b / df_b) / (ss_w / df_w)
    return float(f), f_sf(f, df_b, df_w), eta2


def benjamini_hochberg(p) -> np.ndarray:
    """BH-adjusted p-values (q-values): q_(i) = min_{j>=i} p_(j) m / j, capped at 1. NaN stays NaN."""
    p = np.asarray(p, float)
    q = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    v = p[ok]
    m = v.size
    if m == 0:
        return q
    order = np.argsort(v)
    ranked = v[order] * m / np.arange(1, m + 1)
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(ranked, 1.0)
    q[ok] = out
    return q


@dataclass
class Separability:
    game: str
    best: str
    d_best: float
    p_best: float
    q_best: float
    d_quartile: float
    gap_quartile: float
    p_anova: float
    q_anova: float
    eta2: float
    criteria: tuple[bool, bool, bool]

    @property
    def label(self) -> str:
        n = sum(self.criteria)
        return "strongly separable" if n >= 2 else ("weakly separable" if n == 1 else "not separable")


def separability(scores: Mapping[str, Mapping[str, Sequence[float]]], random: str = "random",
                 d_min: float = 0.8, eta2_min: float = 0.14, q_max: float = 0.05) -> list[Separability]:
    """AtariBench Sec. 4.2 for every game that ``random`` and at least one other setting played.

    1. best non-random setting (highest mean) vs random: gap > 0, Cohen's d >= 0.8, two-group ANOVA q < 0.05;
    2. top vs bottom quarter of the non-random settings (ceil(N/4) each, runs pooled): gap > 0, d >= 0.8;
    3. one-way ANOVA over all settings including random: q < 0.05 and eta² >= 0.14.
    q: Benjamini–Hochberg across games, separately for criteria 1 and 3."""
    games = sorted({g for a in scores.values() for g in a})
    rows = []
    for g in games:
        if random not in scores or g not in scores[random]:
            continue
        settings = {a: np.asarray(s[g], float) for a, s in scores.items() if g in s and a != random}
        if not settings:
            continue
        rnd = np.asarray(scores[random][g], float)
        ranked = sorted(settings, key=lambda a: settings[a].mean(), reverse=True)
        best = ranked[0]
        d1 = cohens_d(settings[best], rnd)
        _, p1, _ = anova([settings[best], rnd])
        k = math.ceil(len(ranked) / 4)
        top = np.concatenate([settings[a] for a in ranked[:k]])
        bot = np.concatenate([settings[a] for a in ranked[-k:]])
        gap_q = float(top.mean() - bot.mean())
        d2 = cohens_d(top, bot) if len(ranked) > 1 else 0.0
        _, p3, eta2 = anova([rnd] + [settings[a] for a in ranked])
        rows.append(Separability(g, best, d1, p1, float("nan"), d2, gap_q, p3, float("nan"), eta2,
                                 (False, False, False)))
    q1 = benjamini_hochberg([r.p_best for r in rows])
    q3 = benjamini_hochberg([r.p_anova for r in rows])
    for r, a, b in zip(rows, q1, q3):
        r.q_best, r.q_anova = float(a), float(b)
        gap1 = float(np.mean(scores[r.best][r.game]) - np.mean(scores[random][r.game]))
        c1 = gap1 > 0 and r.d_best >= d_min and r.q_best < q_max
        c2 = r.gap_quartile > 0 and r.d_quartile >= d_min
        c3 = r.q_anova < q_max and r.eta2 >= eta2_min
        r.criteria = (bool(c1), bool(c2), bool(c3))
    return rows
