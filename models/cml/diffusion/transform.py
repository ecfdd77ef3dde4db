"""Rain rates (mm/h) to the diffusion model's space and back.

x = 2·log(1 + R/R₀)/log(1 + R_max/R₀) − 1 with R₀ = 0.1 mm/h and R_max = 100 mm/h: dry
cells sit at x = −1 (a boundary of the data, not a spike in the middle of it), 100 mm/h at
x = 1, and the logarithm spreads light and heavy rain over the range as rain's intensity
distribution is spread. The inverse is smooth, so gradients pass through it; values below
−1 decode to 0 mm/h.
"""

from __future__ import annotations

import math
from typing import Any

OFFSET_MM_H = 0.1
"""R₀: rain this light is compressed towards dry."""
TOP_MM_H = 100.0
"""R_max: the rain rate mapped to x = 1 (heavier rain maps above 1)."""
_SCALE = math.log1p(TOP_MM_H / OFFSET_MM_H) / 2


def to_model(rain_mm_h: Any) -> Any:
    """x in [−1, 1] (above 1 beyond R_max) from rain rates in mm/h (torch or numpy)."""
    backend = _namespace(rain_mm_h)
    return backend.log1p(rain_mm_h.clip(0) / OFFSET_MM_H) / _SCALE - 1


def to_rain(x: Any) -> Any:
    """Rain rates in mm/h from model values x (torch or numpy); x ≤ −1 is dry."""
    backend = _namespace(x)
    return OFFSET_MM_H * backend.expm1((x + 1).clip(0) * _SCALE)


def _namespace(a: Any) -> Any:
    import numpy as np

    if isinstance(a, np.ndarray):
        return np
    import torch

    return torch
