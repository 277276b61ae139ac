"""The distribution functions evaluation uses (agents/evaluation/distributions.py) against SciPy's, over
the parameters evaluation meets (a handful to thousands of episodes, fractional Welch degrees of freedom)
and far into the tails."""
from __future__ import annotations

import math

import numpy as np
import pytest

from arcade_lab.agents.evaluation import distributions as D

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")


def _close(ours, theirs, rtol=1e-10):
    assert ours == pytest.approx(theirs, rel=rtol, abs=1e-300), (ours, theirs)


def test_incomplete_beta_equals_scipy_over_its_range():
    rng = np.random.default_rng(3)
    for _ in range(2000):
        a, b = np.exp(rng.uniform(np.log(0.05), np.log(5000), size=2))
        x = rng.uniform()
        _close(D.betainc(a, b, x), special.betainc(a, b, x), 1e-9)
        _close(D.betainc_upper(a, b, x), special.betaincc(a, b, x), 1e-9)
    assert D.betainc(2.0, 3.0, 0.0) == 0.0 and D.betainc(2.0, 3.0, 1.0) == 1.0


@pytest.mark.parametrize("df", [1, 2, 3.5, 9, 29, 99, 1000, 12.37])
def test_t_tail_and_quantile_equal_scipy(df):
    for t in (-40.0, -3.1, -0.5, 0.0, 0.2, 1.0, 2.2, 5.0, 12.0, 80.0):
        _close(D.t_sf(t, df), stats.t.sf(t, df))
    for q in (0.0005, 0.005, 0.025, 0.05, 0.5, 0.9, 0.95, 0.975, 0.995, 0.9995):
        _close(D.t_ppf(q, df), stats.t.ppf(q, df), 1e-12)
    assert D.t_sf(math.inf, df) == 0.0 and math.isnan(D.t_sf(math.nan, df))


def test_f_tail_equals_scipy():
    for dfn, dfd in ((1, 1), (2, 10), (4, 95), (17, 3), (30, 3000), (1.5, 7.25)):
        for f in (0.0, 0.01, 0.5, 1.0, 2.5, 10.0, 300.0):
            _close(D.f_sf(f, dfn, dfd), stats.f.sf(f, dfn, dfd))


def test_trimmed_mean_and_welch_equal_scipy():
    rng = np.random.default_rng(8)
    for n in (4, 5, 7, 30, 101):
        x = rng.normal(size=(6, n)) * 100
        np.testing.assert_allclose(D.trim_mean(x, 0.25, axis=1), stats.trim_mean(x, 0.25, axis=1), rtol=1e-13)
        assert D.trim_mean(x, 0.25) == pytest.approx(stats.trim_mean(x.ravel(), 0.25), rel=1e-13)
        a, b = x[0], rng.exponential(size=n + 3) * 50
        t, p = D.welch_t(a, b)
        r = stats.ttest_ind(a, b, equal_var=False)
        _close(t, r.statistic, 1e-12)
        _close(p, r.pvalue)
    with pytest.raises(ValueError, match="leaves none"):
        D.trim_mean([], 0.25)


def test_evaluation_statistics_need_no_scipy():
    """The desktop bundle leaves SciPy out: every statistic the app and reports compute runs without it."""
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "from arcade_lab.agents.evaluation import metrics, references\n"
            "m = np.arange(40.0).reshape(4, 10)\n"
            "print(metrics.iqm(m), round(metrics.welch([1.0, 2, 3, 4], [2.0, 3, 4, 9])[1], 4),\n"
            "      round(metrics.anova([[1.0, 2, 3], [4.0, 5, 7]])[1], 4), round(references.interval([1.0, 2, 4])[2], 4),\n"
            "      'scipy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    iqm, p_welch, p_anova, low, scipy_loaded = out.stdout.split()
    a, b = [1.0, 2, 3, 4], [2.0, 3, 4, 9]
    assert float(iqm) == 19.5 and scipy_loaded == "False"
    assert float(p_welch) == round(stats.ttest_ind(a, b, equal_var=False).pvalue, 4)
    assert float(p_anova) == round(stats.f_oneway([1.0, 2, 3], [4.0, 5, 7]).pvalue, 4)
    v = np.array([1.0, 2, 4])
    assert float(low) == round(v.mean() - stats.t.ppf(0.995, 2) * v.std(ddof=1) / np.sqrt(3), 4)  # 99 %
