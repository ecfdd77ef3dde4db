"""The names a type checker can map to a substrate: shipped configs and registry names.

`load_backend("aer_statevector")` is typed as a QuantumBackend through these. A test keeps
them equal to the shipped configs and the registered backends.
"""

from __future__ import annotations

from typing import Literal

QuantumName = Literal[
    "aer_gpu",
    "aer_mps",
    "aer_noisy_brisbane",
    "aer_statevector",
    "ibm_fake_brisbane",
    "ibm_hardware",
    "pennylane_default",
    "pennylane_lightning",
    "quantum.aer",
    "quantum.aer_gpu",
    "quantum.ibm",
    "quantum.ibm_fake",
    "quantum.pennylane",
]
MEAName = Literal[
    "mea_litke",
    "mea_maxwell",
    "mea_neo",
    "mea_nwb",
    "mea_sim",
    "mea_sim_512",
    "mea_sim_gpu",
    "mea.jaxley",
    "mea.jaxley_gpu",
    "mea.litke",
    "mea.maxwell",
    "mea.neo",
    "mea.nwb",
]
EventsName = Literal[
    "events_camera",
    "events_camera_prophesee",
    "events_file",
    "events_sim",
    "events_sim_gpu",
    "events.camera",
    "events.file",
    "events.sim",
    "events.sim_gpu",
]
CRNName = Literal[
    "crn_ode",
    "crn_roadrunner",
    "crn_ssa",
    "crn_torch",
    "crn_torch_gpu",
    "crn.ode",
    "crn.roadrunner",
    "crn.ssa",
    "crn.torch",
]
CMLName = Literal[
    "cml_opensense",
    "cml_semisynthetic",
    "cml_sim",
    "cml_sim_gpu",
    "cml.opensense",
    "cml.sim",
    "cml.sim_gpu",
]
