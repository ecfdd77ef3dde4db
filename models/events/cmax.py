"""Contrast maximisation (Gallego et al. 2018) with two motions (Stoffregen et al. 2019):
events warped to a reference time along a motion pile up into a sharp image of warped
events (IWE) when it is the motion that caused them; the IWE's variance measures that. With
two layers, each event is given to the motion under which it lands on the sharper pile,
and each motion maximises the variance of its own events' IWE, in turn, from every pair of
candidate velocities; the sharpest pair wins.

A motion is six numbers: the velocity (vx, vy) px/s at the image centre c and the velocity
gradient (∂vx/∂x, ∂vx/∂y, ∂vy/∂x, ∂vy/∂y) 1/s, so that the point at p at the reference
time moves at u(p) = v + A·(p − c) along a straight path, to p + s·u(p) a time s later (an
affine motion: zoom, rotation and shear, to first order a homography); translations have
A = 0, and a 2-vector is a translation."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from .iwe import GRID_RADIUS, IWEWorkspace, gather_events, pixel_order, translation_grid

GRID_STEP = 20.0
"""Step of the coarse velocity grid (px/s). Over a 0.2 s span the contrast peaks of smooth
textures are 50–100 px/s wide, so the grid does not step over them."""
GRID_EVENTS = 20_000
"""Events the coarse grid is searched on (every k-th): the peaks stay where they are."""
PEAKS = 4
"""Strongest peaks of the contrast of all events taken as candidates."""
CANDIDATES = 2
"""Peaks taken per deflation (the events the sharpest motion explains worst)."""
DEFLATION = (0.5, 0.25)
"""Shares of the events, those the sharpest motion piles up least, searched again."""
SIMPLEX_STEP = 15.0
"""First step of the Nelder–Mead search in every parameter (px/s; gradients × reach_px)."""
SEARCH_EVENTS = 200_000
"""Events the pair search runs on (every k-th): the scenes hold 25–75 thousand, so they are
searched whole; a larger window's winning pair is refined again on up to FINAL_EVENTS."""
FINAL_EVENTS = 1_000_000
"""Events the winning pair is refined on; every event is assigned."""
RANKING_TOLERANCE = 6.0
"""When a window is too large to search whole, its pairs are ranked after one round each
whose Nelder–Mead searches stop once their simplex spans less than this (px/s), and the
winner is refined in full on FINAL_EVENTS. On development scenes 1–7 at 1280 × 720
(2.9–5.7 M events) this picked the same pairs as two full rounds, in a quarter of the
evaluations, and the worse motion error of each changed by at most 1.7 px/s."""


def as_motion(motion: np.ndarray) -> np.ndarray:
    """A six-number motion (a 2-vector is a translation)."""
    motion = np.asarray(motion, dtype=np.float64)
    return motion if motion.size == 6 else np.concatenate([motion, np.zeros(4)])


def flow(
    motion: np.ndarray, x: np.ndarray, y: np.ndarray, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """The velocity (px/s) of a motion at pixel coordinates (x, y) of a width × height image."""
    vx, vy, axx, axy, ayx, ayy = as_motion(motion)
    dx, dy = x - (width - 1) / 2, y - (height - 1) / 2
    return vx + axx * dx + axy * dy, vy + ayx * dx + ayy * dy


def origin(
    motion: np.ndarray, x: np.ndarray, y: np.ndarray, s: np.ndarray | float, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Where the points seen at (x, y) a time s (s) after the reference time were at it:
    p = c + (I + s·A)⁻¹·(q − c − s·v), the inverse of q = p + s·u(p) (px)."""
    vx, vy, axx, axy, ayx, ayy = as_motion(motion)
    rx, ry = x - (width - 1) / 2 - s * vx, y - (height - 1) / 2 - s * vy
    det = (1 + s * axx) * (1 + s * ayy) - s * s * axy * ayx
    return ((1 + s * ayy) * rx - s * axy * ry) / det + (width - 1) / 2, (
        (1 + s * axx) * ry - s * ayx * rx
    ) / det + (height - 1) / 2


@dataclass(frozen=True)
class EventCloud:
    """Event coordinates as floats, times relative to the middle event (s), polarity (0/1),
    sensor size. IWEs keep ON and OFF events apart (an edge moving one way makes one
    polarity), which sharpens them; they are rendered in `space` (see iwe.py), which clouds
    thinned from this one share. `rank`: each event's place in time order within this
    cloud; `index`: its place in the events the cloud was made of (a `local` cloud stores
    them in pixel order, so that rendering writes nearby pixels one after another)."""

    x: np.ndarray
    y: np.ndarray
    dt: np.ndarray
    polarity: np.ndarray
    width: int
    height: int
    space: IWEWorkspace = field(repr=False, compare=False)
    rank: np.ndarray = field(repr=False, compare=False)
    index: np.ndarray = field(repr=False, compare=False)

    @classmethod
    def of(cls, events: np.ndarray, width: int, height: int, local: bool = False) -> EventCloud:
        """The cloud of `events` (time-ordered); `local`: stored in pixel order (row by row),
        which makes the splatted IWE's writes fall near each other (3x faster at 20,000
        events on 1280 × 720); results per event are then in cloud order (`in_input_order`
        maps them back)."""
        middle = float(events["t"][len(events) // 2]) if len(events) else 0.0
        # a fixed sub-pixel jitter: unwarped events would otherwise all sit on pixel centres,
        # where bilinear voting does not spread them, and zero velocity components would
        # look sharper than they are
        jitter = np.random.default_rng(0).uniform(-0.5, 0.5, (2, len(events)))
        if local:  # one sort and one gather in numba: 2–3x numpy's lexsort and gathers
            order = pixel_order(events["x"], events["y"], width, height)
            x, y, dt, polarity = gather_events(order, events, jitter, middle)
        else:
            order = np.arange(len(events))
            x, y = events["x"] + jitter[0], events["y"] + jitter[1]
            dt = (events["t"].astype(np.float64) - middle) * 1e-6
            polarity = events["p"].astype(np.int64)
        return cls(x, y, dt, polarity, width, height, IWEWorkspace(width, height), order, order)

    def thinned(self, most: int) -> EventCloud:
        """Every k-th event in time order, k chosen so that at most `most` remain (kept in
        this cloud's storage order)."""
        step = max(1, -(-self.x.size // most))
        if step == 1:
            return self
        keep = self.rank % step == 0
        return EventCloud(
            self.x[keep],
            self.y[keep],
            self.dt[keep],
            self.polarity[keep],
            self.width,
            self.height,
            self.space,
            self.rank[keep] // step,
            self.index[keep],
        )

    def in_input_order(self, values: np.ndarray) -> np.ndarray:
        """Per-event `values` of a cloud made by `of` (in its storage order), put back in the
        order of the events it was made of."""
        out = np.empty_like(values)
        out[self.index] = values
        return out

    def with_own_space(self) -> EventCloud:
        """The same events with buffers of their own (for another thread)."""
        return EventCloud(
            self.x,
            self.y,
            self.dt,
            self.polarity,
            self.width,
            self.height,
            IWEWorkspace(self.width, self.height),
            self.rank,
            self.index,
        )

    def warped(self, motion: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each event lands at the reference time under `motion` (px)."""
        return origin(motion, self.x, self.y, self.dt, self.width, self.height)

    def _render(self, motion: np.ndarray, weight: np.ndarray) -> tuple[float, float]:
        return self.space.render(
            self.x,
            self.y,
            self.dt,
            self.polarity,
            np.asarray(weight, np.float64),
            as_motion(motion),
        )

    def iwe(self, motion: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """(2, H, W): the smoothed IWE of OFF and ON events."""
        self._render(motion, weight)
        image = self.space.dense()
        self.space.clear()
        return image

    def variance(self, motion: np.ndarray, weight: np.ndarray) -> float:
        """Variance of the IWE's pixels."""
        total, squares = self._render(motion, weight)
        self.space.clear()
        size = self.space.size
        return squares / size - (total / size) ** 2

    def contrast(self, motion: np.ndarray, weight: np.ndarray) -> float:
        """Variance of the IWE, per unit of total weight squared (comparable across subsets)."""
        return (
            self.variance(motion, weight) * self.space.size / max(float(np.sum(weight)) ** 2, 1e-12)
        )

    def landing(self, motion: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
        """The value of the IWE of each event's own polarity where it lands, the IWE made of
        the events `weight` gives (all by default)."""
        everyone = np.ones(self.x.size) if weight is None else weight
        self._render(motion, everyone)
        out = self.space.landing(self.x, self.y, self.dt, self.polarity, as_motion(motion))
        self.space.clear()
        return out

    @property
    def reach_px(self) -> float:
        """Half the image diagonal (px): how far from the centre a velocity gradient acts."""
        return float(np.hypot(self.width, self.height)) / 2


def contrast_map(
    cloud: EventCloud, weight: np.ndarray, limit: float, step: float
) -> tuple[np.ndarray, np.ndarray]:
    """(velocity axis, contrast on the grid axis × axis (vy rows, vx columns)) in px/s, of
    IWEs blurred by a Gaussian truncated at GRID_RADIUS."""
    axis = np.arange(-limit, limit + step / 2, step)
    vx, vy = np.meshgrid(axis, axis)  # vy rows, vx columns
    sums = translation_grid(
        cloud.x,
        cloud.y,
        cloud.dt,
        cloud.polarity,
        weight,
        np.stack([vx.ravel(), vy.ravel()], axis=1),
        cloud.width,
        cloud.height,
        GRID_RADIUS,
    )
    size = 2 * cloud.width * cloud.height
    values = (sums[:, 1] - sums[:, 0] ** 2 / size) / max(float(np.sum(weight)) ** 2, 1e-12)
    return axis, values.reshape(vx.shape)


def peaks(axis: np.ndarray, values: np.ndarray) -> list[np.ndarray]:
    """Grid velocities that beat their 8 neighbours, highest contrast first."""
    padded = np.pad(values, 1, constant_values=-np.inf)
    rows, cols = values.shape
    neighbours = [
        padded[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + cols]
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if dy or dx
    ]
    local = np.all([values > n for n in neighbours], axis=0)
    found = sorted(zip(*np.nonzero(local), strict=True), key=lambda rc: -values[rc])
    return [np.array([axis[c], axis[r]]) for r, c in found]


def refine(
    cloud: EventCloud,
    weight: np.ndarray,
    start: np.ndarray,
    other: np.ndarray | None = None,
    gap: float = 0.0,
    affine: bool = False,
    tolerance: float | None = None,
) -> np.ndarray:
    """Local maximum of the contrast from the motion `start` (Nelder–Mead), its velocity kept
    at least `gap` px/s from `other`'s (the other layer's motion). Translations vary the
    velocity only; with `affine`, the velocity gradient too (scaled by `reach_px`, so that
    every parameter is a velocity). The search stops when the contrast no longer changes
    across a simplex narrower than 0.5 px/s or, given a `tolerance` (px/s), as soon as the
    simplex is narrower than that."""
    start, scale = as_motion(start), np.array([1, 1, *[cloud.reach_px] * 4])
    free = 6 if affine else 2

    def motion(z: np.ndarray) -> np.ndarray:
        return np.concatenate([z / scale[:free], start[free:]])

    def loss(z: np.ndarray) -> float:
        m = motion(z)
        if other is not None and np.hypot(*(m[:2] - other[:2])) < gap:
            return np.inf
        return -cloud.contrast(m, weight)

    origin = start[:free] * scale[:free]
    simplex = np.vstack([origin, origin + SIMPLEX_STEP * np.eye(free)])
    options = {
        "xatol": 0.5 if tolerance is None else tolerance,
        "fatol": 1e-12 if tolerance is None else np.inf,
        "initial_simplex": simplex,
    }
    return motion(minimize(loss, origin, method="Nelder-Mead", options=options).x)


@dataclass(frozen=True)
class TwoMotions:
    """motions: (2, 6) one per layer (see the module doc); layer: each event's motion (0 or
    1); contrast of each."""

    motions: np.ndarray
    layer: np.ndarray
    contrast: tuple[float, float]

    @property
    def velocities(self) -> np.ndarray:
        """(2, 2) px/s: each motion's velocity at the image centre."""
        return self.motions[:, :2]


def assign(
    cloud: EventCloud,
    motions: np.ndarray,
    own: tuple[EventCloud, EventCloud] | None = None,
    pool: Executor | None = None,
) -> np.ndarray:
    """Each event's layer: the motion under which it lands on the higher IWE (all events);
    with `pool`, the two landings on two threads, in the clouds `own` (one each)."""
    if pool is None or own is None:
        scores = [cloud.landing(m) for m in motions]
    else:
        found = [pool.submit(own[k].landing, motions[k]) for k in (0, 1)]
        scores = [f.result() for f in found]
    return (scores[1] > scores[0]).astype(np.int64)


def alternate(
    cloud: EventCloud,
    motions: np.ndarray,
    rounds: int,
    gap: float,
    affine: bool = False,
    tolerance: float | None = None,
    parallel: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """`rounds` of assigning events and refining each motion on its own events; the motions
    and the final assignment. Each motion is kept `gap` px/s from the other's latest value;
    with `parallel` both are refined at once on two threads, each against the other's value
    at the round's start."""
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import nullcontext

    motions = motions.copy()
    own = (cloud, cloud.with_own_space() if parallel else cloud)
    with ThreadPoolExecutor(2) if parallel else nullcontext() as pool:
        for _ in range(rounds):
            layer = assign(cloud, motions, own, pool)
            weights = [(layer == k).astype(np.float64) for k in (0, 1)]
            if pool is None:
                for k in (0, 1):
                    motions[k] = refine(
                        cloud, weights[k], motions[k], motions[1 - k], gap, affine, tolerance
                    )
            else:
                found = [
                    pool.submit(
                        refine,
                        own[k],
                        weights[k],
                        motions[k],
                        motions[1 - k],
                        gap,
                        affine,
                        tolerance,
                    )
                    for k in (0, 1)
                ]
                motions = np.array([f.result() for f in found])
        return motions, assign(cloud, motions, own, pool)


def candidates(cloud: EventCloud, limit: float, gap: float) -> list[np.ndarray]:
    """Starting velocities (px/s): the strongest peaks of the contrast over a coarse grid,
    then, on the half and on the quarter of the events the sharpest motion piles up least,
    the strongest peaks there (a layer that makes few events rarely makes a peak of its own
    among all events); none within `gap` of one already taken. Searched on at most
    GRID_EVENTS events."""
    cloud = cloud.thinned(GRID_EVENTS)
    everyone = np.ones(cloud.x.size)
    axis, values = contrast_map(cloud, everyone, limit, GRID_STEP)
    found = peaks(axis, values)[:PEAKS]
    pile = cloud.landing(found[0], everyone)
    for share in DEFLATION:
        rest = (pile < np.quantile(pile, share)).astype(np.float64)
        found += peaks(*contrast_map(cloud, rest, limit, GRID_STEP))[:CANDIDATES]
    kept: list[np.ndarray] = []
    for v in found:
        if all(np.hypot(*(v - k)) >= gap for k in kept):
            kept.append(v)
    return kept


def two_motions(
    events: np.ndarray,
    width: int,
    height: int,
    limit: float = 300.0,
    rounds: int = 2,
    gap: float = 30.0,
    affine: bool = False,
) -> TwoMotions:
    """Two motions (velocities at least `gap` px/s apart) and each event's layer, from
    events alone: for every pair of candidate velocities (see `candidates`) `rounds` of
    assigning events and refining each translation on its own events (`alternate`); the
    pair whose two layers' IWEs are sharpest in total wins; with `affine`, its two motions
    then gain velocity gradients in as many rounds again. On development scenes 0–39 (pure
    translations): both motions within 20 px/s on 29 of 40, against 21 with candidates from
    a 30 ms slice, and 37 when each motion is refined on the events the ground truth gives
    it. The pairs are tried in parallel on numba's threads, on at most SEARCH_EVENTS
    events; a larger window ranks its pairs after one coarse round each (see
    RANKING_TOLERANCE) and refines the winner on up to FINAL_EVENTS, its two motions on two
    threads (2.9–5.7 M events at 1280 × 720: 13–24 s on two cores)."""
    cloud = EventCloud.of(events, width, height, local=True)
    search = cloud.thinned(SEARCH_EVENTS)
    whole = search is cloud
    starts = candidates(search, limit, gap)
    pairs = [
        (a, b)
        for i, a in enumerate(starts)
        for b in starts[i + 1 :]
        if np.hypot(*(a - b)) >= 2 * gap
    ]
    # a window too large to search whole ranks its pairs after one coarse round each, and
    # refines the winner on more events, its two motions on two threads
    tried = _try_pairs(
        search,
        pairs or [(starts[0], starts[0] + 2 * gap)],
        rounds if whole else 1,
        gap,
        None if whole else RANKING_TOLERANCE,
    )
    # the pair that makes both layers' own IWEs sharpest in total (the first of equals)
    _, motions, layer = max(tried, key=lambda found: found[0])
    final = cloud.thinned(FINAL_EVENTS)
    if not whole:
        motions, layer = alternate(final, motions, rounds, gap, parallel=True)
    if affine:
        motions, layer = alternate(final, motions, rounds, gap, affine=True, parallel=not whole)
    if final is not cloud:
        layer = assign(cloud, motions)
    contrast = tuple(cloud.contrast(motions[k], (layer == k).astype(np.float64)) for k in (0, 1))
    return TwoMotions(motions, cloud.in_input_order(layer), contrast)  # type: ignore[arg-type]


def _try_pairs(
    cloud: EventCloud,
    pairs: list[tuple[np.ndarray, np.ndarray]],
    rounds: int,
    gap: float,
    tolerance: float | None,
) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """(sharpness, motions, layer) of `alternate` from each pair of starting velocities,
    the pairs shared among numba's threads (each with buffers of its own; numba releases
    the GIL, and each result depends on its pair only)."""
    from concurrent.futures import ThreadPoolExecutor
    from queue import SimpleQueue

    from numba import get_num_threads

    workers = max(1, min(get_num_threads(), len(pairs)))
    free: SimpleQueue[EventCloud] = SimpleQueue()
    for k in range(workers):
        free.put(cloud if k == 0 else cloud.with_own_space())

    def attempt(pair: tuple[np.ndarray, np.ndarray]) -> tuple[float, np.ndarray, np.ndarray]:
        own = free.get()  # buffers no other thread holds
        try:
            motions, layer = alternate(
                own, np.array([as_motion(v) for v in pair]), rounds, gap, tolerance=tolerance
            )
            sharpness = sum(
                own.variance(motions[k], (layer == k).astype(np.float64)) for k in (0, 1)
            )
        finally:
            free.put(own)
        return sharpness, motions, layer

    if workers == 1:
        return [attempt(pair) for pair in pairs]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(attempt, pairs))
