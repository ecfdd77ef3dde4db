"""A diffusion-model prior of rain fields, trained on radar, and training-free posterior
sampling with the links' path operator as the likelihood.

- `transform`: rain (mm/h) <-> the model's space (log rain, scaled to [−1, 1]).
- `network`: the denoiser, a small U-Net predicting the noise of a noised field.
- `schedule`: the cosine noise schedule and the reverse (ancestral) steps.
- `training`: the radar data split, crops and the training loop (`python -m
  substrates.models.cml.diffusion.training` retrains the shipped weights).
- `posterior`: diffusion posterior sampling (Chung et al. 2023), plug-and-play restoration
  (DiffPIR, Zhu et al. 2023) and a twisted sequential Monte Carlo sampler (after Wu et al.
  2023), for any denoiser and log-likelihood.
- `prior`: the shipped weights loaded as a denoiser.
- `settings`: the samplers' settings and defaults (chosen on the validation day), torch-free.
- `reconstruct`: rain maps from links: each map's posterior sampled on the prior's grid.
"""
