"""libDAI .fg and UAI files: the documented examples, round trips, and malformed files."""

from __future__ import annotations

import numpy as np
import pytest

from substrates.datasets.crn.factor_graph import FactorGraphError
from substrates.datasets.crn.libdai_fg import read_fg, write_fg
from substrates.datasets.crn.uai import read_uai, write_uai
from substrates.models.crn.exact import marginals
from substrates.testing.crn import loopy_six, random_tree

LIBDAI_EXAMPLE = """1

3
4 8 7
3 2 2
11
0 0.1
1 3.5
2 2.8
3 6.3
4 8.4
6 7.4
7 2.4
8 8.9
9 1.3
10 1.6
11 2.6
"""
"""The factor block of libDAI's file-format documentation (one factor over x4, x8, x7)."""

UAI_MARKOV = """MARKOV
4
2 2 2 2
4
2 0 1
2 0 2
2 1 3
3 1 2 3
4 1 2 3 4
4 1 1 1 1
4 2 1 1 2
8 1 2 3 4 5 6 7 8
"""


def test_libdai_documentation_example(tmp_path) -> None:
    path = tmp_path / "example.fg"
    path.write_text(LIBDAI_EXAMPLE)
    graph = read_fg(path)
    assert graph.names == ("4", "7", "8") and graph.cardinalities == (3, 2, 2)
    (factor,) = graph.factors
    assert factor.scope == (0, 2, 1)  # x4, x8, x7 as in the file
    table = factor.table  # table[x4, x8, x7], the documentation's rows
    assert table[0, 0, 0] == 0.1 and table[1, 0, 0] == 3.5 and table[0, 1, 0] == 6.3
    assert table[2, 1, 0] == 0.0 and table[0, 0, 1] == 7.4 and table[2, 1, 1] == 2.6


def test_uai_markov_file_reads_with_the_last_variable_fastest(tmp_path) -> None:
    path = tmp_path / "markov.uai"
    path.write_text(UAI_MARKOV)
    graph = read_uai(path)
    assert graph.cardinalities == (2, 2, 2, 2) and len(graph.factors) == 4
    assert graph.factors[0].table.tolist() == [[1, 2], [3, 4]]
    assert graph.factors[3].scope == (1, 2, 3) and graph.factors[3].table[0, 1, 1] == 4


@pytest.mark.parametrize(("write", "read"), [(write_fg, read_fg), (write_uai, read_uai)])
def test_files_round_trip(tmp_path, write, read) -> None:
    for graph in (loopy_six(), random_tree(6, seed=3)):
        path = tmp_path / "graph.txt"
        write(graph, path)
        again = read(path)
        assert again.cardinalities == graph.cardinalities
        for ours, theirs in zip(marginals(again), marginals(graph), strict=True):
            assert np.allclose(ours, theirs, atol=1e-14)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2\n\n1\n0\n2\n2\n0 1\n1 1\n", "file ends where number of variables"),
        ("1\n\n1\n0\n2\n2\n0 1\n1 1\n7\n", "unexpected '7'"),
        ("1\n\n1\n0\n2\n1\n0 -1\n", "negative or non-finite"),
        ("1\n\n1\n0\n2\n0\n", "all table entries are zero"),
        ("1\n\n1\n0\n2\n1\n5 1.0\n", "table index 5 out of range"),
        ("2\n\n1\n0\n2\n1\n0 1\n\n1\n0\n3\n1\n0 1\n", "cardinality 3 here and 2 before"),
        ("1\n\n1\nx\n", "expected an integer"),
    ],
)
def test_malformed_fg_files_name_file_and_line(tmp_path, text, message) -> None:
    path = tmp_path / "bad.fg"
    path.write_text(text)
    with pytest.raises(FactorGraphError, match=message) as error:
        read_fg(path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (UAI_MARKOV.replace("MARKOV", "NETWORK"), "expected MARKOV or BAYES"),
        (UAI_MARKOV.replace("2 0 2\n", "2 0 9\n"), "variable 9 out of range"),
        (UAI_MARKOV.replace("4 1 1 1 1", "3 1 1 1"), "has 3 entries"),
        ("BAYES\n2\n2 2\n1\n2 0 1\n4 0.5 0.6 0.1 0.9\n", "a row sums to 1.1, not 1"),
    ],
)
def test_malformed_uai_files_name_the_problem(tmp_path, text, message) -> None:
    path = tmp_path / "bad.uai"
    path.write_text(text)
    with pytest.raises(FactorGraphError, match=message):
        read_uai(path)
