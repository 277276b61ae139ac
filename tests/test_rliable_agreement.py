"""Our aggregates, probability of improvement and performance profiles against rliable itself.

Point estimates must equal rliable's to 1e-9 on random (runs, games) matrices of several shapes. Bootstrap
intervals cannot equal rliable's (another random stream), so they are checked for shape, order, range,
reproducibility and narrowing with more runs, and, where ``rliable.library`` imports, for closeness to its
intervals on the same matrix.
"""
from __future__ import annotations

import numpy as np
import pytest
from rliable import metrics as R

from arcade_lab.agents.evaluation import metrics as M

SHAPES = [(1, 1), (1, 6), (4, 1), (2, 3), (5, 12), (10, 57), (31, 4)]
TOL = 1e-9


def _library():
    """rliable.library, or a skip saying why it does not import (it needs arch < 8, which fails to import
    under pandas 3)."""
    try:
        from rliable import library
    except Exception as e:   # noqa: BLE001 - any import failure of a third-party module means: cannot compare
        pytest.skip(f"rliable.library does not import here: {type(e).__name__}: {e}")
    return library


def _matrices(shape, seed):
    """A continuous, a heavy-tailed and a heavily tied matrix (ties exercise the half-counting)."""
    rng = np.random.default_rng(seed)
    return [rng.normal(0.8, 0.6, shape), rng.standard_cauchy(shape), rng.integers(-1, 3, shape).astype(float)]


@pytest.mark.parametrize("shape", SHAPES)
def test_aggregates_equal_rliable(shape):
    for i, m in enumerate(_matrices(shape, seed=sum(shape))):
        ours = [M.aggregate_median(m), M.iqm(m), M.aggregate_mean(m), M.optimality_gap(m)]
        theirs = [R.aggregate_median(m), R.aggregate_iqm(m), R.aggregate_mean(m), R.aggregate_optimality_gap(m)]
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOL, err_msg=f"{shape} matrix {i}")
        for gamma in (0.5, 2.0):
            assert abs(M.optimality_gap(m, gamma) - R.aggregate_optimality_gap(m, gamma)) <= TOL
        # the report's table of aggregates is these very functions
        np.testing.assert_allclose([M.AGGREGATES[k](m) for k in ("median", "iqm", "mean", "optimality gap")],
                                   theirs, rtol=0, atol=TOL)


def test_median_is_over_game_means_like_rliable():
    # five runs of twelve games with game-dependent levels: the cells' median and the median of game means
    # differ, and only the latter is rliable's
    rng = np.random.default_rng(12)
    m = rng.gamma(2.0, 0.5, (5, 12)) * rng.uniform(0.2, 3.0, 12)
    assert abs(np.median(m) - R.aggregate_median(m)) > 0.01
    assert abs(M.AGGREGATES["median"](m) - R.aggregate_median(m)) <= TOL


@pytest.mark.parametrize("shape", SHAPES)
def test_probability_of_improvement_equals_rliable(shape):
    rng = np.random.default_rng(100 + sum(shape))
    for x in _matrices(shape, seed=sum(shape)):
        for y in (x + rng.normal(0, 0.3, x.shape), np.round(x[::-1]), x.copy(),
                  rng.normal(0.5, 1.0, (shape[0] + 3, shape[1]))):   # another number of runs
            assert abs(M.probability_of_improvement(x, y) - R.probability_of_improvement(x, y)) <= TOL
            assert abs(M.probability_of_improvement(y, x) - R.probability_of_improvement(y, x)) <= TOL


def _rliable_profile(scores, taus):
    # rliable's score distribution (library.run_score_deviation, vectorised over tau): np.mean(scores > tau)
    return np.array([np.mean(scores > t) for t in taus])


@pytest.mark.parametrize("shape", SHAPES)
def test_performance_profile_equals_rliable_definition(shape):
    for m in _matrices(shape, seed=7 * sum(shape)):
        taus = np.concatenate([np.linspace(-2, 3, 37), np.unique(m)])   # thresholds on the scores themselves
        np.testing.assert_allclose(M.performance_profile(m, taus), _rliable_profile(m, taus), rtol=0, atol=TOL)


@pytest.mark.parametrize("shape", [(5, 12), (3, 7), (20, 2)])
def test_performance_profile_equals_rliable_library(shape):
    library = _library()
    m = np.random.default_rng(3).normal(1.0, 1.0, shape)
    taus = np.linspace(-1, 3, 41)
    np.random.seed(0)   # rliable's bootstrap draws from numpy's global generator
    prof, _ = library.create_performance_profile({"a": m}, taus, reps=200)
    np.testing.assert_allclose(M.performance_profile(m, taus), prof["a"], rtol=0, atol=TOL)


def test_intervals_are_close_to_rliables():
    library = _library()
    rng = np.random.default_rng(5)
    x, y = rng.normal(1.0, 1.0, (5, 12)), rng.normal(0.8, 1.0, (7, 12))
    reps = 1500
    np.random.seed(0)
    _, ci = library.get_interval_estimates(
        {"x": x}, lambda s: np.array([R.aggregate_median(s), R.aggregate_iqm(s), R.aggregate_mean(s),
                                      R.aggregate_optimality_gap(s)]), reps=reps)
    ours = np.array([M.stratified_bootstrap_ci(x, fn, reps=reps)[1:] for fn in M.AGGREGATES.values()]).T
    np.testing.assert_allclose(ours, ci["x"], atol=0.03)
    _, ci = library.get_interval_estimates({"xy": [x, y]}, R.probability_of_improvement, reps=reps)
    np.testing.assert_allclose(M.probability_of_improvement_ci(x, y, reps=reps)[1:], ci["xy"][:, 0], atol=0.03)
    taus = np.linspace(-1, 3, 21)
    _, ci = library.create_performance_profile({"x": x}, taus, reps=reps)
    _, lo, hi = M.performance_profile_ci(x, taus, reps=reps)
    np.testing.assert_allclose(np.stack([lo, hi]), ci["x"], atol=0.05)


# -- intervals: sane and reproducible ----------------------------------------------------------------------
def _all_intervals(x, y, taus, seed):
    aggs = [M.stratified_bootstrap_ci(x, fn, reps=500, seed=seed) for fn in M.AGGREGATES.values()]
    return aggs, M.probability_of_improvement_ci(x, y, reps=500, seed=seed), \
        M.performance_profile_ci(x, taus, reps=500, seed=seed)


@pytest.mark.parametrize("shape", [(2, 1), (5, 12), (10, 57)])
def test_intervals_are_ordered_bounded_and_reproducible(shape):
    rng = np.random.default_rng(sum(shape))
    x, y = rng.normal(1.0, 0.8, shape), rng.normal(0.7, 0.8, (shape[0] + 1, shape[1]))
    taus = np.linspace(-1, 3, 17)
    aggs, poi, (prof, lo, hi) = _all_intervals(x, y, taus, seed=4)
    for name, (pt, a, b) in zip(M.AGGREGATES, aggs):
        assert a <= b, name
        if name != "optimality gap":           # location statistics stay within the data
            assert x.min() <= a and b <= x.max(), name
    assert abs(aggs[0][0] - R.aggregate_median(x)) <= TOL
    assert 0 <= poi[1] <= poi[2] <= 1 and poi[0] == pytest.approx(R.probability_of_improvement(x, y), abs=TOL)
    assert prof.shape == lo.shape == hi.shape == taus.shape
    assert np.all((0 <= lo) & (lo <= hi) & (hi <= 1))
    assert np.all(np.diff(lo) <= 1e-12) and np.all(np.diff(hi) <= 1e-12)   # bands fall as tau rises
    # the same seed gives the same intervals; another seed gives other ones
    again = _all_intervals(x, y, taus, seed=4)
    assert again[0] == aggs and again[1] == poi
    for u, v in zip(again[2], (prof, lo, hi)):
        np.testing.assert_array_equal(u, v)
    if shape[0] > 2:   # two runs of one game have too few distinct resamples to tell seeds apart
        assert _all_intervals(x, y, taus, seed=5)[0] != aggs


def test_intervals_narrow_with_more_runs_and_cover_the_truth():
    rng = np.random.default_rng(9)
    levels = rng.uniform(0.0, 2.0, 10)   # each game's true mean
    few, many = (levels + rng.normal(0, 1.0, (n, 10)) for n in (4, 100))
    for fn in (M.aggregate_mean, M.iqm, M.aggregate_median):
        _, a4, b4 = M.stratified_bootstrap_ci(few, fn, reps=1000, seed=1)
        _, a100, b100 = M.stratified_bootstrap_ci(many, fn, reps=1000, seed=1)
        assert b100 - a100 < (b4 - a4) / 2
    _, a, b = M.stratified_bootstrap_ci(many, M.aggregate_mean, reps=1000, seed=1)
    assert a <= levels.mean() <= b
    _, a, b = M.stratified_bootstrap_ci(many, M.aggregate_median, reps=1000, seed=1)
    assert a <= np.median(levels) <= b
    # a shift of +0.5 in every game: P(X > Y) for unit-variance normals is Phi(0.5 / sqrt 2) ~ 0.638
    _, a, b = M.probability_of_improvement_ci(many + 0.5, levels + rng.normal(0, 1.0, (100, 10)), reps=1000)
    assert a <= 0.638 <= b and b - a < 0.1


def test_interval_input_errors():
    m = np.ones((3, 2))
    with pytest.raises(ValueError, match="confidence level"):
        M.stratified_bootstrap_ci(m, M.iqm, level=95)
    with pytest.raises(ValueError, match="same games"):
        M.probability_of_improvement_ci(m, np.ones((3, 3)))
    # one run on each side: nothing to resample
    pt, a, b = M.probability_of_improvement_ci(m[:1], m[:1] * 2)
    assert pt == 0.0 and np.isnan(a) and np.isnan(b)


# -- the report's figures ------------------------------------------------------------------------------------
def test_report_figures_equal_rliable(tmp_path):
    """`arcade-lab report` writes rliable's numbers: checked on the inter-algorithm normalisation, which
    depends on nothing but the run (each game scaled by the worst and best agent's mean)."""
    import csv

    from arcade_lab.agents.evaluation import report as REP

    rng = np.random.default_rng(21)
    games = [f"game{i:02d}" for i in range(12)]
    rd = REP.RunData(name="synthetic", protocol="synthetic", spec={})
    for agent, level in (("alpha", 30.0), ("beta", 20.0), ("gamma", 12.0)):
        rd.samples[agent] = {g: rng.normal(level * (1 + i), 15.0, 5) for i, g in enumerate(games)}
    html = REP.build(rd, tmp_path, reps=300, seed=2).read_text(encoding="utf-8")

    means = rd.means()
    lo = {g: min(means[a][g] for a in rd.agents) for g in games}
    hi = {g: max(means[a][g] for a in rd.agents) for g in games}
    mat = {a: np.stack([(rd.samples[a][g] - lo[g]) / (hi[g] - lo[g]) for g in games], axis=1) for a in rd.agents}

    def rows(name):
        with open(tmp_path / name, newline="", encoding="utf-8") as f:
            return [r for r in csv.DictReader(f) if r["kind"] == "inter-algorithm"]

    theirs = {"median": R.aggregate_median, "iqm": R.aggregate_iqm, "mean": R.aggregate_mean,
              "optimality gap": R.aggregate_optimality_gap}
    agg = rows("aggregates.csv")
    assert {(r["agent"], r["statistic"]) for r in agg} == {(a, s) for a in rd.agents for s in theirs}
    for r in agg:
        assert abs(float(r["value"]) - theirs[r["statistic"]](mat[r["agent"]])) <= TOL, r
        assert float(r["ci_low"]) <= float(r["ci_high"])
    poi = rows("probability_of_improvement.csv")
    assert {(r["agent"], r["versus"]) for r in poi} == {("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")}
    for r in poi:
        p = R.probability_of_improvement(mat[r["agent"]], mat[r["versus"]])
        assert abs(float(r["probability"]) - p) <= TOL and float(r["ci_low"]) <= p <= float(r["ci_high"]), r
    prof = rows("performance_profiles.csv")
    assert len(prof) == 3 * 101
    for r in prof:
        assert abs(float(r["fraction"]) - np.mean(mat[r["agent"]] > float(r["tau"]))) <= TOL
        assert 0 <= float(r["ci_low"]) <= float(r["ci_high"]) <= 1
    # the profile is drawn with its band, and the page shows every figure
    # (the synthetic games have no reference scores, so inter-algorithm is the only normalisation)
    assert html.count('class="band"') == 3
    for text in ("Performance profile (inter-algorithm, 95% CI)", "optimality gap", "P(alpha &gt; agent)",
                 "Probability of improvement"):
        assert text in html, text
