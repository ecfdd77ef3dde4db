"""The lanes' rule, checked on collection by tests/conftest.py: a test that starts a fit, an
hh-fit run or the 512-electrode session without the science marker stops the run, naming
it; through a helper of its module or a fixture as much as in its own body."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """A folder of tests under the suite's own conftest and science marker."""
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makeini("[pytest]\nmarkers =\n    science: the science lane\n")
    return pytester


def test_a_fit_outside_the_science_lane_stops_the_run_naming_it(suite) -> None:
    suite.makepyfile(
        test_fits="""
        import pytest

        def _fit():
            return fit_cell(None, None, 50)

        @pytest.fixture
        def session_run(tmp_path):
            return substrates("run", "hh-fit", "--simulations", "200", cwd=tmp_path)

        def test_fits_through_a_helper():
            _fit()

        def test_runs_hh_fit_through_a_fixture(session_run):
            pass

        @pytest.mark.parametrize("config", ["mea_sim", "mea_sim_512"])
        def test_checks_a_config_by_name(config):
            load_config(config)

        @pytest.mark.science
        def test_fits_in_the_science_lane():
            _fit()

        def test_reads_a_file():
            assert True
        """
    )
    result = suite.runpytest("--collect-only", "-q", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    stderr = result.stderr.str()
    assert "test_fits.py::test_fits_through_a_helper: starts a whole HH fit" in stderr
    assert "test_fits.py::test_runs_hh_fit_through_a_fixture: starts an hh-fit run" in stderr
    # a test naming the 512-electrode config outside the conformance suite starts nothing
    assert "test_checks_a_config_by_name" not in stderr
    assert "test_fits_in_the_science_lane" not in stderr and "test_reads_a_file" not in stderr


def test_a_conformance_case_on_the_512_electrode_session_belongs_to_the_science_lane(
    suite,
) -> None:
    conformance = suite.mkpydir("conformance")
    (conformance / "test_mea.py").write_text(
        "import pytest\n\n"
        "@pytest.fixture(params=['mea_sim', 'mea_sim_512'])\n"
        "def backend(request):\n"
        "    return request.param\n\n"
        "def test_reads(backend):\n"
        "    pass\n"
    )
    result = suite.runpytest("--collect-only", "-q", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    stderr = result.stderr.str()
    assert "test_reads[mea_sim_512]: starts the 512-electrode" in stderr
    assert "test_reads[mea_sim]" not in stderr


def test_a_suite_that_keeps_the_rule_collects(suite) -> None:
    suite.makepyfile(
        test_ok="""
        import pytest

        @pytest.mark.science
        def test_fit():
            fit_cell(None, None, 50)

        def test_cheap():
            assert 1 + 1 == 2
        """
    )
    result = suite.runpytest("--collect-only", "-q", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*2 tests collected*"])


def test_two_memory_heavy_tests_never_run_at_once(suite) -> None:
    """Two memory-heavy tests in two files, on two workers: one waits for the other."""
    for name in ("a", "b"):
        suite.makepyfile(
            **{
                f"test_heavy_{name}": """
            import time
            import pytest

            @pytest.mark.memory_heavy
            def test_heavy(tmp_path_factory):
                log = tmp_path_factory.getbasetemp().parent / "spans.txt"
                began = time.monotonic()
                time.sleep(1.0)
                with log.open("a") as handle:
                    handle.write(f"{began} {time.monotonic()}\\n")
            """
            }
        )
    suite.makeini("[pytest]\nmarkers =\n    science: s\n    memory_heavy: m\n")
    result = suite.runpytest_subprocess("-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    (spans,) = suite.path.parent.glob("**/spans.txt")
    (a0, a1), (b0, b1) = sorted(
        tuple(map(float, line.split())) for line in spans.read_text().splitlines()
    )
    assert b0 >= a1 - 0.05, (a0, a1, b0, b1)  # the second began after the first ended
