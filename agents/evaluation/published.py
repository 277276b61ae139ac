"""The report's "Published figures" section: every agent of a run that a published table names (Random,
best Const and best Perturb, SARSA(λ) with each feature set under ALE 2013), per game beside the paper's
mean — a table, ``published.csv``, and one chart per game with the published mean drawn as a mark."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping

from . import references as REF
from .report import PALETTE, STABLE_N, RunData, _esc, _fmt, _table, _write_csv

CSV_HEADER = ["table", "agent", "policy", "pool", "game", "set", "n", "mean", "se", "ci_low", "ci_high",
              "published", "ratio", "within"]


def _num(v: float, decimals: int) -> str:
    """A score at the table's printed precision (one more decimal for ours), "–" when undefined."""
    return "–" if v != v else f"{v:,.{decimals}f}"


def _pm(r: REF.Comparison, d: int) -> str:
    return _num(r.mean, d) + ("" if r.se != r.se else f" ± {_num(r.se, d)}")


def _verdict(r: REF.Comparison) -> str:
    return "n < 2" if r.within is None else ("yes" if r.within else "no")


def svg_game(game: str, rows: list[tuple[str, float, float, float, float]], width=420, row_h=20) -> str:
    """One game: per agent our mean (dot) and 99% interval (bar), the published mean as a black diamond."""
    vals = [v for _, m, lo, hi, p in rows for v in (m, lo, hi, p) if v == v and math.isfinite(v)]
    if not vals:
        return ""
    x0, x1 = min(vals), max(vals)
    pad = (x1 - x0) * 0.08 or max(abs(x1), 1.0) * 0.1
    x0, x1 = x0 - pad, x1 + pad
    left, right, top = 150, 12, 22
    h = top + row_h * len(rows) + 26
    sx = lambda v: left + (v - x0) / (x1 - x0) * (width - left - right)  # noqa: E731
    p = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}" font-family="sans-serif" '
         f'font-size="11"><text x="{width / 2}" y="14" text-anchor="middle" font-weight="bold">{_esc(game)}: '
         f'ours (●, 99% interval) vs published (◆)</text>']
    for i, (label, m, lo, hi, pub) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        c = PALETTE[i % len(PALETTE)]
        p.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{_esc(label)}</text>')
        if lo == lo and hi == hi:
            p.append(f'<line x1="{sx(lo):.1f}" y1="{y}" x2="{sx(hi):.1f}" y2="{y}" stroke="{c}" stroke-width="5" '
                     f'stroke-opacity="0.45"/>')
        p.append(f'<circle cx="{sx(m):.1f}" cy="{y}" r="4" fill="{c}"><title>ours {m:.4g}</title></circle>')
        d = f"{sx(pub):.1f},{y - 6} {sx(pub) + 5:.1f},{y} {sx(pub):.1f},{y + 6} {sx(pub) - 5:.1f},{y}"
        p.append(f'<polygon points="{d}" fill="none" stroke="#000" stroke-width="1.5">'
                 f'<title>published {pub:.4g}</title></polygon>')
    for v in (x0 + pad, (x0 + x1) / 2, x1 - pad):
        p.append(f'<text x="{sx(v):.1f}" y="{h - 8}" text-anchor="middle">{v:.3g}</text>')
    p.append("</svg>")
    return "".join(p)


def _agent_block(t: REF.Table, agent: str, rows: list[REF.Comparison], k: int, n: int) -> str:
    label = REF.agent_label(agent, max(r.pool for r in rows))
    head = ["game", "set", "ours (mean ± SE)", "n", "99% interval", f"published ({t.name})", "ratio",
            "published within our 99%"] + (["our best policy"] if agent.endswith(":*") else [])
    d = t.decimals + 1
    body = [[r.game, r.set or "–", _pm(r, d), r.n, f"[{_num(r.low, d)}, {_num(r.high, d)}]",
             _num(r.published, t.decimals), _fmt(r.ratio), _verdict(r)] + ([r.policy] if agent.endswith(":*") else [])
            for r in rows]
    few = min(r.n for r in rows)
    caveat = (f" With {few} samples a game's 99% interval is wide: “within noise” says little until "
              f"n ≥ {STABLE_N}." if few < STABLE_N else "")
    return (f"<h4>{_esc(label)} vs {_esc(t.title)} “{_esc(t.agents[agent])}”</h4>"
            f"<p><b>{k} of {n} games within noise</b>.{_esc(caveat)}</p>" + _table(head, body))


def section(rd: RunData, out: Path, tables: Mapping[str, REF.Table]) -> str:
    """The section's HTML ("" when no table names an agent of the run); writes published.csv into ``out``."""
    blocks, csv_rows = [], []
    for t in tables.values():
        if not t.agents or not t.applies_to(rd.protocol):
            continue
        rows = REF.compare(rd.samples, t)
        if not rows:
            continue
        csv_rows += [[t.name, r.agent, r.policy, r.pool, r.game, r.set, r.n, r.mean, r.se, r.low, r.high,
                      r.published, r.ratio, "" if r.within is None else int(r.within)] for r in rows]
        counts = REF.within_noise(rows)
        summary = "; ".join(f"{REF.agent_label(a, max(r.pool for r in rows if r.agent == a))}: {k} of {n}"
                            for a, (k, n) in counts.items())
        charts = []
        for g in sorted({r.game for r in rows}):
            per = [r for r in rows if r.game == g]
            charts.append(svg_game(g, [(REF.agent_label(r.agent, r.pool), r.mean, r.low, r.high, r.published)
                                       for r in per]))
        blocks.append(f"<h3>{_esc(t.title)}</h3><details><summary>Source: <code>{_esc(Path(t.origin).name)}</code>"
                      f"</summary><pre>{_esc(t.source)}</pre></details>"
                      f"<p>Games within noise: {_esc(summary)}.</p><div class='figs'>{''.join(charts)}</div>" +
                      "".join(_agent_block(t, a, [r for r in rows if r.agent == a], *counts[a]) for a in counts))
    if not blocks:
        return ""
    _write_csv(out / "published.csv", CSV_HEADER, csv_rows)
    return ("<h2>Published figures</h2><p>Per game, our mean ± standard error over n samples (trials when the "
            "run has several, else episodes) beside the paper's mean. <i>Within noise</i>: the published mean "
            "lies inside our two-sided 99% Student-t interval (widened by half of the table's last printed "
            "digit). Ratio = ours / published. Best-of rows take, per game, our policy with the highest mean, "
            "as the paper's Const and Perturb columns do. Differences can come from ALE versions: the paper ran "
            "a 2012 ALE, we match ale-py 0.12.1 frame for frame.</p>" + "".join(blocks))
