"""The amortised fit's bank against the simulator itself: the neighbourhood's slots against
brute-force distances on the paper's hexagonal lattice, and a bank row moved onto another
electrode of the whole array shows the spike and thresholds the bank holds for it (the
only assumption amortisation makes is that the physics is the same wherever the cell
lies relative to an electrode)."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.mea.geometry import hexagonal
from substrates.models.hh import amortised

PITCH_UM = 30.0


def test_slots_are_the_electrodes_at_the_neighbourhoods_offsets() -> None:
    positions = hexagonal(16, 32, PITCH_UM)
    hood = amortised.Neighbourhood.of(positions)
    assert hood.pitch_um == pytest.approx(PITCH_UM)
    assert len(hood.offsets_um) == 37 and len(hood.ring) == 7  # three rings, and one
    assert np.allclose(hood.offsets_um[0], 0.0)
    for reference in (100, 0, 511):  # interior, and two corners
        slots = hood.slots(positions, reference)
        distance = np.linalg.norm(positions - positions[reference], axis=1)
        near = set(np.flatnonzero(distance <= amortised.PATCH_PITCHES * PITCH_UM + 1e-9))
        assert set(slots[slots >= 0].tolist()) == near  # brute force: every electrode near
        filled = slots >= 0
        assert np.allclose(positions[slots[filled]] - positions[reference], hood.offsets_um[filled])
    assert (hood.slots(positions, 100) >= 0).all()
    assert (hood.slots(positions, 0) < 0).sum() > 20  # most of a corner's patch is missing


def test_a_bank_row_moved_onto_another_electrode_shows_what_the_bank_holds() -> None:
    pytest.importorskip("jaxley")
    from substrates.backends.mea.simulation import CellSimulation

    positions = hexagonal(10, 10, PITCH_UM)
    reports: list[tuple[str, int, int]] = []
    bank = amortised.build_bank(
        CellSimulation, positions, draws=4, at=20, seed=3, progress=lambda *r: reports.append(r)
    )
    assert bank.templates_uv.shape[:2] == (4, 37) and bank.thresholds_ua.shape == (4, 7)
    assert reports[-1] == ("thresholds", 4, 4) and ("cells kept", 4, 4) in reports
    assert reports.index(("cells kept", 4, 4)) < reports.index(("thresholds", 0, 4))
    assert bank.drawn >= 4
    assert (bank.templates_uv.min(axis=2).argmin(axis=1) == 0).all()  # deepest at the reference
    whole = CellSimulation(positions)
    names = [p.name for p in whole.parameters]
    hood = bank.neighbourhood
    reference = 34  # not the electrode the bank was simulated around
    slots = hood.slots(positions, reference)
    present = slots >= 0
    theta = bank.theta[:2].copy()
    theta[:, names.index("x_um")] += positions[reference, 0]
    theta[:, names.index("y_um")] += positions[reference, 1]
    from substrates.models.hh.summary import align

    spikes = align(whole.templates(theta), reference, bank.at)
    assert np.allclose(spikes[:, slots[present]], bank.templates_uv[:2, present], atol=1e-6)
    ring = slots[hood.ring]
    assert (ring >= 0).all()
    thresholds = whole.thresholds(theta, ring, bank.shape)
    assert np.allclose(thresholds, bank.thresholds_ua[:2], rtol=1e-9)


def test_a_bank_that_keeps_nothing_gives_up_in_one_line(monkeypatch) -> None:
    pytest.importorskip("jaxley")
    from substrates.backends.mea.simulation import CellSimulation

    monkeypatch.setattr(amortised, "MAX_DRAWN", 0)  # as if every draw had been refused
    with pytest.raises(ValueError, match="no lattice a bank can serve"):
        amortised.build_bank(CellSimulation, hexagonal(6, 6, PITCH_UM), draws=4, at=20)
