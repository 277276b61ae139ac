"""Evaluation: protocols of the literature, batch runs (worker processes or Ray), the store, metrics, reports.

    arcade-lab eval ale2013 --agents baselines --games training --episodes 2 --run base
    arcade-lab eval ataribench2026 --agents random,py:mypkg.agents:make --ray      # local Ray instance
    arcade-lab report base                  # report-base/index.html + CSVs

See docs/evaluation.md for the protocols' parameters and sources, and what each metric means.
"""
