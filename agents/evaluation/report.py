"""A self-contained HTML report (inline SVG, no plotting library) and CSVs for one evaluation run.

Sample unit: the score of one *trial* (its episodes averaged) when the run has several trials — the
unit ALE 2013's paired tests use (30 trials) and AtariBench's runs (one per seed); with a single trial,
episodes are the samples.
"""
from __future__ import annotations

import csv
import html
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import metrics as M
from . import references as REF

BASELINE_SPECS = ["random"] + [f"const:{a}" for a in range(18)] + [f"perturb:{a}" for a in range(18)]
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf"]
MAX_PLOTTED = 10
SHIPPED_DIR = Path(__file__).resolve().parents[2] / "resources"


@dataclass
class RunData:
    name: str
    protocol: str
    spec: dict
    samples: dict = field(default_factory=dict)     # agent -> game -> np.array of per-trial (or episode) scores
    episodes: dict = field(default_factory=dict)    # agent -> game -> list of (trial, episode, frames, score)
    failed: dict = field(default_factory=dict)      # task key -> error

    @property
    def agents(self) -> list[str]:
        return list(self.samples)

    @property
    def games(self) -> list[str]:
        return sorted({g for a in self.samples.values() for g in a})

    def means(self) -> dict[str, dict[str, float]]:
        return {a: {g: float(np.mean(v)) for g, v in gs.items()} for a, gs in self.samples.items()}


def load_run(store, name: str) -> RunData:
    run = store.run(name)
    if run is None:
        names = ", ".join(r["name"] for r in store.runs()) or "none yet"
        raise LookupError(f"no run named {name!r} in {store.path} (runs: {names})")
    rd = RunData(name=name, protocol=run["protocol"], spec=run["spec"])
    per_trial: dict = {}
    for e in store.episodes(run_id=run["id"]):
        agent = e.player.split(":", 1)[1] if e.player.startswith("agent:") else e.player
        trial = int(e.extra.get("trial", 0))
        rd.episodes.setdefault(agent, {}).setdefault(e.game, []).append(
            (trial, int(e.extra.get("episode", 0)), e.frames, e.score))
        per_trial.setdefault(agent, {}).setdefault(e.game, {}).setdefault(trial, []).append(e.score)
    for agent, gs in per_trial.items():
        for g, trials in gs.items():
            if len(trials) > 1:
                v = [float(np.mean(trials[t])) for t in sorted(trials)]
            else:
                v = list(next(iter(trials.values())))
            rd.samples.setdefault(agent, {})[g] = np.asarray(v, float)
    rd.failed = {k: t["error"] for k, t in store.tasks(run["id"]).items() if t["status"] == "failed"}
    # agents in the run's order
    order = [a for a in run["spec"].get("agents", []) if a in rd.samples]
    rd.samples = {a: rd.samples[a] for a in order + [a for a in rd.samples if a not in order]}
    return rd


def baseline_ranges(rd: "RunData | dict") -> dict[str, dict]:
    """Per game: min/max of the baseline policies' mean scores and which policies reach them.
    ``rd``: a run, or {policy: {game: mean}} (the shipped table)."""
    means = rd.means() if isinstance(rd, RunData) else rd
    games = sorted({g for m in means.values() for g in m})
    out = {}
    for g in games:
        b = {a: means[a][g] for a in BASELINE_SPECS if a in means and g in means[a]}
        if not b:
            continue
        lo_a, hi_a = min(b, key=b.get), max(b, key=b.get)
        out[g] = {"min": b[lo_a], "max": b[hi_a], "argmin": lo_a, "argmax": hi_a, "n_policies": len(b)}
    return out


def shipped_baselines(protocol: str) -> dict[str, dict[str, float]]:
    """{policy: {game: mean}} from resources/baselines_<protocol>.csv (our own 37 baseline policies, run by
    `arcade-lab eval <protocol> --agents baselines`), or {} when there is none."""
    path = SHIPPED_DIR / f"baselines_{protocol}.csv"
    if not path.exists():
        return {}
    out: dict = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            out.setdefault(r["policy"], {})[r["game"]] = float(r["mean"])
    return out


def save_baselines(rd: RunData, path) -> int:
    """Write the baseline policies' per-game mean scores of ``rd`` as a shipped table; rows written."""
    n_min = baseline_sample(rd)
    rows = [[a, g, float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0, v.size]
            for a in BASELINE_SPECS if a in rd.samples for g, v in sorted(rd.samples[a].items())]
    eps = {g: len(e) for g, e in rd.episodes.get("random", {}).items()}
    with open(path, "w", newline="", encoding="utf-8") as f:
        if n_min is not None and n_min < STABLE_N:
            f.write(f"# SMALL SAMPLE: {n_min} samples per policy (fewer than {STABLE_N}); the Random and Perturb "
                    f"means are noisy. Not a reproduction of ALE 2013 Table 4 (resources/ale2013_table4.csv).\n")
        f.write(f"# ALE 2013 baseline policies (Random per frame, Const x18, Perturb x18, epsilon 0.05) under protocol "
                f"{rd.protocol}: mean score per game, from Arcade Lab run {rd.name!r} ({rd.spec.get('protocol', {}).get('max_frames')}"
                f"-frame cap; Random episodes per game: {eps}). Regenerate with `arcade-lab eval {rd.protocol} "
                f"--agents baselines ...` then `arcade-lab report RUN --save-baselines FILE`.\n")
        w = csv.writer(f)
        w.writerow(["policy", "game", "mean", "sd", "n"])
        w.writerows(rows)
    return len(rows)


STABLE_N = 30   # samples per policy below which a baseline table is labelled a small sample


def baseline_sample(src: "RunData | str") -> int | None:
    """Fewest samples of any baseline policy on any game: of a run, or of a shipped table's ``n`` column
    (``src`` = protocol name); None when there is none."""
    if isinstance(src, RunData):
        ns = [v.size for a in BASELINE_SPECS for v in src.samples.get(a, {}).values()]
    else:
        path = SHIPPED_DIR / f"baselines_{src}.csv"
        if not path.exists():
            return None
        with open(path, newline="", encoding="utf-8") as f:
            ns = [int(r["n"]) for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    return min(ns) if ns else None


def compared_agents(rd: RunData) -> list[str]:
    """The agents the figures and inter-algorithm scores compare: not the 36 Const/Perturb policies
    (they would crowd everything) unless the run holds nothing else."""
    core = [a for a in rd.agents if not (a.startswith("const:") or a.startswith("perturb:"))]
    return core if len(core) >= 2 else rd.agents


def normalised_tables(rd: RunData, baselines: dict | None = None, human_refs: dict | None = None
                      ) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """kind -> agent -> game -> normalised samples, for every normalisation with a reference; ``human_refs``:
    {game: (random, human)} of one reference set (default: references.DEFAULT_HUMAN)."""
    refs = REF.human_reference() if human_refs is None else human_refs
    out: dict = {}
    means = rd.means()
    agents = compared_agents(rd)
    for a in agents:
        for g, v in rd.samples[a].items():
            if g in refs:
                out.setdefault("human", {}).setdefault(a, {})[g] = M.human_normalised(v, refs[g].random, refs[g].human)
                out.setdefault("random", {}).setdefault(a, {})[g] = M.random_normalised(v, refs[g].random)
            if baselines and g in baselines:
                out.setdefault("baseline", {}).setdefault(a, {})[g] = M.normalise(v, baselines[g]["min"],
                                                                                  baselines[g]["max"])
    for g in rd.games:
        m = {a: means[a][g] for a in agents if g in means[a]}
        if len(m) >= 2:
            lo, hi = M.baseline_range(m)
            for a in m:
                out.setdefault("inter-algorithm", {}).setdefault(a, {})[g] = M.normalise(rd.samples[a][g], lo, hi)
    return out


def _matrix(per_game: dict[str, np.ndarray], games: list[str]) -> np.ndarray:
    """(runs, games) matrix; games with fewer samples are padded by resampling their own values
    cyclically so every game keeps one column (the stratified bootstrap resamples within columns)."""
    cols = [np.asarray(per_game[g], float) for g in games if g in per_game]
    if not cols:
        return np.zeros((0, 0))
    n = max(c.size for c in cols)
    return np.stack([np.resize(c, n) for c in cols], axis=1)


# -- SVG ----------------------------------------------------------------------------------------------
def _esc(s) -> str:
    return html.escape(str(s))


def svg_intervals(rows: list[tuple[str, float, float, float]], title: str, width=420, row_h=22,
                  refs=(0.0, 1.0)) -> str:
    """Horizontal point-and-interval chart: (label, point, low, high); dashed lines at ``refs``."""
    vals = [v for _, p, lo, hi in rows for v in (p, lo, hi) if v == v and math.isfinite(v)]
    if not vals:
        return ""
    lo_x, hi_x = min(vals + [0.0]), max(vals + [1.0])
    pad = (hi_x - lo_x) * 0.05 or 1.0
    lo_x, hi_x = lo_x - pad, hi_x + pad
    left, right, top = 130, 15, 24
    h = top + row_h * len(rows) + 28
    sx = lambda v: left + (v - lo_x) / (hi_x - lo_x) * (width - left - right)  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}" font-family="sans-serif" '
             f'font-size="11"><text x="{width / 2}" y="14" text-anchor="middle" font-weight="bold">{_esc(title)}</text>']
    for ref in refs:
        if lo_x <= ref <= hi_x:
            parts.append(f'<line x1="{sx(ref):.1f}" y1="{top}" x2="{sx(ref):.1f}" y2="{h - 24}" stroke="#bbb" '
                         f'stroke-dasharray="3,3"/>')
    for i, (label, p, lo, hi) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        c = PALETTE[i % len(PALETTE)]
        parts.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{_esc(label)}</text>')
        if lo == lo and hi == hi:
            parts.append(f'<line x1="{sx(lo):.1f}" y1="{y}" x2="{sx(hi):.1f}" y2="{y}" stroke="{c}" stroke-width="5" '
                         f'stroke-opacity="0.45"/>')
        if p == p and math.isfinite(p):
            parts.append(f'<circle cx="{sx(p):.1f}" cy="{y}" r="4" fill="{c}"><title>{p:.3f}</title></circle>')
    for v in np.linspace(lo_x + pad, hi_x - pad, 5):
        parts.append(f'<text x="{sx(v):.1f}" y="{h - 8}" text-anchor="middle">{v:.2g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def svg_curves(curves: dict[str, tuple[np.ndarray, np.ndarray]], title: str, xlabel: str, ylabel: str,
               width=460, height=260, bands: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> str:
    """Step curves y(x) per agent (score distributions, performance profiles), legend on the right;
    ``bands``: per agent (low, high) at the same x, drawn as a shaded confidence band behind its curve."""
    xs_all = np.concatenate([x for x, _ in curves.values()]) if curves else np.zeros(0)
    if xs_all.size == 0:
        return ""
    x0, x1 = float(xs_all.min()), float(xs_all.max())
    x1 = x1 if x1 > x0 else x0 + 1
    left, right, top, bottom = 45, 130, 22, 36
    sx = lambda v: left + (v - x0) / (x1 - x0) * (width - left - right)  # noqa: E731
    sy = lambda v: top + (1 - v) * (height - top - bottom)  # noqa: E731
    p = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
         f'font-size="11"><text x="{(width - right) / 2}" y="14" text-anchor="middle" font-weight="bold">'
         f'{_esc(title)}</text>',
         f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" fill="none" '
         f'stroke="#999"/>']
    for v in (0, 0.5, 1):
        p.append(f'<text x="{left - 4}" y="{sy(v) + 4}" text-anchor="end">{v:g}</text>')
    for v in np.linspace(x0, x1, 5):
        p.append(f'<text x="{sx(v):.1f}" y="{height - bottom + 14}" text-anchor="middle">{v:.2g}</text>')
    p.append(f'<text x="{(left + width - right) / 2}" y="{height - 4}" text-anchor="middle">{_esc(xlabel)}</text>')
    p.append(f'<text x="12" y="{(top + height - bottom) / 2}" transform="rotate(-90 12 {(top + height - bottom) / 2})" '
             f'text-anchor="middle">{_esc(ylabel)}</text>')
    for i, (name, (x, y)) in enumerate(curves.items()):
        c = PALETTE[i % len(PALETTE)]
        if bands and name in bands:
            lo, hi = bands[name]
            ok = (lo == lo) & (hi == hi)
            edge = [f"{sx(a):.1f},{sy(b):.1f}" for a, b in zip(x[ok], hi[ok])] + \
                   [f"{sx(a):.1f},{sy(b):.1f}" for a, b in zip(x[ok][::-1], lo[ok][::-1])]
            if edge:
                p.append(f'<polygon class="band" points="{" ".join(edge)}" fill="{c}" fill-opacity="0.18" '
                         f'stroke="none"/>')
        pts = " ".join(f"{sx(a):.1f},{sy(b):.1f}" for a, b in zip(x, y) if b == b)
        p.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="1.8"/>')
        ly = top + 14 * i + 8
        p.append(f'<line x1="{width - right + 8}" y1="{ly}" x2="{width - right + 24}" y2="{ly}" stroke="{c}" '
                 f'stroke-width="2"/><text x="{width - right + 28}" y="{ly + 4}">{_esc(name[:18])}</text>')
    p.append("</svg>")
    return "".join(p)


# -- the report ---------------------------------------------------------------------------------------
def _table(header: list[str], rows: list[list]) -> str:
    h = "".join(f"<th>{_esc(c)}</th>" for c in header)
    body = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(v) -> str:
    if isinstance(v, str):
        return v
    if v is None or v != v:
        return "–"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def _rliable_figures(kind: str, per_agent: dict, plotted: list[str], taus: np.ndarray, reps: int, seed: int
                     ) -> tuple[str, list[list], list[list]]:
    """Agarwal et al. 2021's figures for one normalisation: the plotted agents' performance profiles with
    their stratified bootstrap bands, and P(X > Y) for every pair of them on the games both played.
    Returns the SVG (profiles, then the best agent against each other one), the profile rows and the
    probability-of-improvement rows of the CSVs."""
    curves, bands, prows = {}, {}, []
    for a in plotted:
        pr, lo, hi = M.performance_profile_ci(_matrix(per_agent[a], sorted(per_agent[a])), taus, reps=reps, seed=seed)
        curves[a], bands[a] = (taus, pr), (lo, hi)
        prows += [[kind, a, float(t), float(v), float(l), float(h)] for t, v, l, h in zip(taus, pr, lo, hi)]
    irows = []
    for i, a in enumerate(plotted):
        for b in plotted[i + 1:]:
            both = [g for g in sorted(set(per_agent[a]) & set(per_agent[b]))
                    if np.any(~np.isnan(per_agent[a][g])) and np.any(~np.isnan(per_agent[b][g]))]
            if both:
                pt, lo, hi = M.probability_of_improvement_ci(_matrix(per_agent[a], both), _matrix(per_agent[b], both),
                                                             reps=reps, seed=seed)
                irows.append([kind, a, b, pt, lo, hi, len(both)])
    svg = svg_curves(curves, f"Performance profile ({kind}, 95% CI)", "normalised score tau",
                     "fraction of runs > tau", bands=bands)
    best = [(b, pt, lo, hi) for _, a, b, pt, lo, hi, _ in irows if a == plotted[0]]
    svg += svg_intervals(best, f"P({plotted[0][:16]} > agent), {kind} (95% CI)", refs=(0.5,))
    return svg, prows, irows


def build(rd: RunData, out_dir, baselines: RunData | None = None, reps: int = 1000, seed: int = 0,
          human: str = REF.DEFAULT_HUMAN, tables: dict | None = None) -> Path:
    """Write index.html and the CSVs for ``rd`` into ``out_dir``; the HTML path. ``human``: the reference set
    of human-normalised scores; ``tables``: the published tables (default: references.load_all())."""
    from .published import section as published_section  # it builds on this module's helpers

    tables = REF.load_all() if tables is None else tables
    human_set = REF.human_sets(tables).get(human)
    if human_set is None:
        raise REF.ReferenceError(f"no human reference set {human!r}; known: {', '.join(REF.human_sets(tables))}")
    human_name = f"{human_set.title}, {Path(human_set.origin).name}"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    games, agents = rd.games, rd.agents
    secs: list[str] = []

    # raw scores
    rows = []
    for a in agents:
        for g in games:
            v = rd.samples[a].get(g)
            if v is not None:
                rows.append([a, g, v.size, float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0,
                             float(v.min()), float(v.max())])
    _write_csv(out / "scores.csv", ["agent", "game", "n", "mean", "sd", "min", "max"], rows)
    means = rd.means()
    shown = compared_agents(rd)
    secs.append("<h2>Scores</h2><p>Mean (± SD) over samples (trials when there are several, else episodes).</p>" +
                _table(["game"] + shown, [[g] + [(_fmt(means[a][g]) + (f" ± {_fmt(float(np.std(rd.samples[a][g], ddof=1)))}"
                                                                        if rd.samples[a][g].size > 1 else ""))
                                                 if g in means[a] else "–" for a in shown] for g in games]))
    secs.append(published_section(rd, out, tables))

    # baseline ranges (from this run's 37 policies, or another run's)
    # which baseline range: --baselines RUN, else this run's own when it holds all 37 policies, else the
    # shipped table of the protocol, else whatever part of the 37 this run has (flagged as partial)
    src = baselines or rd
    br = baseline_ranges(src)
    src_name, n_base = src.name, baseline_sample(src)
    if baselines is None and not all(r["n_policies"] == len(BASELINE_SPECS) for r in br.values()) or not br:
        shipped = {g: r for g, r in baseline_ranges(shipped_baselines(rd.protocol)).items() if g in games}
        if shipped:
            br, src_name = shipped, f"resources/baselines_{rd.protocol}.csv"
            n_base = baseline_sample(rd.protocol)
    if br:
        _write_csv(out / "baseline_ranges.csv", ["game", "min", "max", "argmin", "argmax", "n_policies"],
                   [[g, r["min"], r["max"], r["argmin"], r["argmax"], r["n_policies"]] for g, r in br.items()])
        note = "" if all(r["n_policies"] == 37 for r in br.values()) else \
            " <b>Not all 37 baseline policies are present: the range is partial.</b>"
        if n_base is not None and n_base < STABLE_N:
            note += (f" <b>Small sample: {n_base} samples per policy</b> (fewer than {STABLE_N}); Random and "
                     f"Perturb means are noisy.")
        secs.append(f"<h2>Baseline ranges</h2><p>Min and max mean score of the ALE 2013 baseline policies "
                    f"(Random, Const×18, Perturb×18) from <code>{_esc(src_name)}</code>, which the "
                    f"baseline-normalised scores below use.{note}</p>" +
                    _table(["game", "min", "max", "worst policy", "best policy", "policies"],
                           [[g, _fmt(r["min"]), _fmt(r["max"]), r["argmin"], r["argmax"], r["n_policies"]]
                            for g, r in br.items()]))

    # normalised scores, aggregates, distributions
    norm = normalised_tables(rd, br or None, human_set.human_reference())
    nrows, arows = [], []
    prof_rows, poi_rows = [], []
    figs = []
    for kind, per_agent in norm.items():
        # figures show at most MAX_PLOTTED agents: the best by mean normalised score, random always kept
        def _avg(a):
            v = [np.nanmean(x) for x in per_agent[a].values() if np.any(~np.isnan(x))]
            return float(np.mean(v)) if v else -math.inf
        plotted = sorted(per_agent, key=_avg, reverse=True)[:MAX_PLOTTED]
        if "random" in per_agent and "random" not in plotted:
            plotted[-1] = "random"
        agg_rows = {k: [] for k in M.AGGREGATES}
        for a, per_game in per_agent.items():
            for g, v in per_game.items():
                nrows.append([kind, a, g, float(np.nanmean(v)) if np.any(~np.isnan(v)) else float("nan")])
            mat = _matrix(per_game, sorted(per_game))
            for stat_name, fn in M.AGGREGATES.items():
                pt, lo, hi = M.stratified_bootstrap_ci(mat, fn, reps=reps, seed=seed)
                arows.append([kind, a, stat_name, pt, lo, hi, mat.shape[1]])
                if a in plotted:
                    agg_rows[stat_name].append((a, pt, lo, hi))
        label = f"{kind} ({human_set.name})" if kind == "human" else kind
        charts = "".join(svg_intervals(agg_rows[s], f"{label}-normalised {s} (95% CI)") for s in M.AGGREGATES)
        per_game_means = {a: np.array([np.nanmean(v) if np.any(~np.isnan(v)) else np.nan for v in pg.values()])
                          for a, pg in per_agent.items() if a in plotted}
        finite = np.concatenate([x[np.isfinite(x)] for x in per_game_means.values()] + [np.zeros(1)])
        xs = np.linspace(min(0.0, float(finite.min())), max(1.0, float(np.quantile(finite, 0.95))), 101)
        dist = {a: (xs, M.score_distribution(x, xs)) for a, x in per_game_means.items()}
        rl_svg, rl_prof, rl_poi = _rliable_figures(kind, per_agent, plotted, xs, reps, seed)
        prof_rows += rl_prof
        poi_rows += rl_poi
        figs.append(f"<h3>{_esc(label)}-normalised</h3><div class='figs'>{charts}"
                    f"{svg_curves(dist, f'Score distribution ({kind})', 'normalised score x', 'fraction of games ≥ x')}"
                    f"{rl_svg}</div>")
    _write_csv(out / "normalised.csv", ["kind", "agent", "game", "score"], nrows)
    _write_csv(out / "aggregates.csv", ["kind", "agent", "statistic", "value", "ci_low", "ci_high", "games"], arows)
    _write_csv(out / "performance_profiles.csv", ["kind", "agent", "tau", "fraction", "ci_low", "ci_high"], prof_rows)
    _write_csv(out / "probability_of_improvement.csv",
               ["kind", "agent", "versus", "probability", "ci_low", "ci_high", "games"], poi_rows)
    if norm:
        secs.append("<h2>Normalised scores</h2><p>human: (s − random)/(human − random), reference set "
                    f"<b>{_esc(human_name)}</b>; random: s / random (ALE 2013 §4.1.1); "
                    "baseline: range of the 37 baseline policies; "
                    "inter-algorithm: range of the compared agents. Aggregates as rliable defines them "
                    "(Agarwal et al. 2021): median and mean over games of each game's mean over runs; IQM = mean "
                    "of the middle 50% of all run × game scores; optimality gap = 1 − mean of min(score, 1); "
                    "performance profile = fraction of runs above tau, averaged over games; P(X &gt; Y) = chance "
                    "that a run of X beats a run of Y on the same game (ties count half), averaged over games. "
                    "Intervals and bands: 95%, stratified bootstrap (runs resampled within each game, "
                    f"{reps} replicates).</p>" + "".join(figs) +
                    _table(["normalisation", "agent", "statistic", "value", "95% CI", "games"],
                           [[k, a, s, _fmt(v), f"[{_fmt(lo)}, {_fmt(hi)}]", n] for k, a, s, v, lo, hi, n in arows]))
    if poi_rows:
        secs.append("<h3>Probability of improvement</h3><p>P(agent &gt; versus) between the plotted agents, on the "
                    "games both played; 0.5 = neither is better.</p>" +
                    _table(["normalisation", "agent", "versus", "P(agent > versus)", "95% CI", "games"],
                           [[k, a, b, _fmt(v), f"[{_fmt(lo)}, {_fmt(hi)}]", n] for k, a, b, v, lo, hi, n in poi_rows]))

    # paired tests
    cmp_scores = {a: rd.samples[a] for a in shown}
    wtl = M.win_tie_loss(cmp_scores)
    if wtl:
        _write_csv(out / "paired_tests.csv", ["agent", "versus", "wins", "ties", "losses"],
                   [[a, b, *v] for (a, b), v in wtl.items()])
        secs.append("<h2>Paired tests</h2><p>Per game, two-tailed Welch's t-test at 99% (ALE 2013 Table 3 form): "
                    "cell = wins / ties / losses of the row agent against the column agent.</p>" +
                    _table([""] + shown, [[a] + ["" if a == b else "/".join(map(str, wtl[(a, b)])) for b in shown]
                                          for a in shown]))

    # separability (needs random and at least one other setting)
    if "random" in rd.samples and len(rd.samples) > 1:
        sep = M.separability({a: rd.samples[a] for a in shown if a in rd.samples} | {"random": rd.samples["random"]})
        if sep:
            _write_csv(out / "separability.csv",
                       ["game", "best", "d_best", "q_best", "d_quartile", "q_anova", "eta2", "c1", "c2", "c3", "label"],
                       [[s.game, s.best, s.d_best, s.q_best, s.d_quartile, s.q_anova, s.eta2, *s.criteria, s.label]
                        for s in sep])
            secs.append("<h2>Separability (AtariBench §4.2)</h2><p>1: best vs random, d ≥ 0.8 and BH q &lt; 0.05; "
                        "2: top vs bottom quarter, d ≥ 0.8; 3: one-way ANOVA q &lt; 0.05 and η² ≥ 0.14.</p>" +
                        _table(["game", "best", "d (best vs random)", "q", "d (quartiles)", "ANOVA q", "η²",
                                "criteria", "label"],
                               [[s.game, s.best, _fmt(s.d_best), _fmt(s.q_best), _fmt(s.d_quartile), _fmt(s.q_anova),
                                 _fmt(s.eta2), "".join("✓" if c else "✗" for c in s.criteria), s.label] for s in sep]))

    # Machado: mean of the last 100 episodes up to each frame threshold
    thr = rd.spec.get("protocol", {}).get("frame_thresholds") or []
    if thr:
        last_n = rd.spec.get("protocol", {}).get("last_n", 100)
        mrows = []
        for a in shown:
            for g, eps in rd.episodes[a].items():
                trials = sorted({t for t, *_ in eps})
                for th in thr:
                    vals = []
                    for t in trials:
                        es = sorted((e, f, s) for tt, e, f, s in eps if tt == t)
                        vals.append(M.machado_score([f for _, f, _ in es], [s for *_, s in es], th, last_n))
                    mrows.append([a, g, th, float(np.mean(vals)), len(trials)])
        _write_csv(out / "machado.csv", ["agent", "game", "frames", "score", "trials"], mrows)
        secs.append("<h2>Machado et al. 2018 scores</h2><p>Mean of the last episodes up to each training-frame "
                    "threshold, averaged over trials.</p>" +
                    _table(["agent", "game", "frames", "score", "trials"],
                           [[a, g, f"{th:,}", _fmt(s), n] for a, g, th, s, n in mrows]))

    if rd.failed:
        secs.append("<h2>Failed tasks</h2>" + _table(["task", "error"], [[k, v.splitlines()[0] if v else ""]
                                                                        for k, v in rd.failed.items()]))
    proto = rd.spec.get("protocol", {})
    head = (f"<h1>Arcade Lab evaluation: {_esc(rd.name)}</h1><p>Protocol <b>{_esc(rd.protocol)}</b> — "
            f"{_esc(proto.get('title', ''))}: frameskip {proto.get('frameskip')}, sticky "
            f"{proto.get('repeat_action_probability')}, termination {proto.get('termination')}, "
            f"{len(games)} games, {len(agents)} agents.</p>")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}table{border-collapse:collapse;"
             "margin:0.5em 0;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
             ".figs{display:flex;flex-wrap:wrap;gap:8px}")
    page = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_esc(rd.name)}</title><style>{style}</style>"
            f"</head><body>{head}{''.join(secs)}</body></html>")
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
