"""`events.camera`: a live iniVation camera (DVXplorer, DAVIS) through dv-processing. With
no camera attached, `substrates backends` says so and a run fails with that reason."""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from ..base import BackendOptions, Unavailability
from .base import EventsBackend, EventsCapabilities


class CameraOptions(BackendOptions):
    """serial: the camera's serial number (None: the first one found)."""

    serial: str | None = None


def attached_cameras() -> list[str]:
    """Serial numbers of the iniVation cameras on USB."""
    import dv_processing as dv

    return [device.serialNumber for device in dv.io.camera.discover()]


class CameraBackend(EventsBackend):
    """Events from a live camera, read in batches and cut into time windows."""

    name: ClassVar[str] = "events.camera"
    tier: ClassVar = "hardware"
    Options: ClassVar = CameraOptions
    requires: ClassVar = ("dv_processing",)

    options: CameraOptions

    @classmethod
    def unavailability(cls, options: BackendOptions) -> Unavailability | None:
        problem = super().unavailability(options)
        if problem is not None:
            return problem
        serials = attached_cameras()
        wanted = getattr(options, "serial", None)
        if not serials:
            return Unavailability("no-device", "no iniVation camera attached (dv-processing "
                                  "discovered none on USB)")  # fmt: skip
        if wanted is not None and wanted not in serials:
            return Unavailability("no-device", f"camera {wanted} is not attached; attached: "
                                  f"{', '.join(serials)}")  # fmt: skip
        return None

    @cached_property
    def camera(self) -> Any:
        import dv_processing as dv

        if self.options.serial is None:
            return dv.io.camera.open()
        return dv.io.camera.open(self.options.serial)

    @cached_property
    def capabilities(self) -> EventsCapabilities:
        width, height = self.camera.getEventResolution()
        return EventsCapabilities(width, height, True, None)

    def packets(self, window_us: int, limit_us: int | None = None) -> Iterator[Any]:
        """Windows of the live stream for `limit_us` µs of camera time."""
        from substrates.datasets.events.events import EVENT_DTYPE, Events

        self.validate(window_us, limit_us)
        width, height = self.capabilities.width, self.capabilities.height
        pending = np.empty(0, EVENT_DTYPE)
        origin = start = None
        while self.camera.isRunning():
            batch = self.camera.getNextEventBatch()
            if batch is None:
                time.sleep(0.001)
                continue
            raw = batch.numpy()
            array = np.empty(len(raw), EVENT_DTYPE)
            array["t"], array["x"], array["y"] = raw["timestamp"], raw["x"], raw["y"]
            array["p"] = raw["polarity"]
            pending = np.concatenate([pending, array])
            if start is None and len(pending):
                origin = start = int(pending["t"][0])
            if start is None:
                continue
            while len(pending) and pending["t"][-1] >= start + window_us:
                cut = int(np.searchsorted(pending["t"], start + window_us))
                yield Events(pending[:cut], width, height)
                pending, start = pending[cut:], start + window_us
                if limit_us is not None and start >= origin + limit_us:
                    return
