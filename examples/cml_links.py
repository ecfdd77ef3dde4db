"""
# Microwave links as data

A simulated network in the OpenSense convention, its truth,
and the ITU-R P.838-3 power law that turns rain into attenuation.

    python examples/cml_links.py
"""

import matplotlib.pyplot as plt
import numpy as np

import substrates
from substrates.datasets.cml.itu_p838 import k_alpha

links = substrates.load_backend("cml_sim", links=20, duration_h=2)
start = np.datetime64(links.capabilities.start)
data = links.load(start, start + np.timedelta64(1, "h"))
truth = links.ground_truth(start, start + np.timedelta64(1, "h"))
print(
    f"{data.sizes['cml_id']} links × {data.sizes['sublink_id']} sublinks × "
    f"{data.sizes['time']} minutes; rsl {float(data['rsl'].mean()):.1f} dBm on average"
)
print(f"true rain over the domain: {float(truth['rain'].mean()):.2f} mm/h on average")
k, alpha = k_alpha(23.0, "v")
print(f"23 GHz, vertical: A = {float(k):.4f} · R^{float(alpha):.3f} dB/km")

# %%
# The power law A = k·R^α (dB/km) at three link frequencies, vertical polarisation.
rain_mm_h = np.linspace(0.0, 50.0, 101)
figure, axes = plt.subplots(figsize=(6, 4))
for frequency_ghz in (15.0, 23.0, 38.0):
    k, alpha = k_alpha(frequency_ghz, "v")
    axes.plot(rain_mm_h, float(k) * rain_mm_h ** float(alpha), label=f"{frequency_ghz:g} GHz")
axes.set_xlabel("rain rate R (mm/h)")
axes.set_ylabel("specific attenuation A (dB/km)")
axes.set_title("ITU-R P.838-3, vertical polarisation")
axes.legend()
