"""The Scores dock's refresh runs on the GUI thread: the first one after an agent's episode lands must not
import SciPy (a third of a second or more with the GIL held, which stalls the emulator thread and the view
too). Normalising scores loads agents.evaluation.metrics, which imports SciPy only when a statistic needs it."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest


def test_normalising_scores_does_not_import_scipy():
    code = ("import sys, numpy as np\n"
            "from arcade_lab.app.panels.scores import normalise\n"
            "h = normalise(np.array([5.0, 25.0]), (5.0, 45.0), 'human')\n"
            "r = normalise(np.array([5.0, 25.0]), (5.0, 45.0), 'random')\n"
            "print([float(v) for v in h], [float(v) for v in r], 'scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[0.0,", "0.5]", "[1.0,", "5.0]", "False"], out.stdout


def test_the_interquartile_mean_without_scipy_is_scipys():
    from arcade_lab.agents.evaluation import metrics

    stats = pytest.importorskip("scipy.stats")
    x = np.array([[1.0, 2.0, 3.0, 100.0]])
    assert metrics.iqm(x) == 2.5                      # 25 % off each side
    rng = np.random.default_rng(3)
    for n in (4, 7, 60, 61):
        m = rng.normal(size=(5, n))
        assert abs(metrics.iqm(m) - stats.trim_mean(m.ravel(), 0.25)) < 1e-12
