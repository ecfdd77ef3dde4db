"""`substrates check FILE`: validate a hardware or executor config, show what it selects."""

from __future__ import annotations

import argparse

_UNSET = {"max_qubits": "set by the device chosen at run time", "max_shots": "no limit"}


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "check",
        help="validate a hardware config and show what it selects",
        description=(
            "Validate a hardware config (a path, or the name of a shipped config such as "
            "aer_statevector) without computing anything: YAML syntax, backend name, "
            "options, GPU presence, credentials, and with --circuit the circuit's width. "
            "An executor config (cluster_local, cluster_dask) is checked as one."
        ),
    )
    parser.add_argument("config", help="config file, or a shipped config's name")
    parser.add_argument("--circuit", help="also check that this QASM/QPY file fits the backend")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from ..adapters.config import ConfigError, backend_from_config, config_path, load_config
    from ..adapters.config.load import read_yaml

    if "executor" in read_yaml(config_path(args.config)):
        if args.circuit:
            raise ConfigError(
                config_path(args.config),
                None,
                "--circuit applies to quantum hardware configs, not executors",
            )
        return _executor(args.config)
    resolved = load_config(args.config)
    if args.circuit and resolved.config.substrate != "quantum":
        raise ConfigError(
            resolved.path,
            "substrate",
            f"--circuit applies to quantum backends; this config "
            f"selects {resolved.config.backend}, a {resolved.config.substrate} backend",
        )
    backend = backend_from_config(resolved)
    capabilities = backend.capabilities  # a data source opens its file here
    print(f"{resolved.path}: OK")
    print(f"  {'substrate':<20} {resolved.config.substrate}")
    print(f"  {'backend':<20} {backend.name} ({resolved.tier} tier)")
    for key, value in resolved.options.model_dump(mode="json").items():
        print(f"  {key:<20} {value}")
    for key, value in vars(capabilities).items():
        print(f"  {key:<20} {_UNSET.get(key, 'none') if value is None else value}")
    if args.circuit:
        from ..backends.quantum.base import QuantumBackend
        from ..datasets.quantum.circuit_files import circuit_path, load_circuits
        from ..errors import CapabilityError

        assert isinstance(backend, QuantumBackend)
        path = circuit_path(args.circuit)
        circuits = load_circuits(path)
        try:
            backend.validate(circuits)
        except CapabilityError as err:
            raise ConfigError(resolved.path, "backend", f"{args.circuit}: {err}") from None
        print(f"  {'circuits':<20} {len(circuits)} in {path.name} fit")
    return 0


def _executor(name: str) -> int:
    from ..adapters.config.executor import load_executor_config

    resolved = load_executor_config(name)
    print(f"{resolved.path}: OK")
    print(f"  {'executor':<20} {resolved.kind}")
    for key, value in resolved.options.model_dump(mode="json").items():
        print(f"  {key:<20} {value}")
    return 0
