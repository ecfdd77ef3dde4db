"""GPU tiers against their CPU code paths: agreement and speed, on a machine with CUDA.

1. Detection: our driver-level device count against torch's view.
2. crn.torch on cuda against crn.torch on cpu (float64): steady states of the Asia CRN
   (xray and dysp observed) from the same random initial messages, max |difference|, and
   steady states per second at batch 1, 64, 1024 and 8192 on each device; crn.ode for one.
3. cml.sim_gpu against cml.sim (numpy): max |difference| of the simulated rsl (dB), and the
   seconds each takes to simulate a 1,000-link, 24 h network.
4. events.sim_gpu on cuda, fused kernel and torch, against events.sim (numba, rows on all
   CPU cores): the same events (noisy and default presets), seconds and ratio, 346 × 260
   and 1280 × 720; the voxel grid in torch on cuda against the numba pass.
5. quantum.aer_gpu and pennylane's lightning.gpu against their CPU tiers, where installed.
6. mea.jaxley_gpu against mea.jaxley, where jax has a CUDA backend: spike templates and
   stimulation thresholds of 64 parameter sets (max |difference|), and simulations per
   second at batch 64 and 1024 on each.
7. The CML rain prior (issue #21; run after 3): its U-Net's noise prediction on cuda
   against cpu (max |difference|); the shipped training run (4,000 steps of 48 crops) on
   cuda, its seconds and validation loss beside the shipped weights' (trained on two CPU
   cores), and training steps per second on the CPU beside it.
8. `cml-reconstruct --device cuda` against `--device cpu` on the validation day's first
   hour (PnP and SMC, 8 draws, the settings chosen on that day; SMC also with 64
   particles on cuda): seconds per map, field RMSE against the radar truth and 90 %
   coverage (the devices draw different random numbers: the maps agree in score, not bit
   for bit).

Each section prints its own failure and the script goes on. Without a CUDA device the
script says so after the detection, in one line, and measures nothing.

    python benchmarks/gpu.py
"""

from __future__ import annotations

import functools
import traceback

import numpy as np
from publish import published
from timing import best

print = functools.partial(print, flush=True)  # the device tool returns what was printed


def detection() -> None:
    from substrates.backends.gpu import cuda_device_count, no_cuda_reason

    print(f"driver-level CUDA devices: {cuda_device_count()} ({no_cuda_reason() or 'ok'})")
    import torch

    if torch.cuda.is_available():
        name = torch.cuda.get_device_name(0)
        print(f"torch {torch.__version__}: {torch.cuda.device_count()} device(s), {name}")
    else:
        print(f"torch {torch.__version__}: no CUDA")


def crn() -> None:
    import torch

    from substrates.backends.registry import create_backend
    from substrates.datasets.crn.files import example_path as example_graph
    from substrates.datasets.crn.uai import read_uai
    from substrates.models.crn.napp_adams import compile_graph
    from substrates.models.crn.reductions import with_evidence

    compiled = compile_graph(with_evidence(read_uai(example_graph()), {6: 1, 7: 1}))
    network = compiled.network
    print(f"\nAsia CRN: {len(network.species)} species, {network.reactions} reactions")
    rng = np.random.default_rng(0)

    def initial(batch: int) -> np.ndarray:
        x = np.empty((batch, len(network.species)))
        for group in compiled.conserved:
            x[:, list(group)] = rng.dirichlet(np.ones(len(group)), batch)
        return x

    cpu = create_backend("crn.torch", {"device": "cpu"})
    gpu = create_backend("crn.torch", {"device": "cuda"})
    start = initial(64)
    a = cpu.steady_states(network, start, tolerance=1e-10)
    b = gpu.steady_states(network, start, tolerance=1e-10)
    ode = create_backend("crn.ode").steady_state(network, 1e-10).concentrations
    print(
        f"steady states, batch 64: max |cuda - cpu| = {np.abs(a - b).max():.1e}, "
        f"max |cuda - crn.ode| = {np.abs(b - ode).max():.1e}"
    )
    times = np.linspace(0, 5, 6)
    ta = cpu.trajectories(network, times, start[:8])
    tb = gpu.trajectories(network, times, start[:8])
    print(f"trajectories, batch 8, t = 0..5: max |cuda - cpu| = {np.abs(ta - tb).max():.1e}")

    ode_s = best(lambda: create_backend("crn.ode").steady_state(network, 1e-10), 2, warm=True)
    print(f"\ncrn.ode: {ode_s:.3f} s for one steady state ({1 / ode_s:,.1f} / s)")
    print("| batch | cpu s | cpu / s | cuda s | cuda / s | cuda / cpu |")
    print("|---|---|---|---|---|---|")
    for batch in (1, 64, 1024, 8192):
        x = initial(batch)
        on_cpu = best(lambda x=x: cpu.steady_states(network, x, tolerance=1e-10), 1, warm=True)
        on_gpu = best(lambda x=x: gpu.steady_states(network, x, tolerance=1e-10), 2, warm=True)
        torch.cuda.synchronize()
        print(
            f"| {batch} | {on_cpu:.3f} | {batch / on_cpu:,.0f} | {on_gpu:.3f} | "
            f"{batch / on_gpu:,.0f} | {on_cpu / on_gpu:.1f}x |"
        )


def cml() -> None:
    from substrates.backends.registry import create_backend

    options = {"links": 1000, "duration_h": 24.0, "seed": 3, "grid_cells": 128}
    start, end = "2020-06-01T00:00", "2020-06-02T00:00"

    def simulate(name: str) -> object:
        return create_backend(name, options).load(start, end)

    a, b = simulate("cml.sim"), simulate("cml.sim_gpu")
    difference = np.nanmax(np.abs(a.rsl.values - b.rsl.values))
    print(f"\ncml.sim_gpu vs cml.sim, 1000 links, 24 h: max |rsl difference| = {difference:.1e} dB")
    cpu_s = best(lambda: simulate("cml.sim"), 1, warm=True)
    gpu_s = best(lambda: simulate("cml.sim_gpu"), 2, warm=True)
    print(f"cml.sim {cpu_s:.2f} s, cml.sim_gpu {gpu_s:.2f} s: {cpu_s / gpu_s:.1f}x")


def events() -> None:
    import numba
    import torch

    from substrates.backends.registry import create_backend
    from substrates.datasets.events.representations import voxel_grid, voxel_grid_torch
    from substrates.datasets.events.synthetic import drifting_texture

    if not hasattr(np, "row_stack"):  # the numba-cuda of the H200 image (2026-12) overloads
        np.row_stack = np.vstack  # np.row_stack, gone in numpy 2.5: no kernel built without
    print(f"\nnumba threads: {numba.get_num_threads()}")
    print(
        "\n| events.sim | preset | events | numba s | kernel | cuda s | cuda / numba | identical |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for width, height, duration in ((346, 260, 0.2), (1280, 720, 0.1)):
        frames, times = drifting_texture(width, height, duration, (200, 50), seed=1)
        for preset in ("noisy", "default"):
            cpu = create_backend("events.sim", {"preset": preset, "seed": 3})
            a = cpu.simulate(frames, times)
            cpu_s = best(lambda f=frames, t=times, s=cpu: s.simulate(f, t), 1, warm=True)
            for kernel in ("fused", "torch"):
                gpu = create_backend(
                    "events.sim_gpu", {"preset": preset, "seed": 3, "kernel": kernel}
                )
                b = gpu.simulate(frames, times)
                gpu_s = best(lambda f=frames, t=times, s=gpu: s.simulate(f, t), 1, warm=True)
                print(
                    f"| {width} × {height}, {duration} s | {preset} | {len(a):,} | "
                    f"{cpu_s:.2f} | {kernel} | {gpu_s:.2f} | {cpu_s / gpu_s:.1f}x | "
                    f"{np.array_equal(a.array, b.array)} |"
                )
    grid_cpu = voxel_grid(a, 5).numpy()
    grid_gpu = voxel_grid_torch(a, 5, "cuda").cpu().numpy()
    numba_s = best(lambda: voxel_grid(a, 5), 2, warm=True)
    cuda_s = best(lambda: (voxel_grid_torch(a, 5, "cuda"), torch.cuda.synchronize()), 2, warm=True)
    print(
        f"voxel grid of {len(a):,} events: max |cuda - numba| = "
        f"{np.abs(grid_cpu - grid_gpu).max():.1e}; numba {len(a) / numba_s / 1e6:.0f} Mev/s, "
        f"cuda {len(a) / cuda_s / 1e6:.0f} Mev/s (host to device copy included)"
    )


def quantum() -> None:
    from substrates.backends.registry import create_backend

    print()
    tiers = (("quantum.aer_gpu", {}), ("quantum.pennylane", {"device": "lightning.gpu"}))
    for name, options in tiers:
        try:
            create_backend(name, options)
            print(f"{name} {options}: available")
        except Exception as error:  # report and go on: this script is a survey
            print(f"{name} {options}: {type(error).__name__}: {error}")


def mea() -> None:
    import jax

    from substrates.backends.registry import create_backend

    print()
    try:
        jax.devices("gpu")
    except RuntimeError:
        print(f"mea.jaxley_gpu: skipped, jax {jax.__version__} has no CUDA backend here")
        return
    cpu = create_backend("mea.jaxley", {"batch": 64})
    model_cpu = cpu.cell_model(cpu.positions_um)
    rng = np.random.default_rng(0)
    low = np.array([p.low for p in model_cpu.parameters])
    high = np.array([p.high for p in model_cpu.parameters])
    print(
        "| mea simulations | batch | CPU sims / s | GPU sims / s | largest Δ template (abs), µV |"
    )
    print("|---|---|---|---|---|")
    for batch in (64, 1024):
        gpu = create_backend("mea.jaxley_gpu", {"batch": batch})
        model_gpu = gpu.cell_model(gpu.positions_um)
        thetas = rng.uniform(low, high, (batch, len(low)))
        ours, theirs = model_gpu.templates(thetas), model_cpu.templates(thetas)
        t_gpu = best(lambda g=model_gpu, t=thetas: g.templates(t), 3, warm=True)
        t_cpu = best(lambda t=thetas: model_cpu.templates(t), 1)
        print(
            f"| templates | {batch} | {batch / t_cpu:,.0f} | {batch / t_gpu:,.0f} | "
            f"{np.abs(ours - theirs).max():.2e} |"
        )
    electrodes = np.arange(4)
    same = np.allclose(
        model_gpu.thresholds(thetas[:64], electrodes),
        model_cpu.thresholds(thetas[:64], electrodes),
        rtol=0.03,
    )
    print(f"thresholds of 64 cells on 4 electrodes agree within one bisection step: {same}")


def cml_prior(device: str = "cuda", steps: int = 4000) -> None:
    import time

    import torch

    from substrates.datasets.cml.radar_reference import pycomlink_references
    from substrates.models.cml.diffusion import training
    from substrates.models.cml.diffusion.prior import load_prior

    shipped = load_prior()
    on_device = load_prior(device=device)
    generator = torch.Generator().manual_seed(0)
    x, t = torch.randn(64, 32, 32, generator=generator), torch.rand(64, generator=generator)
    with torch.no_grad():
        a = shipped.noise(x, t)
        b = on_device.noise(x.to(device), t.to(device)).cpu()
    print(
        f"\nrain prior, 64 noised fields: max |ε̂ {device} - ε̂ cpu| = "
        f"{(a - b).abs().max():.1e} (float32)"
    )

    radar = pycomlink_references()[0]
    settings = training.TrainingSettings(steps=steps)
    fields = training.radar_fields(radar, training.TRAINING_DAYS, settings.block)
    held = training.radar_fields(radar, training.VALIDATION_DAYS, settings.block)
    sampler = training.CropSampler(fields, settings.crop, settings.wet_share, settings.seed)
    timed = training.TrainingSettings(steps=20)
    cpu_s = best(lambda: training.train(sampler, timed, "cpu"), 1, warm=True) / timed.steps
    began = time.perf_counter()
    net, losses = training.train(sampler, settings, device)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - began
    validation = training.CropSampler(held, settings.crop, settings.wet_share, settings.seed + 1)
    print(
        f"training, {steps} steps of {settings.batch} crops on {device}: {seconds:.0f} s "
        f"({steps / seconds:.1f} steps/s; cpu {1 / cpu_s:.2f} steps/s on "
        f"{torch.get_num_threads()} threads, {cpu_s / (seconds / steps):.0f}x); validation "
        f"loss {training.held_loss(net, validation):.4f}, last 100 steps "
        f"{np.mean(losses[-100:]):.4f} (shipped: {shipped.metadata['validation_loss']:.4f}, "
        f"{shipped.metadata['final_training_loss_mean_last_100']:.4f}, "
        f"{shipped.metadata['seconds'] / 60:.0f} min on cpu)"
    )


def cml_posterior(device: str = "cuda", hours: float = 1.0) -> None:
    import tempfile
    from pathlib import Path

    import xarray as xr
    from cml_evaluation import lead_hours, runs, score

    import substrates
    from substrates.adapters.methods.cml_reconstruct import WET_DRY
    from substrates.models.cml.chain_parameters import ChainParameters

    print(
        "\n| cml-reconstruct, validation day | device | draws | s per map | RMSE mm/h | 90% cover |"
    )
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        run_args = runs("validation", folder, lead_hours(ChainParameters(wet_dry=WET_DRY)))[0]
        start = np.datetime64(run_args["start"])
        run_args["end"] = str(start + np.timedelta64(int(hours * 60), "m"))
        for method, placement, draws in (
            ("pnp", "cpu", 8),
            ("pnp", device, 8),
            ("smc", "cpu", 8),
            ("smc", device, 8),
            ("smc", device, 64),
        ):
            # the other settings are cml-reconstruct's defaults, chosen on that day (SMC
            # takes no latent offsets: it reads the chain's baseline)
            run = substrates.run(
                "cml-reconstruct",
                **run_args,
                baseline="chain" if method == "smc" else "latent",
                every=15,
                methods=[method],
                draws=draws,
                device=placement,
                out=folder / "runs",
                progress=False,
            )
            row = score([xr.load_dataset(run.path / "fields.nc")], [method])[-1]
            print(
                f"| {method} | {placement} | {draws} | "
                f"{run.summary['seconds_per_step'][method]:.1f} | {row['rmse']:.3f} | "
                f"{row['cover90']:.2f} |"
            )


def main() -> None:
    from substrates.backends.gpu import cuda_device_count, no_cuda_reason

    detection()
    if cuda_device_count() == 0:
        print(
            f"\nNo GPU was lent: {no_cuda_reason()}. No GPU tier can be measured "
            "here, so no ratio is printed; run this script where a CUDA device is."
        )
        return
    for section in (crn, cml, cml_prior, cml_posterior, events, quantum, mea):
        try:
            section()
        except Exception:  # one section's failure must not hide the others' figures
            print(f"\n{section.__name__} failed:\n{traceback.format_exc()}")


if __name__ == "__main__":
    with published("gpu"):
        main()
