"""Quiet spans laid end to end, against enumerating them."""

from __future__ import annotations

import numpy as np

from substrates.models.hh.quiet import locate, quiet_samples, window_starts

SPANS = np.array([[0, 100], [200, 260], [300, 305], [400, 450]])


def test_window_starts_number_every_window_inside_a_span_once() -> None:
    width = 10
    every = [s for a, b in SPANS for s in range(a, b - width)]
    assert quiet_samples(SPANS, width) == len(every)
    assert window_starts(SPANS, width, np.arange(len(every))).tolist() == every


def test_locate_gives_span_and_offset() -> None:
    lengths = SPANS[:, 1] - SPANS[:, 0]
    expected = [(k, o) for k, n in enumerate(lengths) for o in range(n)]
    span, offset = locate(lengths, np.arange(lengths.sum()))
    assert list(zip(span.tolist(), offset.tolist(), strict=True)) == expected
