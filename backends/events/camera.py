"""`events.camera`: a live event camera, through one of two drivers —
dv-processing (iniVation DVXplorer, DAVIS) or neuromorphic-drivers (its own USB protocol:
Prophesee EVK4 and EVK3-HD, iniVation DAVIS346 and DVXplorer). With no camera attached,
`substrates backends` says so and a run fails with that reason."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from functools import cached_property
from importlib.util import find_spec
from typing import Any, ClassVar, Literal

import numpy as np

from ...datasets.events.events import EVENT_DTYPE, Events
from ...errors import SubstratesError
from ..base import BackendOptions, Unavailability
from .base import EventsBackend, EventsCapabilities

Driver = Literal["dv-processing", "neuromorphic-drivers"]
MODULES: dict[str, str] = {
    "dv-processing": "dv_processing",
    "neuromorphic-drivers": "neuromorphic_drivers",
}
"""The module each driver imports."""


class CameraOptions(BackendOptions):
    """driver: dv-processing or neuromorphic-drivers (Prophesee cameras need the latter);
    serial: the camera's serial number (None: the first one found)."""

    driver: Driver = "dv-processing"
    serial: str | None = None


class NoCameraAccess(SubstratesError):
    """The driver could not even look for cameras (no USB access here)."""


def attached_cameras(driver: Driver = "dv-processing") -> list[str]:
    """Serial numbers of the cameras `driver` finds on USB."""
    if driver == "dv-processing":
        import dv_processing as dv

        return [device.serialNumber for device in dv.io.camera.discover()]
    import neuromorphic_drivers as nd

    try:
        listed = nd.list_devices()
    except RuntimeError as error:  # libusb cannot start: no USB bus to look on
        raise NoCameraAccess(
            f"neuromorphic-drivers could not list USB devices ({error}); is "
            "USB reachable here (a container needs /dev/bus/usb)?"
        ) from None
    return [device.serial for device in listed if device.serial is not None]


def windows(
    batches: Iterable[np.ndarray | None],
    width: int,
    height: int,
    window_us: int,
    limit_us: int | None,
) -> Iterator[Events]:
    """Consecutive `window_us` windows of a stream of time-ordered event batches (None: no
    events yet), from the first event on, until `limit_us` µs of stream time or the stream
    ends (its last window then holds what remains)."""
    pending = np.empty(0, EVENT_DTYPE)
    origin = start = None
    for batch in batches:
        if batch is None or not len(batch):
            continue
        pending = np.concatenate([pending, batch])
        if start is None:
            origin = start = int(pending["t"][0])
        while len(pending) and pending["t"][-1] >= start + window_us:
            cut = int(np.searchsorted(pending["t"], start + window_us))
            yield Events(pending[:cut], width, height)
            pending, start = pending[cut:], start + window_us
            if limit_us is not None and start >= origin + limit_us:
                return
    if len(pending):
        yield Events(pending, width, height)


def dv_batches(reader: Any) -> Iterator[np.ndarray | None]:
    """Event batches of a dv-processing camera (or recording: the same interface) while it
    runs, as EVENT_DTYPE arrays."""
    while reader.isRunning():
        batch = reader.getNextEventBatch()
        if batch is None:
            time.sleep(0.001)
            yield None
            continue
        raw = batch.numpy()
        array = np.empty(len(raw), EVENT_DTYPE)
        array["t"], array["x"], array["y"] = raw["timestamp"], raw["x"], raw["y"]
        array["p"] = raw["polarity"]
        yield array


def nd_batches(device: Iterable[tuple[Any, Any]]) -> Iterator[np.ndarray | None]:
    """Polarity events of a neuromorphic-drivers device's packets as EVENT_DTYPE arrays (t µs
    from the camera's start, `on` as p)."""
    for _, packet in device:
        raw = getattr(packet, "polarity_events", None)
        if raw is None:
            yield None
            continue
        array = np.empty(len(raw), EVENT_DTYPE)
        array["t"], array["x"], array["y"] = raw["t"], raw["x"], raw["y"]
        array["p"] = raw["on"]
        yield array


class CameraBackend(EventsBackend):
    """Events from a live camera, read in batches and cut into time windows."""

    name: ClassVar[str] = "events.camera"
    tier: ClassVar = "hardware"
    Options: ClassVar = CameraOptions

    options: CameraOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None:
            return problem
        driver = getattr(options, "driver", "dv-processing")
        if find_spec(MODULES[driver]) is None:
            needs = f"driver {driver} needs {MODULES[driver]!r}: pip install 'substrates[events]'"
            return Unavailability("missing-package", needs)
        try:
            serials = attached_cameras(driver)
        except NoCameraAccess as error:
            return Unavailability("no-device", f"no camera can be reached: {error}")
        wanted = getattr(options, "serial", None)
        if not serials:
            return Unavailability("no-device", f"no camera attached ({driver} found none on USB)")
        if wanted is not None and wanted not in serials:
            return Unavailability(
                "no-device", f"camera {wanted} is not attached; attached: {', '.join(serials)}"
            )
        return None

    @cached_property
    def camera(self) -> Any:
        serial = self.options.serial
        if self.options.driver == "dv-processing":
            import dv_processing as dv

            return dv.io.camera.open() if serial is None else dv.io.camera.open(serial)
        import neuromorphic_drivers as nd

        return nd.open(serial=serial)

    @cached_property
    def capabilities(self) -> EventsCapabilities:
        if self.options.driver == "dv-processing":
            width, height = self.camera.getEventResolution()
        else:
            properties = self.camera.properties()
            width, height = properties.width, properties.height
        return EventsCapabilities(int(width), int(height), True, None)

    def _packets(self, window_us: int, limit_us: int | None) -> Iterator[Events]:
        """Windows of the live stream for `limit_us` µs of camera time."""
        batches = (
            dv_batches(self.camera)
            if self.options.driver == "dv-processing"
            else nd_batches(self.camera)
        )
        caps = self.capabilities
        yield from windows(batches, caps.width, caps.height, window_us, limit_us)
