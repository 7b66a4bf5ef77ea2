#!/usr/bin/env python3
"""Coverage of the median's 95% interval under caliber's adaptive stopping rule, by simulation.

The binomial order-statistic interval (docs/iteration-rule.md, src/core/statistics.cpp) covers the
median with at least 95% for a sample size fixed in advance. The adaptive rule looks after every
batch (1 sample, then up to min_samples, then about 1.5x more each time) and stops at the first
look whose half-width is within the target, so the sample size depends on the data. This script
draws samples from known distributions, runs that rule, and counts how often the reported
interval contains the true median. Time budgets are left out (min_time_ms satisfied, max_time_ms
replaced by a cap on n), which is the part of the rule that decides the coverage.

    python3 scripts/optional_stopping_coverage.py [TRIALS]   # default 4000; a few minutes

Prints the markdown table that docs/iteration-rule.md shows. Standard library only; seeded, so
the table is reproducible.
"""
import math
import random
import sys
from fractions import Fraction

CONFIDENCE = 0.95
MIN_SAMPLES = 20  # caliber's default
N_CAP = 20000


def coverage(n, k):
    """P(k <= B <= n-k), B ~ Binomial(n, 1/2): the coverage of [x(k), x(n+1-k)]."""
    if k < 1 or 2 * k > n + 1:
        return 0.0
    return 1.0 - float(Fraction(sum(math.comb(n, i) for i in range(k)), 2 ** (n - 1)))


_ranks = {}


def lower_rank(n):
    """The narrowest symmetric pair with coverage >= 95%: its lower rank k, or None (n < 6)."""
    if n not in _ranks:
        k = None
        if coverage(n, 1) >= CONFIDENCE:
            k = max(1, min((n + 1) // 2, int(n / 2 - 1.959964 * math.sqrt(n) / 2)))
            while k > 1 and coverage(n, k) < CONFIDENCE:
                k -= 1
            while k < (n + 1) // 2 and coverage(n, k + 1) >= CONFIDENCE:
                k += 1
        _ranks[n] = k
    return _ranks[n]


def adaptive(draw, rnd, target):
    """One measurement under the adaptive rule: (sorted samples, lower rank)."""
    xs = []
    while True:
        batch = 1 if not xs else max(MIN_SAMPLES - len(xs), len(xs) // 2, 1)
        xs.extend(draw(rnd) for _ in range(min(batch, N_CAP - len(xs))))
        s = sorted(xs)
        n = len(s)
        k = lower_rank(n)
        med = (s[(n - 1) // 2] + s[n // 2]) / 2
        halfwidth = math.inf if k is None else (s[n - k] - s[k - 1]) / 2 / med
        if (n >= MIN_SAMPLES and halfwidth <= target) or n >= N_CAP:
            return s, k


DISTRIBUTIONS = [
    ("normal, mean 100, sd 1", lambda r: r.gauss(100, 1), 100.0, [0.005, 0.002]),
    ("lognormal, median 100, sigma 0.05", lambda r: 100 * math.exp(r.gauss(0, 0.05)), 100.0, [0.02, 0.01]),
    ("100 + exponential(1)", lambda r: 100 + r.expovariate(1), 100 + math.log(2), [0.004, 0.0015]),
    ("two modes: N(100, 1) and N(102, 1), half each", lambda r: r.gauss(100, 1) if r.random() < 0.5 else r.gauss(102, 1),
     101.0, [0.004, 0.002]),
]


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    print(f"| distribution | target (+/-) | median n at stop | coverage, adaptive ({trials} runs) | "
          f"exact coverage at that n, fixed in advance |")
    print("|---|---|---|---|---|")
    for i, (label, draw, median, targets) in enumerate(DISTRIBUTIONS):
        for j, target in enumerate(targets):
            rnd = random.Random(1000 * i + j)
            hits, sizes = 0, []
            for _ in range(trials):
                s, k = adaptive(draw, rnd, target)
                hits += s[k - 1] <= median <= s[len(s) - k]
                sizes.append(len(s))
            sizes.sort()
            n = sizes[len(sizes) // 2]
            se = math.sqrt(hits / trials * (1 - hits / trials) / trials)
            print(f"| {label} | {target * 100:g}% | {n} | {hits / trials * 100:.1f}% (+/-{se * 100:.1f}) | "
                  f"{coverage(n, lower_rank(n)) * 100:.1f}% |", flush=True)


if __name__ == "__main__":
    main()
