"""BIF and XMLBIF networks read as pgmpy reads and writes them (the classic networks its
wheel ships), exact marginals against pgmpy's variable elimination, and Bayesian-network
files that break the rules refused with the file and line."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from substrates.adapters.methods.crn_validate import CrnValidateParameters
from substrates.datasets.crn.bif import read_bif
from substrates.datasets.crn.factor_graph import FactorGraphError
from substrates.datasets.crn.files import graph_path, read_graph
from substrates.datasets.crn.uai import read_uai
from substrates.datasets.crn.xmlbif import read_xmlbif
from substrates.models.crn.exact import marginals
from substrates.models.crn.reductions import with_evidence
from substrates.testing.crn import PGMPY_EVIDENCE, evidence_indices, pgmpy_network

SMALL = [
    "asia",
    "cancer",
    "earthquake",
    "sachs",
    "survey",
    "child",
    "insurance",
    "alarm",
    "water",
    "hailfinder",
    "hepar2",
    "win95pts",
]


def _pgmpy_model(name: str):
    from pgmpy.readwrite import BIFReader

    return BIFReader(string=gzip.decompress(pgmpy_network(name).read_bytes()).decode()).get_model()


@pytest.mark.parametrize("name", SMALL)
def test_every_table_and_state_equals_pgmpys_reading(name) -> None:
    graph = read_bif(pgmpy_network(name))
    model = _pgmpy_model(name)
    assert set(graph.names) == set(model.nodes())
    for cpd in model.get_cpds():
        child = graph.names.index(cpd.variable)
        (factor,) = [f for f in graph.factors if f.scope[0] == child]
        order = [graph.names.index(v) for v in cpd.variables]
        ours = np.transpose(factor.table, [factor.scope.index(v) for v in order])
        theirs = cpd.get_values().reshape([cpd.variable_card, *cpd.cardinality[1:]])
        assert np.array_equal(ours, theirs)
        for variable in cpd.variables:
            assert graph.states[graph.names.index(variable)] == tuple(cpd.state_names[variable])


@pytest.mark.parametrize("name", ["insurance", "alarm"])
def test_exact_marginals_with_evidence_equal_pgmpys_variable_elimination(name) -> None:
    from pgmpy.inference import VariableElimination

    graph = read_bif(pgmpy_network(name))
    observed = PGMPY_EVIDENCE[name]
    ours = marginals(with_evidence(graph, evidence_indices(graph, observed)))
    engine = VariableElimination(_pgmpy_model(name))
    for variable in [v for v in graph.names if v not in observed][:8]:
        theirs = engine.query([variable], evidence=observed, show_progress=False)
        index = graph.names.index(variable)
        assert np.allclose(ours[index], theirs.values, atol=1e-12)


def test_gzipped_and_plain_files_read_alike(tmp_path) -> None:
    plain = tmp_path / "asia.BIF"
    plain.write_bytes(gzip.decompress(pgmpy_network("asia").read_bytes()))
    first, second = read_bif(plain), read_bif(pgmpy_network("asia"))
    assert first.names == second.names
    assert all(
        np.array_equal(a.table, b.table) for a, b in zip(first.factors, second.factors, strict=True)
    )


HEAD = """network test { }
variable a { type discrete [ 2 ] { yes, no }; }
variable b { type discrete [ 2 ] { yes, no }; }
"""


def test_default_rows_fill_the_configurations_not_listed(tmp_path) -> None:
    path = tmp_path / "d.bif"
    path.write_text(
        HEAD + "probability ( a ) { table 0.3, 0.7; }\n"
        "probability ( b | a ) { (yes) 0.9, 0.1; default 0.2, 0.8; }\n"
    )
    table = read_bif(path).factors[1].table  # table[b, a]
    assert np.allclose(table[:, 0], [0.9, 0.1]) and np.allclose(table[:, 1], [0.2, 0.8])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "probability ( a | b ) { (yes) 0.5, 0.5; (no) 0.5, 0.5; }\n"
            "probability ( b | a ) { (yes) 0.5, 0.5; (no) 0.5, 0.5; }\n",
            "directed cycle: a → b → a",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }\nprobability ( a ) { table 0.4, 0.6; }\n"
            "probability ( b ) { table 0.5, 0.5; }\n",
            "two conditional tables for 'a'",
        ),
        ("probability ( a ) { table 0.5, 0.5; }\n", "no conditional table for b"),
        (
            "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | a ) { table 0.1, 0.9, "
            "0.2, 0.8; }\n",
            "'table' under parents",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | a ) { (maybe) 0.5, 0.5; "
            "(no) 0.5, 0.5; }\n",
            "names an unknown state",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | a ) { (yes) 0.5, 0.5; }\n",
            "no row for (no) and no default",
        ),
        (
            "probability ( a ) { table 0.5, 0.6; }\nprobability ( b ) { table 0.5, 0.5; }\n",
            "a row sums to 1.1",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | c ) { (yes) 0.5, 0.5; }\n",
            "undeclared variable 'c'",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | a ) { (yes) 0.5, 0.5; "
            "(yes) 0.5, 0.5; (no) 0.5, 0.5; }\n",
            "row (yes) given twice",
        ),
        (
            "probability ( a ) { table 0.5; }\nprobability ( b ) { table 0.5, 0.5; }\n",
            "1 values, expected 2",
        ),
        (
            "probability ( a ) { table 0.5, 0.5; }\nprobability ( b | a ) { (yes) NaN, nan; "
            "(no) 0.5, 0.5; }\n",
            "non-finite probabilities (NaN, nan)",
        ),
        (
            "probability ( a ) { table inf, 0.5; }\nprobability ( b ) { table 0.5, 0.5; }\n",
            "non-finite probabilities (inf)",
        ),
    ],
)
def test_broken_networks_are_refused_naming_the_problem(tmp_path, body, message) -> None:
    path = tmp_path / "broken.bif"
    path.write_text(HEAD + body)
    with pytest.raises(FactorGraphError, match=r"broken\.bif") as raised:
        read_bif(path)
    assert message in str(raised.value)


def test_a_huge_table_is_refused_before_it_is_allocated(tmp_path) -> None:
    states = ", ".join(f"s{k}" for k in range(4000))
    path = tmp_path / "huge.bif"
    path.write_text(
        f"variable a {{ type discrete [ 4000 ] {{ {states} }}; }}\n"
        f"variable b {{ type discrete [ 4000 ] {{ {states} }}; }}\n"
        "probability ( b | a ) { default 1; }\n"
    )
    with pytest.raises(FactorGraphError, match="16,000,000 entries"):
        read_bif(path)


@pytest.mark.parametrize(
    ("families", "message"),
    [
        ("2 0 1\n2 1 0\n", "directed cycle"),
        ("1 0\n2 0 1\n1 1\n", "two conditional tables for '1'"),
        ("1 0\n", "no conditional table for 1"),
    ],
)
def test_uai_bayes_files_are_checked_as_networks(tmp_path, families, message) -> None:
    scopes = [line.split()[1:] for line in families.splitlines()]
    tables = "".join(f"{2 ** len(s)} " + " ".join(["0.5"] * 2 ** len(s)) + "\n" for s in scopes)
    path = tmp_path / "net.uai"
    path.write_text(f"BAYES\n2\n2 2\n{len(scopes)}\n{families}\n{tables}")
    with pytest.raises(FactorGraphError, match=message):
        read_uai(path)


@pytest.mark.parametrize("name", ["asia", "alarm", "insurance"])
def test_xmlbif_written_by_pgmpy_reads_as_the_bif_does(tmp_path, name) -> None:
    from pgmpy.readwrite import XMLBIFWriter

    path = tmp_path / f"{name}.xml"
    XMLBIFWriter(_pgmpy_model(name)).write_xmlbif(str(path))
    ours, reference = read_xmlbif(path), read_bif(pgmpy_network(name))
    order = [ours.names.index(n) for n in reference.names]
    for factor in reference.factors:
        (mine,) = [f for f in ours.factors if f.scope[0] == order[factor.scope[0]]]
        assert [ours.names[v] for v in mine.scope] == [reference.names[v] for v in factor.scope]
        assert np.allclose(mine.table, factor.table, atol=1e-12)
    assert {n: ours.states[ours.names.index(n)] for n in ours.names} == dict(
        zip(reference.names, reference.states, strict=True)
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><BIF/>', "DTD"),
        (
            "<BIF><NETWORK><VARIABLE TYPE='decision'><NAME>a</NAME><OUTCOME>x</OUTCOME>"
            "</VARIABLE></NETWORK></BIF>",
            "type decision",
        ),
        (
            "<BIF><NETWORK><VARIABLE><NAME>a</NAME><OUTCOME>x</OUTCOME><OUTCOME>y</OUTCOME>"
            "</VARIABLE><DEFINITION><FOR>a</FOR><TABLE>0.5</TABLE></DEFINITION></NETWORK></BIF>",
            "1 table values, expected 2",
        ),
        ("<BIF><NETWORK><VARIABLE><NAME>a</NAME><OUTCOME>x</OUTCOME>", "not well-formed"),
    ],
)
def test_broken_xmlbif_is_refused(tmp_path, text, message) -> None:
    path = tmp_path / "net.xml"
    path.write_text(text)
    with pytest.raises(FactorGraphError, match=message):
        read_xmlbif(path)


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("asia", "asia.uai"),
        ("asia.uai", "asia.uai"),
        ("alarm", "alarm.bif.gz"),
        ("alarm.bif.gz", "alarm.bif.gz"),
        ("nosuch.bif.gz", "nosuch.bif.gz"),
    ],
)
def test_a_shipped_network_is_found_by_name_from_any_folder(
    tmp_path, monkeypatch, name, found
) -> None:
    """The CRN guide's `--graph alarm.bif.gz` from an empty folder: ours first, then
    pgmpy's; a name neither ships comes back as given."""
    pytest.importorskip("pgmpy")
    monkeypatch.chdir(tmp_path)
    path = graph_path(name)
    assert path.name == found and (path.is_file() or name.startswith("nosuch"))
    if name.startswith("alarm"):
        assert path == pgmpy_network("alarm") and read_graph(path).variables == 37


def test_a_file_in_the_folder_wins_over_a_shipped_name(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("alarm.bif.gz").write_bytes(pgmpy_network("asia").read_bytes())
    assert graph_path("alarm.bif.gz") == Path("alarm.bif.gz")
    assert CrnValidateParameters(graph="alarm.bif.gz").graph == "alarm.bif.gz"


def test_a_graph_that_is_nowhere_names_the_shipped_ones(tmp_path, monkeypatch) -> None:
    pytest.importorskip("pgmpy")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ValidationError,
        match=r"nosuch: no such file or folder, nor a shipped "
        r"network \(asia.uai, alarm, andes, .*win95pts\)",
    ):
        CrnValidateParameters(graph="nosuch")
