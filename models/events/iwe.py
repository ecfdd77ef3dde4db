"""Images of warped events (IWEs) whose cost grows with the events, not with the sensor.

An IWE is the events warped to the reference time along a motion, each voting bilinearly
for the four pixels around where it lands (ON and OFF events in two planes), then blurred
by a Gaussian of SMOOTHING_PX (scipy's `gaussian_filter` with its defaults: radius 4 px,
'reflect' at the sensor's edges). Contrast maximisation only needs the sum and the sum of
squares of that image, and the value of it where each event lands. A full-sensor image
costs 2·H·W work per evaluation whatever the events (1280 × 720: 1.8 M pixels for a window
that may hold a thousand events). Here one of two paths runs, whichever costs less:

- splatting: each event adds its blurred bilinear vote, a 10 × 10 footprint (the outer
  product of two 10-tap vectors), straight into the image, and the sum of squares is kept
  as it goes (v → v + δ adds 2vδ + δ²); clearing zeroes the same footprints. Cost: 100
  per event, nothing per pixel.
- dense over the box: votes into a buffer, then two separable passes of the blur over the
  voted pixels' bounding box grown by the blur radius (18 per pixel of the box), and only
  the box cleared.

The result equals scipy's full-sensor computation to rounding (tested). All of it runs in
numba, warp included, so an evaluation allocates nothing; the renders release the GIL.
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

SMOOTHING_PX = 1.0
"""Gaussian blur of every IWE (px): smooths the contrast landscape for the optimiser."""
RADIUS = int(4.0 * SMOOTHING_PX + 0.5)
"""Half-width of the blur kernel (px), scipy's for truncate=4."""
SPLAT_COST = 4
"""What one splatted tap costs in taps of the dense passes (its writes scatter over the
image): the splat runs when it costs less by that measure."""
GRID_RADIUS = int(2.0 * SMOOTHING_PX + 0.5)
"""Half-width of the blur of the candidate grid's IWEs (px; truncated at 2σ): a 6 × 6
footprint where the refinement splats 10 × 10, 3x fewer writes. The grid only proposes
starting velocities; on development scenes at 1280 × 720 it proposed the same winners."""
SMALLEST_SIDE_PX = 2 * RADIUS + 2
"""Sensors narrower than an event's footprint would need reflections of reflections."""


def gaussian_taps(sigma_px: float = SMOOTHING_PX, radius: int = RADIUS) -> np.ndarray:
    """The normalised 1-D Gaussian kernel of 2·radius + 1 taps, as scipy builds it."""
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    taps = np.exp(-0.5 / sigma_px**2 * x**2)
    return taps / taps.sum()


@njit(cache=True, inline="always")
def _reflect(i: int, size: int) -> int:
    """scipy's 'reflect' boundary (d c b a | a b c d | d c b a) for |overhang| ≤ size."""
    if i < 0:
        return -i - 1
    if i >= size:
        return 2 * size - i - 1
    return i


@njit(cache=True, inline="always")
def _warp(x, y, s, motion, cx, cy):
    """Where a point seen at (x, y) a time s after the reference time was at it (cmax.origin)."""
    vx, vy, axx, axy, ayx, ayy = motion[0], motion[1], motion[2], motion[3], motion[4], motion[5]
    rx, ry = x - cx - s * vx, y - cy - s * vy
    det = (1 + s * axx) * (1 + s * ayy) - s * s * axy * ayx
    return ((1 + s * ayy) * rx - s * axy * ry) / det + cx, (
        (1 + s * axx) * ry - s * ayx * rx
    ) / det + cy


@njit(cache=True, inline="always")
def _landing_cell(x, y, s, motion, cx, cy, width, height):
    """(wx, wy, ⌊wx⌋, ⌊wy⌋, whether any of the four vote corners is on the sensor)."""
    wx, wy = _warp(x, y, s, motion, cx, cy)
    ix, iy = int(np.floor(wx)), int(np.floor(wy))
    return wx, wy, ix, iy, not (ix + 1 < 0 or ix >= width or iy + 1 < 0 or iy >= height)


@njit(cache=True, inline="always")
def _axis_weights(i, f, size, taps, out):
    """The footprint's weights along one axis for a vote at i + f (0 ≤ f < 1): the blur
    taps of the corner at i (share 1 − f) and of the one at i + 1 (share f), a corner
    outside the sensor dropped; returns the share that lands inside."""
    low = 1 - f if 0 <= i < size else 0.0
    high = f if 0 <= i + 1 < size else 0.0
    n = taps.size
    for j in range(n + 1):
        out[j] = (low * taps[j] if j < n else 0.0) + (high * taps[j - 1] if j > 0 else 0.0)
    return low + high


@njit(cache=True, nogil=True)
def _render(
    x, y, dt, polarity, weight, motion, width, height, taps, votes, image, tmp, corners, state
):
    """Warp, vote and blur: leaves the blurred IWE in `image` (flat, 2·H·W, zero where
    nothing was written) and returns (sum, sum of squares) of it; `votes` and `tmp` are
    left zero. `state` records what `image` holds for `_clear`: [mode, count, top, bottom,
    left, right], mode 0 splatted (the footprints of the `count` events in `corners`:
    plane, row, column of each vote's top-left corner), 1 dense (rows top:bottom, columns
    left:right of both planes)."""
    plane = height * width
    cx, cy = (width - 1) / 2, (height - 1) / 2
    n = taps.size
    r = n // 2
    count = 0
    top, bottom, left, right = height, -1, width, -1
    for i in range(x.size):
        if weight[i] == 0.0:
            continue
        _, _, ix, iy, on_sensor = _landing_cell(x[i], y[i], dt[i], motion, cx, cy, width, height)
        if not on_sensor:
            continue
        count += 1
        top, bottom = min(top, max(iy, 0)), max(bottom, min(iy + 1, height - 1))
        left, right = min(left, max(ix, 0)), max(right, min(ix + 1, width - 1))
    state[0], state[1] = 0, 0
    if count == 0:
        return 0.0, 0.0
    y0, y1 = max(top - r, 0), min(bottom + r + 1, height)
    x0, x1 = max(left - r, 0), min(right + r + 1, width)
    total, squares = 0.0, 0.0
    # a splatted tap costs about four of the dense passes' (scattered writes; measured)
    if SPLAT_COST * count * (n + 1) * (n + 1) <= 4 * (y1 - y0) * (x1 - x0) * n + 4 * count:
        along_x, along_y = np.empty(n + 1), np.empty(n + 1)
        k = 0
        for i in range(x.size):
            w = weight[i]
            if w == 0.0:
                continue
            wx, wy, ix, iy, on_sensor = _landing_cell(
                x[i], y[i], dt[i], motion, cx, cy, width, height
            )
            if not on_sensor:
                continue
            share = _axis_weights(ix, wx - ix, width, taps, along_x)
            share *= _axis_weights(iy, wy - iy, height, taps, along_y)
            total += w * share
            base = polarity[i] * plane
            corners[k, 0], corners[k, 1], corners[k, 2] = polarity[i], iy, ix
            k += 1
            inside = ix - r >= 0 and ix + 1 + r < width
            for a in range(n + 1):
                row = base + _reflect(iy - r + a, height) * width
                wa = w * along_y[a]
                for b in range(n + 1):
                    t = row + (ix - r + b if inside else _reflect(ix - r + b, width))
                    delta = wa * along_x[b]
                    v = image[t]
                    squares += delta * (2 * v + delta)
                    image[t] = v + delta
        state[1] = count
        return total, squares
    for i in range(x.size):
        w = weight[i]
        if w == 0.0:
            continue
        wx, wy = _warp(x[i], y[i], dt[i], motion, cx, cy)
        ix, iy = int(np.floor(wx)), int(np.floor(wy))
        fx, fy = wx - ix, wy - iy
        base = polarity[i] * plane
        for corner in range(4):
            ox, oy = corner & 1, corner >> 1
            px, py = ix + ox, iy + oy
            if 0 <= px < width and 0 <= py < height:
                votes[base + py * width + px] += w * (fx if ox else 1 - fx) * (fy if oy else 1 - fy)
    # each blurred pixel is the same sum in the same order as a tap-by-tap loop (so the
    # same number), taken tap by tap along row views, which vectorise
    inner0, inner1 = max(x0, r), max(min(x1, width - r), max(x0, r))
    for p in range(2):
        base = p * plane
        for py in range(top, bottom + 1):  # horizontal pass over the voted rows
            row = base + py * width
            into, voted = tmp[row : row + width], votes[row : row + width]
            for b in range(n):
                tb = taps[b]
                for tx in range(x0, inner0):
                    into[tx] += tb * voted[_reflect(tx + b - r, width)]
                shifted = voted[inner0 + b - r : inner1 + b - r]
                middle = into[inner0:inner1]
                for k in range(inner1 - inner0):
                    middle[k] += tb * shifted[k]
                for tx in range(inner1, x1):
                    into[tx] += tb * voted[_reflect(tx + b - r, width)]
        for ty in range(y0, y1):  # vertical pass over the grown box
            out = image[base + ty * width + x0 : base + ty * width + x1]
            for a in range(n):
                ta = taps[a]
                start = base + _reflect(ty + a - r, height) * width
                source = tmp[start + x0 : start + x1]
                for k in range(x1 - x0):
                    out[k] += ta * source[k]
            for k in range(x1 - x0):
                v = out[k]
                total += v
                squares += v * v
        for py in range(top, bottom + 1):
            row = base + py * width
            votes[row + left : row + right + 1] = 0.0
            tmp[row + x0 : row + x1] = 0.0
    state[0], state[2], state[3], state[4], state[5] = 1, y0, y1, x0, x1
    return total, squares


@njit(cache=True, nogil=True)
def _clear(image, corners, state, width, height, radius):
    """Zero what `_render` wrote into `image`."""
    plane = height * width
    if state[0] == 0:
        for k in range(state[1]):
            base = corners[k, 0] * plane
            iy, ix = corners[k, 1], corners[k, 2]
            for a in range(2 * radius + 2):
                row = base + _reflect(iy - radius + a, height) * width
                for b in range(2 * radius + 2):
                    image[row + _reflect(ix - radius + b, width)] = 0.0
        return
    for p in range(2):
        for ty in range(state[2], state[3]):
            start = p * plane + ty * width
            image[start + state[4] : start + state[5]] = 0.0


@njit(cache=True, nogil=True)
def _landing(x, y, dt, polarity, motion, width, height, image, out):
    """The bilinear value of `image` (flat, 2·H·W) where each event lands, in the plane of
    its own polarity, positions clamped to the sensor."""
    plane = height * width
    cx, cy = (width - 1) / 2, (height - 1) / 2
    for i in range(x.size):
        wx, wy = _warp(x[i], y[i], dt[i], motion, cx, cy)
        wx = min(max(wx, 0.0), width - 1.001)
        wy = min(max(wy, 0.0), height - 1.001)
        ix, iy = int(wx), int(wy)
        fx, fy = wx - ix, wy - iy
        k = polarity[i] * plane + iy * width + ix
        upper = (1 - fx) * image[k] + fx * image[k + 1]
        lower = (1 - fx) * image[k + width] + fx * image[k + width + 1]
        out[i] = (1 - fy) * upper + fy * lower


@njit(cache=True, parallel=True)
def _contrast_grid(
    x,
    y,
    dt,
    polarity,
    weight,
    velocities,
    width,
    height,
    taps,
    votes,
    image,
    tmp,
    corners,
    state,
    out,
):
    """`_render`'s (sum, sum of squares) for the translation at each row of `velocities`
    (px/s), the rows shared out in as many chunks as there are rows of the buffers (one
    chunk a thread)."""
    chunks = votes.shape[0]
    per = -(-velocities.shape[0] // chunks)
    for c in prange(chunks):
        motion = np.zeros(6)
        for j in range(c * per, min((c + 1) * per, velocities.shape[0])):
            motion[0], motion[1] = velocities[j, 0], velocities[j, 1]
            out[j, 0], out[j, 1] = _render(
                x,
                y,
                dt,
                polarity,
                weight,
                motion,
                width,
                height,
                taps,
                votes[c],
                image[c],
                tmp[c],
                corners[c],
                state[c],
            )
            _clear(image[c], corners[c], state[c], width, height, taps.size // 2)


def translation_grid(
    x: np.ndarray,
    y: np.ndarray,
    dt: np.ndarray,
    polarity: np.ndarray,
    weight: np.ndarray,
    velocities: np.ndarray,
    width: int,
    height: int,
    radius: int = RADIUS,
) -> np.ndarray:
    """(sum, sum of squares) of the IWE blurred by a Gaussian truncated at `radius` px
    under each translation (rows of `velocities`, px/s), shape (n, 2): the renders run in
    parallel on numba's threads, each thread with buffers of its own."""
    chunks = max(1, min(get_num_threads(), len(velocities)))
    size = 2 * width * height
    out = np.empty((len(velocities), 2))
    _contrast_grid(
        x,
        y,
        dt,
        polarity,
        np.asarray(weight, np.float64),
        np.ascontiguousarray(velocities, np.float64),
        width,
        height,
        gaussian_taps(radius=radius),
        np.zeros((chunks, size)),
        np.zeros((chunks, size)),
        np.zeros((chunks, size)),
        np.zeros((chunks, x.size, 3), np.int32),
        np.zeros((chunks, 6), np.int64),
        out,
    )
    return out


@njit(cache=True)
def _counting_order(x, y, width, height):
    """The stable order of events by pixel, row by row (a counting sort: O(events + pixels))."""
    starts = np.zeros(width * height + 1, np.int64)
    for i in range(x.size):
        starts[np.int64(y[i]) * width + x[i] + 1] += 1
    for k in range(1, starts.size):
        starts[k] += starts[k - 1]
    order = np.empty(x.size, np.int64)
    for i in range(x.size):
        key = np.int64(y[i]) * width + x[i]
        order[starts[key]] = i
        starts[key] += 1
    return order


def pixel_order(x: np.ndarray, y: np.ndarray, width: int, height: int) -> np.ndarray:
    """Indices that put events in pixel order, row by row, events of one pixel in their
    given order: `np.lexsort((x, y))`, by a counting sort where every event lies on the
    width × height sensor (5.7 M events: 0.2 s against lexsort's 0.4 s, best of five).

    Example:
        >>> import numpy as np
        >>> pixel_order(np.array([3, 0, 3, 1]), np.array([1, 1, 0, 1]), 4, 2).tolist()
        [2, 1, 3, 0]
    """
    x, y = np.asarray(x), np.asarray(y)
    if x.size and (x.min() < 0 or y.min() < 0 or x.max() >= width or y.max() >= height):
        return np.lexsort((x, y))
    return _counting_order(x, y, width, height)


@njit(cache=True)
def _gather(order, x, y, t, p, jitter, middle, out_x, out_y, out_dt, out_p):
    for k in range(order.size):
        i = order[k]
        out_x[k], out_y[k] = x[i] + jitter[0, i], y[i] + jitter[1, i]
        out_dt[k], out_p[k] = (np.float64(t[i]) - middle) * 1e-6, p[i]


def gather_events(
    order: np.ndarray, events: np.ndarray, jitter: np.ndarray, middle: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x + jitter[0], y + jitter[1] px, (t − middle) s, polarity) of the structured
    `events` (t in µs) taken in `order`, in one pass over the events (numpy gathers each
    column on its own)."""
    n = order.size
    x, y, dt, p = np.empty(n), np.empty(n), np.empty(n), np.empty(n, np.int64)
    _gather(order, events["x"], events["y"], events["t"], events["p"], jitter, middle, x, y, dt, p)
    return x, y, dt, p


class IWEWorkspace:
    """Buffers for IWEs of one sensor size, reused by every evaluation (three images of
    2·H·W numbers: 44 MB at 1280 × 720, and 12 bytes an event). Not thread-safe: one per
    thread.

    Example:
        >>> import numpy as np
        >>> space = IWEWorkspace(64, 48)
        >>> x, y = np.array([10.3, 20.0]), np.array([5.0, 7.5])
        >>> dt, polarity = np.zeros(2), np.array([0, 1])
        >>> total, _ = space.render(x, y, dt, polarity, np.ones(2), np.zeros(6))
        >>> round(total, 9)  # both events' votes, all inside the sensor
        2.0
        >>> space.clear()
    """

    def __init__(self, width: int, height: int) -> None:
        if min(width, height) < SMALLEST_SIDE_PX:
            raise ValueError(
                f"a {width} × {height} sensor is too small for images of warped "
                f"events (each side at least {SMALLEST_SIDE_PX} px)"
            )
        size = 2 * width * height
        self.width, self.height = width, height
        self.votes = np.zeros(size)
        self.image = np.zeros(size)
        self.tmp = np.zeros(size)
        self.corners = np.zeros((0, 3), dtype=np.int32)
        self.state = np.zeros(6, dtype=np.int64)
        self.taps = gaussian_taps()

    @property
    def size(self) -> int:
        """Pixels of both planes."""
        return self.votes.size

    def render(
        self,
        x: np.ndarray,
        y: np.ndarray,
        dt: np.ndarray,
        polarity: np.ndarray,
        weight: np.ndarray,
        motion: np.ndarray,
    ) -> tuple[float, float]:
        """Blurred IWE of events at (x, y) px, dt s from the reference time, polarity 0/1,
        under a six-number motion (see cmax): (sum, sum of squares) of its pixels; the
        image stays in `self.image` until `clear`."""
        if len(self.corners) < x.size:
            self.corners = np.zeros((x.size, 3), dtype=np.int32)
        total, squares = _render(
            x,
            y,
            dt,
            polarity,
            weight,
            motion,
            self.width,
            self.height,
            self.taps,
            self.votes,
            self.image,
            self.tmp,
            self.corners,
            self.state,
        )
        return float(total), float(squares)

    def landing(
        self, x: np.ndarray, y: np.ndarray, dt: np.ndarray, polarity: np.ndarray, motion: np.ndarray
    ) -> np.ndarray:
        """The rendered image's value where each event lands (call after `render`)."""
        out = np.empty(x.size)
        _landing(x, y, dt, polarity, motion, self.width, self.height, self.image, out)
        return out

    def dense(self) -> np.ndarray:
        """A copy of the rendered image as (2, H, W)."""
        return self.image.reshape(2, self.height, self.width).copy()

    def clear(self) -> None:
        """Make the image buffer zero again (only what `render` wrote)."""
        _clear(self.image, self.corners, self.state, self.width, self.height, RADIUS)
