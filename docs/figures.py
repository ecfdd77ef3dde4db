"""The guides' figures: each is a run's own plot, made by the command in FIGURES and copied
to docs/images/ (the guide names the command in the figure's caption).

    python docs/figures.py [--only crn,quantum]

Every command runs on its embedded default (`substrates run METHOD ...` in a temporary
folder, as a user would type it); hh-fit runs with 200 NPE simulations instead of its
default 1,000 (minutes instead of ~9 on two cores), which its caption says.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

IMAGES = Path(__file__).resolve().parent / "images"
FIGURES: dict[str, tuple[list[str], str]] = {
    "quantum-qrim.png": (["run", "qrim"], "qrim.png"),
    "quantum-estimate.png": (
        ["run", "estimate", "--observables", "ZZI,XXX", "--precision", "0.01"],
        "estimates.png",
    ),
    "crn-beliefs.png": (["run", "crn-validate", "--evidence", "6=1,7=1"], "beliefs.png"),
    "events-layers.png": (["run", "event-layers", "--scenes", "2"], "layers.png"),
    "cml-maps.png": (["run", "cml-reconstruct", "--methods", "idw,kriging"], "maps.png"),
    "mea-hh-fit.png": (["run", "hh-fit", "--simulations", "200"], "hh_fit.png"),
}
"""Image name in docs/images → (the substrates command, the PNG its run folder holds)."""


def make(name: str) -> None:
    command, png = FIGURES[name]
    with tempfile.TemporaryDirectory() as folder:
        print(f"{name}: substrates {' '.join(command)}", flush=True)
        subprocess.run(
            [sys.executable, "-m", "substrates", *command, "--out", folder],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (made,) = Path(folder).rglob(png)
        IMAGES.mkdir(exist_ok=True)
        shutil.copyfile(made, IMAGES / name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma list of image names' prefixes")
    prefixes = [p for p in parser.parse_args().only.split(",") if p]
    for name in FIGURES:
        if not prefixes or any(name.startswith(p) for p in prefixes):
            make(name)


if __name__ == "__main__":
    main()
