"""The line-source potential against numerical integration of point sources along the
segment, its far field against a point source, and the insulating plane's image."""

from __future__ import annotations

import numpy as np
from scipy.integrate import quad

from substrates.backends.mea.extracellular import SIGMA_S_PER_M, line_source_matrix, point_source


def test_line_source_equals_the_integral_of_point_sources() -> None:
    rng = np.random.default_rng(0)
    starts = rng.uniform(-50, 50, (5, 3)) + np.array([0.0, 0.0, 20.0])
    ends = starts + rng.uniform(-40, 40, (5, 3))
    electrodes = np.column_stack([rng.uniform(-100, 100, (7, 2)), np.zeros(7)])
    matrix = line_source_matrix(starts, ends, electrodes, radius_um=0.01, insulating_plane=False)
    for m, e in enumerate(electrodes):
        for n, (s, t) in enumerate(zip(starts, ends, strict=True)):
            length = np.linalg.norm(t - s)

            def density(u, s=s, t=t, e=e):
                return 1e3 / (4 * np.pi * SIGMA_S_PER_M * np.linalg.norm(e - (s + u * (t - s))))

            value, _ = quad(density, 0, 1, epsabs=1e-12, epsrel=1e-10)
            assert np.isclose(matrix[m, n], value, rtol=1e-7), (m, n, length)


def test_far_field_is_a_point_source_and_the_plane_doubles() -> None:
    start, end = np.array([[0.0, 0.0, 30.0]]), np.array([[10.0, 0.0, 30.0]])
    far = np.array([[5000.0, 3000.0, 0.0]])
    line = line_source_matrix(start, end, far)[0, 0] * 2.0
    point = point_source(np.array([2.0]), (start + end) / 2, far)[0]
    assert np.isclose(line, point, rtol=1e-5)
    free = line_source_matrix(start, end, far, insulating_plane=False)[0, 0]
    assert np.isclose(line / 2, 2 * free)
