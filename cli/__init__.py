"""The `substrates` command: list backends, check configs, run and sweep methods, collect jobs."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

from .failures import fail


class _Parser(argparse.ArgumentParser):
    """argparse, with bad input told in one line (as every other error is), not the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="substrates",
        description=(
            "Run methods written once against an abstract backend on a simulator, a GPU or "
            "real hardware. A YAML file in hardware_configs/ picks the backend; "
            "'substrates check FILE' shows what it selects."
        ),
        epilog=(
            "Exit codes: 0 success; 1 a sweep with failed items; 2 bad input, or a backend "
            "that cannot run here (one line saying why); 70 a bug (the line says where the "
            "traceback was written); 130 interrupted; 143 terminated (SIGTERM)."
        ),
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"substrates {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="print the whole traceback of an error, not one line"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # Imported here, not when the package is: the console script's supervisor then takes
    # SIGTERM from about 0.1 s after start instead of after these imports (0.2–0.4 s, and
    # more on a busy machine), so a signal that early still ends the run with 143.
    from . import backends_cmd, check_cmd, jobs_cmd, run_cmd, runs_cmd, sweep_cmd

    for command in (backends_cmd, check_cmd, run_cmd, sweep_cmd, runs_cmd, jobs_cmd):
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    from ..adapters.runs.lifetime import Terminated, terminating

    _log_to_stderr()
    _quiet_dependencies(args.debug)
    try:
        with terminating():
            return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:  # the reader went away (`substrates runs | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SystemExit:
        raise
    except BaseException as error:  # the last resort: one line, never a traceback
        return fail(error, args.debug)


def console() -> NoReturn:
    """The console script: main() in a worker process under a supervisor that stops it
    promptly (`adapters.runs.stopping`), then exit with its status. A stopped worker
    (130, 143) leaves at once, its output flushed, without waiting for the interpreter to
    free what the run built (gigabytes can take seconds) or for native threads to end."""
    from ..adapters.runs.stopping import run_supervised

    code = run_supervised(main)
    if code in (130, 143):
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def _log_to_stderr() -> None:
    """What the library logs at INFO (a hardware job submitted, and how to collect it) is
    printed on stderr, one plain line each."""
    log = logging.getLogger("substrates")
    if not any(isinstance(h, _Stderr) for h in log.handlers):
        log.addHandler(_Stderr())
        log.setLevel(logging.INFO)


def _quiet_dependencies(debug: bool) -> None:
    """What the libraries underneath say for their own developers — deprecations (pandas'
    in jaxley, pgmpy's renames) and records on the root logger (sbi's proposal-acceptance
    notes) — is left out of the command line's output (all of it with --debug); warnings
    that stay (a warning of this package: frames in [0, 1]) print as one line."""
    if debug:
        return
    for category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("ignore", message=r".*(deprecat|will be removed).*")
    logging.getLogger().setLevel(logging.ERROR)
    warnings.formatwarning = lambda message, category, *_: f"warning: {message}\n"


class _Stderr(logging.Handler):
    """Prints each record's message on the sys.stderr of the moment it is logged."""

    def emit(self, record: logging.LogRecord) -> None:
        print(record.getMessage(), file=sys.stderr)
