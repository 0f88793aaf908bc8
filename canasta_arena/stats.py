"""Interval estimates for reports: hands won (Wilson) and mean score differences (Student t).

The arena, the training league and the self-play evaluation report their
figures with these, so a 95% interval means the same thing in each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: The 0.975 quantile of the standard normal: the z of a two-sided 95% interval.
Z_95 = 1.959963984540054

#: Two-sided 95% Student-t quantiles for 1..30 degrees of freedom.
_T_95 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip


def t_quantile_95(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom.

    Exact table up to 30, then the Cornish-Fisher expansion around the normal
    quantile (error below 1e-5 from 30 on).
    """
    if df < 1:
        raise ValueError("a t interval needs at least 2 observations")
    if df <= len(_T_95):
        return _T_95[df - 1]
    z = Z_95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: ties).

    No success gives a lower bound of exactly 0, all successes an upper bound of 1.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes <= 0 else max(0.0, center - half)
    high = 1.0 if successes >= n else min(1.0, center + half)
    return (low, high)


def mean_interval(values: Sequence[float]) -> tuple[float, float | None, float | None]:
    """Mean and its 95% Student-t interval (None bounds with fewer than 2 values)."""
    n = len(values)
    if n == 0:
        return (0.0, None, None)
    mean = math.fsum(values) / n
    if n < 2:
        return (mean, None, None)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile_95(n - 1) * math.sqrt(variance / n)
    return (mean, mean - half, mean + half)
