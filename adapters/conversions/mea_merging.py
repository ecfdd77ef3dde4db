"""Fragments of one cell merged back into one unit after spike sorting.

On large arrays sorters split a cell: spykingcircus2 on the 512-electrode session returned
each cell as a unit of ~70% of its spikes plus units of 1–30 spikes with the same waveform,
many placed a constant 0.2–0.65 ms after the trough (so a ground-truth comparison within
0.4 ms counts them as matching nothing). Fitted as cells of their own, such fragments take
their cell's evoked spikes for theirs. Here every unit's template (mean waveform, µV) is
compared with those of larger units after the lag that aligns them: a unit whose template
matches a larger one in shape (cosine ≥ `similarity`) and size (norm within a factor
`ratio`) on the larger unit's footprint is that unit's cell, its spikes shifted by the lag
and added, less those within `censor_ms` of a spike already held (the same spike found
twice). A merge that would put spikes closer than a refractory period to the host's —
two cells, not one — is refused."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ...datasets.mea.recording import Recording
from ...models.hh.features import electrical_image
from ...models.hh.quiet import inside as in_spans

SIMILARITY = 0.9
"""Least cosine similarity of two aligned templates on the host's footprint."""
RATIO = 1.5
"""Largest ratio of the two templates' norms there (either way round)."""
MAX_LAG_MS = 0.75
"""Largest shift between two units' spike placements searched (ms)."""
CENSOR_MS = 0.4
"""An aligned fragment spike this close to one the host holds is the same spike (ms)."""
REFRACTORY_MS = 1.5
"""Aligned spikes closer than this to the host's, but not the same, mean two cells (ms)."""
FOOTPRINT = 0.25
"""Channels whose peak-to-peak is at least this share of a template's largest."""
BEFORE_MS, AFTER_MS = 1.0, 2.0
"""Template window around each spike (ms)."""
TEMPLATE_SPIKES = 500
"""A template averages at most this many of a unit's spikes, spread evenly over them."""


@dataclass(frozen=True)
class Merge:
    """One fragment taken into a host unit (indices into the sorter's units): the shift
    added to its spikes (samples), the aligned templates' cosine similarity and norm
    ratio (fragment / host), and how many of its spikes the host did not already hold."""

    host: int
    fragment: int
    lag_samples: int
    similarity: float
    norm_ratio: float
    new_spikes: int

    def record(self) -> dict[str, Any]:
        return {
            key: (round(v, 4) if isinstance(v, float) else v) for key, v in asdict(self).items()
        }


def merge_fragments(
    detection: Recording,
    units: list[np.ndarray],
    spans: np.ndarray,
    *,
    similarity: float = SIMILARITY,
    ratio: float = RATIO,
    max_lag_ms: float = MAX_LAG_MS,
    censor_ms: float = CENSOR_MS,
    refractory_ms: float = REFRACTORY_MS,
) -> tuple[list[np.ndarray], list[int], list[Merge]]:
    """Merge the fragments among `units` (spike samples of each sorted unit) using their
    templates in `detection` (preprocessed traces, µV) in its quiet `spans` ((k, 2)
    samples [start, end), models/hh/quiet.py).

    Units are taken largest first; each is merged into the most similar larger unit it
    matches, or stays a unit of its own. Returns the units that remain (each host with its
    fragments' aligned spikes added, sorted), their indices in `units`, and the merges.
    Units without a spike whose template window fits in a span are kept as they are.

    >>> from substrates.datasets.mea.recording import ArraySource, Recording
    >>> rng = np.random.default_rng(0)
    >>> traces = rng.normal(0, 3, (40000, 4)).astype(np.float32)
    >>> shape = -60 * np.exp(-0.5 * ((np.arange(-10, 30)) / 3.0) ** 2)  # a 60 µV trough
    >>> spikes = np.arange(1000, 39000, 500)
    >>> for s in spikes:
    ...     traces[s - 10 : s + 30, 1] += shape
    ...     traces[s - 10 : s + 30, 2] += 0.5 * shape
    >>> r = Recording(ArraySource(traces), 40000, 20000.0, 1.0, np.arange(4), np.zeros((4, 2)))
    >>> host, fragment = spikes[::2], spikes[1::2][:20] + 6  # placed 0.3 ms late
    >>> kept, index, merges = merge_fragments(r, [host, fragment], np.array([[0, 40000]]))
    >>> index, merges[0].lag_samples, merges[0].new_spikes
    ([0], -6, 20)
    >>> bool(np.isin(spikes[1::2][:20], kept[0]).all())
    True
    """
    fs = detection.sampling_hz
    before, after = round(BEFORE_MS * 1e-3 * fs), round(AFTER_MS * 1e-3 * fs)
    max_lag = max(1, round(max_lag_ms * 1e-3 * fs))
    censor, refractory = round(censor_ms * 1e-3 * fs), round(refractory_ms * 1e-3 * fs)
    templates = [_template(detection, u, before, after, spans) for u in units]
    order = sorted(range(len(units)), key=lambda k: (-len(units[k]), k))
    hosts: list[int] = []
    trains = {k: np.sort(np.asarray(u, np.int64)) for k, u in enumerate(units)}
    merges: list[Merge] = []
    for k in order:
        best = _best_host(templates, k, hosts, max_lag, similarity, ratio)
        if best is not None:
            cosine, h, lag, norm = best
            aligned = trains[k] + lag
            gaps = nearest(trains[h], aligned)
            clash = int(((gaps > censor) & (gaps < refractory)).sum())
            if clash <= max(1, len(aligned) // 10):
                new = aligned[gaps > censor]
                trains[h] = np.sort(np.concatenate([trains[h], new]))
                merges.append(Merge(h, k, lag, cosine, norm, len(new)))
                continue
        hosts.append(k)
    kept = sorted(hosts)
    return [trains[k] for k in kept], kept, merges


def _best_host(
    templates: list[np.ndarray | None],
    k: int,
    hosts: list[int],
    max_lag: int,
    similarity: float,
    ratio: float,
) -> tuple[float, int, int, float] | None:
    """Of the `hosts` whose template unit k's matches (cosine ≥ similarity, norm ratio
    within `ratio` either way), the most similar: (cosine, host, lag, norm ratio)."""
    mine = templates[k]
    if mine is None:
        return None
    best = None
    for h in hosts:
        theirs = templates[h]
        found = None if theirs is None else _match(theirs, mine, max_lag)
        if found is None:
            continue
        cosine, lag, norm = found
        alike = cosine >= similarity and 1 / ratio <= norm <= ratio
        if alike and (best is None or cosine > best[0]):
            best = (cosine, h, lag, norm)
    return best


def _template(
    detection: Recording, spikes: np.ndarray, before: int, after: int, spans: np.ndarray
) -> np.ndarray | None:
    """(channels, before + after) mean waveform of the spikes (at most TEMPLATE_SPIKES,
    spread evenly) whose window lies in a quiet span, or None without one."""
    inside = spikes[in_spans(spans, spikes, before, after)]
    if len(inside) > TEMPLATE_SPIKES:
        inside = inside[np.linspace(0, len(inside) - 1, TEMPLATE_SPIKES).round().astype(int)]
    return electrical_image(detection, inside, before, after) if len(inside) else None


def _match(host: np.ndarray, unit: np.ndarray, max_lag: int) -> tuple[float, int, float] | None:
    """The lag L (samples) that best aligns `unit` to `host` (unit[t + L] ≈ host[t]) on the
    host's footprint channels: cosine similarity there, L, and the norm ratio unit/host;
    None when the host's footprint is empty (a flat template)."""
    ptp = np.ptp(host, axis=1)
    if ptp.max() <= 0:
        return None
    channels = ptp >= FOOTPRINT * ptp.max()
    a = host[channels, max_lag : host.shape[1] - max_lag]
    width = a.shape[1]
    best: tuple[float, int, float] | None = None
    for lag in range(-max_lag, max_lag + 1):
        b = unit[channels, max_lag + lag : max_lag + lag + width]
        norm_a, norm_b = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if norm_b == 0:
            continue
        cosine = float((a * b).sum()) / (norm_a * norm_b)
        if best is None or cosine > best[0]:
            best = (cosine, lag, norm_b / norm_a)
    return best


def nearest(train: np.ndarray, spikes: np.ndarray) -> np.ndarray:
    """Each of `spikes`' distance (samples) to the nearest spike of sorted `train`."""
    if not len(train):
        return np.full(len(spikes), np.iinfo(np.int64).max)
    at = np.searchsorted(train, spikes)
    left = train[np.clip(at - 1, 0, len(train) - 1)]
    right = train[np.clip(at, 0, len(train) - 1)]
    return np.minimum(np.abs(spikes - left), np.abs(right - spikes))
