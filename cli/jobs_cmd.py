"""`substrates jobs`: hardware jobs recorded in run folders."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "jobs",
        help="list or collect hardware jobs of a run",
        description="Hardware job ids are recorded in a run folder before the run waits on them.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    collect = actions.add_parser(
        "collect",
        help="finish a run from its submitted jobs, without resubmitting",
        description=(
            "Fetch the results of jobs a run submitted earlier (after a crash or a closed "
            "laptop) by their ids, and write the run's results: sampler jobs of a `sample` "
            "run, estimator jobs of an `estimate` run. Nothing is resubmitted."
        ),
    )
    collect.add_argument("run_dir", help="the run folder")
    collect.set_defaults(handler=handle_collect)
    listing = actions.add_parser("list", help="show the jobs a run submitted")
    listing.add_argument("run_dir", help="the run folder")
    listing.set_defaults(handler=handle_list)


def handle_collect(args: argparse.Namespace) -> int:
    from ..adapters.methods import get_method
    from ..adapters.methods.jobs import collect
    from ..adapters.runs.run import Run

    folder, collected = collect(args.run_dir)
    if not collected:
        print(f"{folder.path}: already complete; nothing to collect")
    run = Run.open(folder.path)
    print(get_method(run.method).report(run))
    return 0


def handle_list(args: argparse.Namespace) -> int:
    from ..adapters.runs.folder import RunFolder
    from ..adapters.runs.journal import recorded_jobs

    folder = RunFolder.existing(args.run_dir)
    status = folder.read_record("provenance.json").get("status", "?")
    print(f"{folder.path}: {status}")
    for job in recorded_jobs(folder):
        print(f"  {job['job_id']}  {job.get('device')}  submitted {job.get('submitted_at')}")
    return 0
