"""Validation studies a reviewer accepts, run one way for every substrate
(`../shared/notes/evaluation.md` made executable).

A study (`declaration.Study`, one module per claim in `claims/`) names its claim and its
goal with a margin, its development and held-out cases before anything runs (each with
what its truth shares with the method and what it does not), the method and the
baselines fed the same inputs, the metric and how the interval is formed. The runner
(`runner.run_study`) runs the cases on an executor (this process, a process pool, Dask),
keeps each finished case so a study resumes, appends every look at a held-out case to
the ledger (`ledger.Ledger`), and computes PASS / FAIL / CANNOT TELL from its own
numbers (`judge.judge`); the command line exits non-zero unless it passes.

    python -m substrates.studies list
    python -m substrates.studies run crn-exact
    python -m substrates.studies summary --docs docs/validation.md
"""
