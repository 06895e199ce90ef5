"""Candidate run-level interval methods, explored on synthetic arms (issue 12): what was tried before the default.

Not the analysis's code: numpy's generator for the draws, natural logs, fewer resamples (500) and one
interval (candidate against one control) per trial, so it runs in minutes. The chosen method was then
implemented in ``evidence_kit/analyze/studentised.py`` (bit-reproducible, no log) and measured with
``bench/stat_coverage.py``. Each arm: k runs of M requests, ``5 s x exp(run sd x N(0,1)) x exp(request sd x
N(0,1))``, true ratio 1. Experiments (``--experiment``):

- ``t``: ``pct`` (the adjusted two-stage percentile bootstrap, the former default), ``runmean-t``
  (Kalibera & Jones: the log ratio of pooled medians +- Welch's t times the runs' standard error of the
  mean), ``c-plain`` / ``c-sm-both`` / ``c-sm-eff`` (that, times the median's efficiency against the mean
  estimated by the plain or smoothed adjusted bootstrap);
- ``boot-t``: studentised bootstrap with the runs' standard error: ``np`` redraws the observed runs, ``sp``
  draws Gaussian run effects; ``sym`` (the 95th percentile of |T*|) or ``eq`` (equal tails), T* centred at
  the observed ratio (``--centre observed``) or at the mean of the resampled log ratios (``mean``);
- ``median-variance``: the bootstrap variance of a median of n normal values against its true variance;
- ``t-mc``: ``runmean-t`` alone at 3-8 runs, 20,000 trials a cell (``--seed 12``);
- ``fieller``: the chosen method (studentised by the run means, Gaussian run effects of 12 uniforms,
  T* at the world's ratio, inverted by Fieller) for ``--stat median|p90|p99``.

    .venv/bin/python bench/stat_interval_methods.py --experiment fieller --trials 600 --seed 4
"""

# ruff: noqa: E701, E702  (the exploration as it was run: compact numeric code, kept so its figures reproduce)
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

SCEN = {
    "mixed": (0.03, 0.05),
    "run-heavy": (0.05, 0.02),
    "request-only": (0.0, 0.05),
    "noisy": (0.06, 0.10),
    "very-noisy": (0.10, 0.20),
    "run-only": (0.05, 0.005),
}


def arms(rng, T, k, M, sb, sw):
    """T trials x 2 arms (cand, ctrl) x k runs x M requests, true ratio 1."""
    run = rng.normal(0, sb, (T, 2, k, 1))
    req = rng.normal(0, sw, (T, 2, k, M))
    return 5.0 * np.exp(run + req)


def components(x):
    """adjusted components per (T,2) arm: centre (T,2), effects (T,2,k) scaled, residuals (T,2,N) scaled, s_b2, s_w2."""
    T, A, k, M = x.shape
    m = x.mean(-1)
    c = m.mean(-1)
    e = m - c[..., None]
    r = x - m[..., None]
    es = (e**2).sum(-1)
    rs = (r**2).sum((-1, -2))
    N = k * M
    sw2 = rs / (N - k)
    sb2 = np.maximum(0, es / (k - 1) - sw2 / M)
    fe = np.sqrt(np.where(es > 0, sb2 / (es / k), 0))
    fr = np.sqrt(np.where(rs > 0, sw2 / (rs / N), 0))
    return c, e * fe[..., None], (r * fr[..., None, None]).reshape(T, A, N), sb2, sw2, es / (k - 1)


def adj_boot(rng, x, B, stat=np.median):
    """log ratios of B adjusted two-stage resamples per trial: (T, B)."""
    T, A, k, M = x.shape
    c, e, r, *_ = components(x)
    out = np.empty((T, B))
    for t in range(T):
        vals = []
        for a in range(2):
            ei = rng.integers(k, size=(B, k))
            ri = rng.integers(k * M, size=(B, k, M))
            v = c[t, a] + e[t, a][ei][:, :, None] + r[t, a][ri]
            vals.append(stat(v.reshape(B, k * M), axis=1))
        out[t] = np.log(vals[0] / vals[1])
    return out


def point(x, stat=np.median):
    T, A, k, M = x.shape
    s = stat(x.reshape(T, A, k * M), axis=-1)
    return np.log(s[:, 0] / s[:, 1])


def resample_arm(rng, c, e, r, k, M, B):
    ei = rng.integers(k, size=(B, k))
    ri = rng.integers(k * M, size=(B, k, M))
    return c + e[ei][:, :, None] + r[ri]  # (B, k, M)


def mean_se2(v):
    """relative variance of the pooled mean from MoM components, per leading index. v (..., k, M)."""
    k, M = v.shape[-2:]
    m = v.mean(-1)
    c = m.mean(-1)
    sw2 = ((v - m[..., None]) ** 2).sum((-1, -2)) / (k * M - k)
    sb2 = np.maximum(0, ((m - c[..., None]) ** 2).sum(-1) / (k - 1) - sw2 / M)
    return (sb2 / k + sw2 / (k * M)) / c**2


def methods(rng, x, B=1000):
    """dict method -> (lo, hi) arrays (log scale) for each trial."""
    T, A, k, M = x.shape
    c, e, r, *_ = components(x)
    th = point(x)
    se = np.sqrt(mean_se2(x).sum(-1))
    out = {m: (np.empty(T), np.empty(T)) for m in ("pct", "boot-t", "boot-t-sym", "sd-z")}
    tstar = np.empty((T, B))
    for t in range(T):
        v = [resample_arm(rng, c[t, a], e[t, a], r[t, a], k, M, B) for a in range(2)]
        med = [np.median(vv.reshape(B, -1), axis=1) for vv in v]
        lr = np.log(med[0] / med[1])
        se_s = np.sqrt(mean_se2(v[0]) + mean_se2(v[1]))
        ts = (lr - th[t]) / se_s
        tstar[t] = ts
        lo, hi = np.quantile(lr, [0.025, 0.975])
        out["pct"][0][t], out["pct"][1][t] = lo, hi
        qlo, qhi = np.quantile(ts, [0.025, 0.975])
        out["boot-t"][0][t], out["boot-t"][1][t] = th[t] - qhi * se[t], th[t] - qlo * se[t]
        qa = np.quantile(np.abs(ts), 0.95)
        out["boot-t-sym"][0][t], out["boot-t-sym"][1][t] = th[t] - qa * se[t], th[t] + qa * se[t]
        sd = lr.std()
        out["sd-z"][0][t], out["sd-z"][1][t] = th[t] - 1.96 * sd, th[t] + 1.96 * sd
    return out, th, se


def coverage(out):
    return {m: float(np.mean((lo <= 0) & (0 <= hi))) for m, (lo, hi) in out.items()}


def _betacf(a, b, x):
    MAXIT, EPS, FPMIN = 300, 3e-16, 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > FPMIN else FPMIN)
    h = d
    for m in range(1, MAXIT):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = FPMIN if abs(d) < FPMIN else d
        c = 1 + aa / c
        c = FPMIN if abs(c) < FPMIN else c
        d = 1 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = FPMIN if abs(d) < FPMIN else d
        c = 1 + aa / c
        c = FPMIN if abs(c) < FPMIN else c
        d = 1 / d
        de = d * c
        h *= de
        if abs(de - 1) < EPS:
            break
    return h


def betai(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    bt = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return bt * _betacf(a, b, x) / a
    return 1 - bt * _betacf(b, a, 1 - x) / b


def t_cdf(t, nu):
    x = nu / (nu + t * t)
    p = 0.5 * betai(nu / 2, 0.5, x)
    return 1 - p if t > 0 else p


_TQ = {}


def t_q(p, nu):
    key = (p, round(nu, 6))
    if key in _TQ:
        return _TQ[key]
    if nu > 1e6:
        nu = 1e6
    lo, hi = 0.0, 200.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_cdf(mid, nu) < p:
            lo = mid
        else:
            hi = mid
    _TQ[key] = (lo + hi) / 2
    return _TQ[key]


def welch(v, k):
    """v (T,2) variances of each arm's estimate, k runs: Welch-Satterthwaite df."""
    return v.sum(-1) ** 2 / (v**2 / (k - 1)).sum(-1)


def methods2(rng, x, B=1000):
    T, A, k, M = x.shape
    c, e, r, *_ = components(x)
    th = point(x)
    lm = np.log(x.mean(-1))  # (T,2,k) log run means
    lmed = np.log(np.median(x, -1))  # log run medians
    v1 = lm.var(-1, ddof=1) / k
    v2 = lmed.var(-1, ddof=1) / k
    nu1, nu2 = welch(v1, k), welch(v2, k)
    out = {m: (np.empty(T), np.empty(T)) for m in ("pct", "runmean-t", "runmed-t", "ratio-t", "sdboot-t")}
    for t in range(T):
        v = [resample_arm(rng, c[t, a], e[t, a], r[t, a], k, M, B) for a in range(2)]
        med = [np.median(vv.reshape(B, -1), axis=1) for vv in v]
        mea = [vv.reshape(B, -1).mean(1) for vv in v]
        lr = np.log(med[0] / med[1])
        lrm = np.log(mea[0] / mea[1])
        lo, hi = np.quantile(lr, [0.025, 0.975])
        out["pct"][0][t], out["pct"][1][t] = lo, hi
        q1, q2 = t_q(0.975, nu1[t]), t_q(0.975, nu2[t])
        s1, s2 = math.sqrt(v1[t].sum()), math.sqrt(v2[t].sum())
        out["runmean-t"][0][t], out["runmean-t"][1][t] = th[t] - q1 * s1, th[t] + q1 * s1
        out["runmed-t"][0][t], out["runmed-t"][1][t] = th[t] - q2 * s2, th[t] + q2 * s2
        ch = lr.std() / lrm.std() if lrm.std() > 0 else 1.0
        out["ratio-t"][0][t], out["ratio-t"][1][t] = th[t] - q1 * s1 * ch, th[t] + q1 * s1 * ch
        out["sdboot-t"][0][t], out["sdboot-t"][1][t] = th[t] - q1 * lr.std(), th[t] + q1 * lr.std()
    return out, th


def resample_arm_s(rng, c, e, r, k, M, B, h_e, h_r):
    """adjusted resample with Gaussian smoothing of the effects (h_e) and residuals (h_r), variance kept."""
    ei = rng.integers(k, size=(B, k))
    ri = rng.integers(k * M, size=(B, k, M))
    se = math.sqrt((e**2).mean())
    sr = math.sqrt((r**2).mean())
    ee = e[ei]
    rr = r[ri]
    if h_e:
        ee = (ee + h_e * se * rng.normal(size=ee.shape)) / math.sqrt(1 + h_e**2)
    if h_r:
        rr = (rr + h_r * sr * rng.normal(size=rr.shape)) / math.sqrt(1 + h_r**2)
    return c + ee[:, :, None] + rr


def methods3(rng, x, B=1000, variants=(("plain", 0, 0), ("sm-both", 0.5, 0.5), ("sm-eff", 0.5, 0))):
    T, A, k, M = x.shape
    c, e, r, *_ = components(x)
    th = point(x)
    mm = x.mean(-1)  # run means (T,2,k)
    cm = mm.mean(-1)
    vrel = mm.var(-1, ddof=1) / k / cm**2  # relative var of the arm mean (T,2)
    out = {"pct": (np.empty(T), np.empty(T)), "runmean-t": (np.empty(T), np.empty(T))}
    for name, *_ in variants:
        out["c-" + name] = (np.empty(T), np.empty(T))
    for t in range(T):
        nu = welch(vrel[t][None], k)[0]
        q = t_q(0.975, nu)
        s = math.sqrt(vrel[t].sum())
        out["runmean-t"][0][t], out["runmean-t"][1][t] = th[t] - q * s, th[t] + q * s
        for name, he, hr in variants:
            c2 = []
            meds = []
            for a in range(2):
                v = resample_arm_s(rng, c[t, a], e[t, a], r[t, a], k, M, B, he, hr).reshape(B, -1)
                md = np.median(v, 1)
                mn = v.mean(1)
                meds.append(md)
                c2.append(md.var() / mn.var() if mn.var() > 0 else 1.0)
            if name == "plain":
                lr = np.log(meds[0] / meds[1])
                lo, hi = np.quantile(lr, [0.025, 0.975])
                out["pct"][0][t], out["pct"][1][t] = lo, hi
            va = vrel[t] * np.array(c2)
            nu = welch(va[None], k)[0]
            q = t_q(0.975, nu)
            s = math.sqrt(va.sum())
            out["c-" + name][0][t], out["c-" + name][1][t] = th[t] - q * s, th[t] + q * s
    return out, th


def runs_v(v):
    """relative variance of each arm's mean from its run means: var(m_i)/(k mbar^2). v (..., k, M)."""
    k = v.shape[-2]
    m = v.mean(-1)
    c = m.mean(-1)
    return m.var(-1, ddof=1) / k / c**2


CENTRE = "mean"


def methods4(rng, x, B=1000, shrink=False):
    T, A, k, M = x.shape
    c, e, r, sb2, sw2, _ = components(x)
    th = point(x)
    v = runs_v(x)  # (T,2)
    se = np.sqrt(v.sum(-1))
    names = ("pct", "bt-np-sym", "bt-np-eq", "bt-sp-sym", "bt-sp-eq")
    out = {m: (np.empty(T), np.empty(T)) for m in names}
    for t in range(T):
        res = {}
        for kind in ("np", "sp"):
            meds, vs = [], []
            for a in range(2):
                if kind == "np":
                    d = resample_arm(rng, c[t, a], e[t, a], r[t, a], k, M, B)
                else:
                    ri = rng.integers(k * M, size=(B, k, M))
                    eff = math.sqrt(sb2[t, a]) * rng.normal(size=(B, k))
                    d = c[t, a] + eff[:, :, None] + r[t, a][ri]
                meds.append(np.median(d.reshape(B, -1), 1))
                vs.append(runs_v(d))
            lr = np.log(meds[0] / meds[1])
            centre = th[t] if kind == "np" else (np.median(lr) if CENTRE == "median" else (lr.mean() if CENTRE == "mean" else th[t]))
            ts = (lr - centre) / np.sqrt(vs[0] + vs[1])
            res[kind] = (lr, ts)
        lr, _ = res["np"]
        out["pct"][0][t], out["pct"][1][t] = np.quantile(lr, [0.025, 0.975])
        for kind in ("np", "sp"):
            ts = res[kind][1]
            qa = np.quantile(np.abs(ts), 0.95)
            out[f"bt-{kind}-sym"][0][t], out[f"bt-{kind}-sym"][1][t] = th[t] - qa * se[t], th[t] + qa * se[t]
            qlo, qhi = np.quantile(ts, [0.025, 0.975])
            out[f"bt-{kind}-eq"][0][t], out[f"bt-{kind}-eq"][1][t] = th[t] - qhi * se[t], th[t] - qlo * se[t]
    return out, th


def pstat(name):
    if name == "median":
        return lambda v: np.median(v, axis=-1)
    p = int(name[1:])

    def f(v):
        n = v.shape[-1]
        rank = max(1, math.ceil(round(p * n, 9) / 100))
        return np.sort(v, axis=-1)[..., rank - 1]

    return f


def fieller(a, b, Va, Vb, q):
    disc = a * a * Vb + b * b * Va - q * q * Va * Vb
    den = b * b - q * q * Vb
    if den <= 0 or disc < 0:
        return (-np.inf, np.inf)
    s = math.sqrt(disc)
    return ((a * b - q * s) / den, (a * b + q * s) / den)


def methods5(rng, x, B=1000, stat="median", stud="mean", irwin=12):
    T, A, k, M = x.shape
    f = pstat(stat)
    c, e, r, sb2, sw2, _ = components(x)
    flat = x.reshape(T, A, k * M)
    pt = f(flat)  # (T,2)

    def runV(v):
        rs = v.mean(-1) if stud == "mean" else np.median(v, -1)
        return rs.var(-1, ddof=1) / k

    V = runV(x)  # absolute (T,2)
    out = {"pct": (np.empty(T), np.empty(T)), "bt-fieller": (np.empty(T), np.empty(T))}
    for t in range(T):
        st, Vs, pc = [], [], []
        for a in range(2):
            ri = rng.integers(k * M, size=(B, k, M))
            z = rng.random(size=(B, k, irwin)).sum(-1) - irwin / 2
            eff = math.sqrt(sb2[t, a]) * z * math.sqrt(12 / irwin)
            d = c[t, a] + eff[:, :, None] + r[t, a][ri]
            st.append(f(d.reshape(B, -1)))
            Vs.append(runV(d))
            dn = resample_arm(rng, c[t, a], e[t, a], r[t, a], k, M, B)
            pc.append(f(dn.reshape(B, -1)))
        lo, hi = np.quantile(pc[0] / pc[1], [0.025, 0.975])
        out["pct"][0][t], out["pct"][1][t] = lo, hi
        rho0 = st[0].mean() / st[1].mean()
        Tst = np.abs(st[0] - rho0 * st[1]) / np.sqrt(Vs[0] + rho0**2 * Vs[1])
        q = np.quantile(Tst, 0.95)
        out["bt-fieller"][0][t], out["bt-fieller"][1][t] = fieller(pt[t, 0], pt[t, 1], V[t, 0], V[t, 1], q)
    return out


def coverage1(out):
    return {m: float(np.mean((lo <= 1) & (1 <= hi))) for m, (lo, hi) in out.items()}


CELLS = [
    ("run-heavy", 3, 4),
    ("run-only", 3, 4),
    ("mixed", 3, 4),
    ("request-only", 3, 4),
    ("noisy", 3, 4),
    ("very-noisy", 3, 4),
    ("run-heavy", 4, 16),
    ("run-only", 4, 4),
    ("run-heavy", 6, 4),
    ("run-only", 5, 4),
    ("run-only", 7, 4),
    ("mixed", 6, 16),
    ("run-heavy", 8, 32),
    ("request-only", 8, 32),
    ("mixed", 5, 32),
    ("run-only", 6, 32),
]


def t_without_bootstrap(rng: np.random.Generator, trials: int = 20000) -> None:
    """``runmean-t`` alone (no bootstrap, so 20,000 trials a cell): 3-8 runs of 4, 16, 32 requests (``--seed 12``)."""
    for scen in ("run-only", "run-heavy", "mixed", "noisy", "very-noisy", "request-only"):
        sb, sw = SCEN[scen]
        row = []
        for m in (4, 16, 32):
            for k in range(3, 9):
                x = arms(rng, trials, k, m, sb, sw)
                thm = point(x)
                mm = x.mean(-1)
                cm = mm.mean(-1)
                vrel = mm.var(-1, ddof=1) / k / cm**2
                nu = welch(vrel, k)
                grid = np.linspace(1.0, 2 * (k - 1) + 1e-9, 300)
                qs = np.array([t_q(0.975, g) for g in grid])
                q = np.interp(nu, grid, qs)
                row.append(f"{k}x{m}:{np.mean(np.abs(thm) <= q * np.sqrt(vrel.sum(-1))) * 100:.1f}")
        print(scen, " ".join(row), flush=True)


def median_variance(rng: np.random.Generator, trials: int = 4000, resamples: int = 500) -> None:
    """The bootstrap's variance of the median of n normal values against the truth (``--seed 5``)."""
    for n in (3, 4, 5, 8, 12, 16, 64):
        x = rng.normal(size=(trials, n))
        true = np.median(x, 1).var()
        idx = rng.integers(n, size=(trials, resamples, n))
        xb = np.take_along_axis(np.broadcast_to(x[:, None, :], (trials, resamples, n)), idx, 2)
        vb = np.median(xb, 2).var(1)
        print(f"n={n}: E[bootstrap variance] / variance = {vb.mean() / true:.3f}", flush=True)


def main() -> None:
    global CENTRE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiment", choices=("t", "t-mc", "median-variance", "boot-t", "fieller"), default="fieller")
    parser.add_argument("--trials", type=int, default=600)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--centre", choices=("observed", "mean", "median"), default="mean")
    parser.add_argument("--stat", choices=("median", "p90", "p99"), default="median")
    args = parser.parse_args()
    CENTRE = args.centre
    rng = np.random.default_rng(args.seed)
    if args.experiment == "t-mc":
        return t_without_bootstrap(rng)
    if args.experiment == "median-variance":
        return median_variance(rng)
    # The cells in the order each experiment was run (one generator runs through them all).
    cells = [c for c in CELLS if c not in (("run-only", 7, 4), ("request-only", 8, 32))] if args.experiment == "t" else CELLS
    for scen, k, m in cells:
        sb, sw = SCEN[scen]
        x = arms(rng, args.trials, k, m, sb, sw)
        if args.experiment == "t":
            out, _ = methods3(rng, x, B=500)
            cov = coverage(out)
        elif args.experiment == "boot-t":
            out, _ = methods4(rng, x, B=500)
            cov = coverage(out)
        else:
            out = methods5(rng, x, B=500, stat=args.stat)
            cov = coverage1(out)
        print(f"{scen:13s} {k}x{m:<3d} " + "  ".join(f"{name}={c * 100:.1f}%" for name, c in cov.items()), flush=True)


if __name__ == "__main__":
    sys.exit(main())
