"""Recover the factor graph from a Napp–Adams CRN alone (species, reactions and rate
constants; names ignored): the inverse of `napp_adams.compile_graph`.

1. Every reaction must be catalysts + X → catalysts + Y. Conversions join species into
   groups (union-find): the messages and beliefs, each conserved. Within a group, every
   (target, catalyst set) must convert from all other components at one rate.
2. Roles from catalysis between groups. Beliefs catalyse nothing and have maximal catalyst
   sets; the groups that catalyse beliefs are factor→variable messages F[a→i], each into
   one variable; the rest are variable→factor messages H[i→a]. A belief's catalysts for
   its state k are the k-th components of every F into its variable: this labels the
   components of each F with states.
3. H[i→a] is catalysed by every F into i except F[a→i]; the one missing pairs H with its
   edge, and its catalysts label its components. A leaf's H has no catalysts: it pairs with
   the one F of its factor that it does not catalyse (or, for a factor of one variable, with
   its F directly).
4. Factors: the F joined through the H that catalyse them. Each F[a→i] reads the whole
   table: ψ_a(x) is the rate into component x_i catalysed by components x_j of H[j→a]; all
   F of one factor must read the same table. Nothing labels a leaf H's components except
   that agreement, so they take the permutation that makes the readings agree.

The recovered graph compiles back to the same CRN up to names and the order of species and
reactions; variables are numbered by their beliefs' first species, states by species order.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from ...datasets.crn.factor_graph import FactorGraph
from ...datasets.crn.reaction_network import ReactionNetwork
from ...errors import InputFileError
from .napp_adams import CompiledGraph

RATE_RTOL = 1e-9
"""Relative tolerance for rates that must be equal."""
MAX_LABELINGS = 40_320
"""Most permutations of leaf-message labels tried for one factor."""

Motif = dict[int, dict[frozenset[int], float]]
"""Per target species: catalyst set → rate."""


class RecoveryError(InputFileError):
    """A CRN that is not a Napp–Adams compiled factor graph; the message says what did not
    match and names the reaction or species."""


@dataclass(frozen=True)
class Recovered:
    """The factor graph, and the input CRN with its belief species and conserved groups."""

    graph: FactorGraph
    compiled: CompiledGraph


def recover(network: ReactionNetwork) -> Recovered:
    """The factor graph whose Napp–Adams compilation is `network` (see the module doc)."""
    return _Recovery(network).run()


class _Recovery:
    def __init__(self, network: ReactionNetwork) -> None:
        self.network = network
        self.group_of: dict[int, int] = {}
        self.groups: list[tuple[int, ...]] = []
        self.motifs: list[Motif] = []
        self.label: dict[int, int] = {}

    # 1. conversions and groups ---------------------------------------------------------
    def describe(self, reaction: int) -> str:
        n, names = self.network, self.network.species

        def side(offsets: np.ndarray, species: np.ndarray, counts: np.ndarray) -> str:
            members = range(offsets[reaction], offsets[reaction + 1])
            return (
                " + ".join(
                    (f"{counts[m]} " if counts[m] > 1 else "") + names[species[m]] for m in members
                )
                or "∅"
            )

        left = side(n.reactant_offsets, n.reactant_species, n.reactant_coefficients)
        right = side(n.product_offsets, n.product_species, n.product_coefficients)
        return f"reaction {reaction} ({left} → {right})"

    def conversions(self) -> list[tuple[int, frozenset[int], int, int, float]]:
        n = self.network
        out = []
        for r in range(n.reactions):
            reactants: Counter[int] = Counter()
            products: Counter[int] = Counter()
            for counter, offsets, species, counts in (
                (reactants, n.reactant_offsets, n.reactant_species, n.reactant_coefficients),
                (products, n.product_offsets, n.product_species, n.product_coefficients),
            ):
                for m in range(offsets[r], offsets[r + 1]):
                    counter[int(species[m])] += int(counts[m])
            lost, gained = reactants - products, products - reactants
            if sum(lost.values()) != 1 or sum(gained.values()) != 1:
                raise RecoveryError(
                    f"{self.describe(r)}: not a catalysed conversion "
                    "(catalysts + X → catalysts + Y)"
                )
            catalysts = reactants - lost
            if any(c > 1 for c in catalysts.values()):
                raise RecoveryError(f"{self.describe(r)}: a catalyst appears twice")
            rate = float(n.rates[r])
            if not np.isfinite(rate) or rate <= 0:
                raise RecoveryError(f"{self.describe(r)}: rate {rate} is not positive")
            out.append((r, frozenset(catalysts), next(iter(lost)), next(iter(gained)), rate))
        return out

    def build_groups(self) -> None:
        conversions = self.conversions()
        parent = list(range(len(self.network.species)))

        def root(s: int) -> int:
            while parent[s] != s:
                parent[s] = parent[parent[s]]
                s = parent[s]
            return s

        for _, _, source, target, _ in conversions:
            parent[root(source)] = root(target)
        converted = {s for _, _, a, b, _ in conversions for s in (a, b)}
        for s in range(len(self.network.species)):
            if s not in converted:
                raise RecoveryError(
                    f"species {self.network.species[s]!r} is converted by no reaction; every "
                    "message and belief component is (variables of one state are not "
                    "recoverable)"
                )
        members: dict[int, list[int]] = defaultdict(list)
        for s in range(len(self.network.species)):
            members[root(s)].append(s)
        self.groups = sorted(tuple(m) for m in members.values())
        for g, group in enumerate(self.groups):
            for s in group:
                self.group_of[s] = g
        sources: list[dict[tuple[int, frozenset[int]], dict[int, tuple[int, float]]]] = [
            defaultdict(dict) for _ in self.groups
        ]
        for r, catalysts, source, target, rate in conversions:
            seen = sources[self.group_of[target]][target, catalysts]
            if source in seen:
                raise RecoveryError(f"{self.describe(r)} repeats {self.describe(seen[source][0])}")
            seen[source] = (r, rate)
        for g, group in enumerate(self.groups):
            motif: Motif = defaultdict(dict)
            for (target, catalysts), seen in sources[g].items():
                first, rate = next(iter(seen.values()))
                missing = set(group) - {target} - set(seen)
                if missing:
                    raise RecoveryError(
                        f"{self.describe(first)}: no matching conversion from "
                        f"{self.network.species[min(missing)]!r} with the same catalysts "
                        "(Napp–Adams converts every other component of a message)"
                    )
                for r, other in seen.values():
                    if not np.isclose(other, rate, rtol=RATE_RTOL, atol=0):
                        raise RecoveryError(
                            f"{self.describe(r)}: rate {other:g} differs from "
                            f"{rate:g} of {self.describe(first)}"
                        )
                motif[target][catalysts] = rate
            self.motifs.append(motif)

    def catalyst_groups(self, g: int) -> frozenset[int]:
        return frozenset(
            self.group_of[c] for sets in self.motifs[g].values() for s in sets for c in s
        )

    def where(self, g: int) -> str:
        shown = ", ".join(repr(self.network.species[s]) for s in self.groups[g][:3])
        return f"the message of species {shown}" + ("…" if len(self.groups[g]) > 3 else "")

    # 2–3. labels from product-type motifs ----------------------------------------------
    def product_catalysts(self, g: int) -> dict[int, frozenset[int]]:
        """target → its one catalyst set, for beliefs and H (one rate for the whole group)."""
        out: dict[int, frozenset[int]] = {}
        rates: list[float] = []
        for s in self.groups[g]:
            sets = self.motifs[g].get(s, {})
            if not sets:
                raise RecoveryError(
                    f"{self.where(g)}: no conversion reaches component {self.network.species[s]!r}"
                )
            if len(sets) > 1:
                raise RecoveryError(
                    f"{self.where(g)}: component {self.network.species[s]!r} is reached "
                    f"with {len(sets)} catalyst sets; a belief or variable→factor message "
                    "has exactly one per component"
                )
            ((catalysts, rate),) = sets.items()
            out[s], rates = catalysts, [*rates, rate]
        if not np.allclose(rates, rates[0], rtol=RATE_RTOL, atol=0):
            raise RecoveryError(
                f"{self.where(g)}: recycling rates differ ({min(rates):g} to "
                f"{max(rates):g}); a product message has one rate"
            )
        return out

    def label_by_catalysts(self, g: int, known: bool) -> None:
        """Label g's components from their catalysts (known=True: the catalysts are labelled,
        g takes their label; False: g is a belief, its order labels the catalysts)."""
        catalysts = self.product_catalysts(g)
        expected = self.catalyst_groups(g)
        for state, s in enumerate(self.groups[g]):
            present = catalysts[s]
            if sorted(self.group_of[c] for c in present) != sorted(expected):
                raise RecoveryError(
                    f"{self.where(g)}: the catalysts of component "
                    f"{self.network.species[s]!r} do not take one component "
                    "of each message into its variable"
                )
            if known:
                states = {self.label[c] for c in present}
                if len(states) != 1:
                    raise RecoveryError(
                        f"{self.where(g)}: component "
                        f"{self.network.species[s]!r} is catalysed by "
                        "components of different states"
                    )
                self.label[s] = states.pop()
            else:
                self.label[s] = state
                for c in present:
                    self.label[c] = state
        used = [self.label[s] for s in self.groups[g]]
        if sorted(used) != list(range(len(used))):
            raise RecoveryError(
                f"{self.where(g)}: its components do not match the states one to one"
            )

    # the whole recovery ------------------------------------------------------------------
    def run(self) -> Recovered:
        self.build_groups()
        count = len(self.groups)
        self.inside = [self.catalyst_groups(g) for g in range(count)]
        self.catalyses: list[set[int]] = [set() for _ in range(count)]
        for g in range(count):
            for h in self.inside[g]:
                self.catalyses[h].add(g)
        beliefs = self.find_beliefs()
        leaves, unary_leaves = self.pair_by_catalysts(beliefs)
        self.parent = {f: f for f in self.owner}
        for h, f in self.partner.items():
            for g in self.catalyses[h]:
                self.join(g, f)
        for h in leaves:
            for g in self.catalyses[h]:
                self.join(g, min(self.catalyses[h]))
        halves = []
        for h in leaves:
            anchor = self.root(min(self.catalyses[h]))
            own = {f for f in self.owner if self.root(f) == anchor} - self.catalyses[h]
            candidates = self.free(h, own)
            if candidates:
                self.partner[h] = candidates[0]
            else:
                halves.append(h)  # a factor of two leaf variables: its other half is apart
        self.pair_halves(halves)
        isolated = []
        for h in unary_leaves:
            candidates = [f for f in self.free(h) if not self.inside[f]]
            if candidates:
                self.partner[h] = candidates[0]
            else:
                isolated.append(h)  # a variable in no factor: its belief has no catalysts
        unpaired = set(self.owner) - set(self.partner.values())
        if unpaired:
            raise RecoveryError(
                f"{self.where(min(unpaired))}: no variable→factor message pairs with it"
            )
        for b in isolated:
            self.product_catalysts(b)
            for state, s in enumerate(self.groups[b]):
                self.label[s] = state
        return self.assemble(sorted([*beliefs, *isolated], key=lambda g: self.groups[g][0]))

    def find_beliefs(self) -> list[int]:
        """Groups that catalyse nothing with maximal catalyst sets; labels them and the F
        groups that catalyse them (self.owner: F → its belief)."""
        silent = [g for g in range(len(self.groups)) if not self.catalyses[g]]
        beliefs = [
            g
            for g in silent
            if self.inside[g] and not any(self.inside[g] < self.inside[t] for t in silent)
        ]
        self.owner: dict[int, int] = {}
        for b in beliefs:
            for f in self.inside[b]:
                if f in self.owner:
                    raise RecoveryError(f"{self.where(f)} catalyses two beliefs")
                self.owner[f] = b
            self.label_by_catalysts(b, known=False)
        return beliefs

    def pair_by_catalysts(self, beliefs: list[int]) -> tuple[list[int], list[int]]:
        """Pair every H that has catalysts with its edge's F (self.partner: H → F); returns
        the leaf H that catalyse some F and those that catalyse none."""
        self.partner: dict[int, int] = {}
        leaves: list[int] = []
        unary_leaves: list[int] = []
        for h in range(len(self.groups)):
            if h in self.owner or h in beliefs:
                continue
            if not self.inside[h] <= self.owner.keys():
                raise RecoveryError(
                    f"{self.where(h)} is catalysed by species that are not factor→variable messages"
                )
            if not self.inside[h]:
                (leaves if self.catalyses[h] else unary_leaves).append(h)
                continue
            variables = {self.owner[f] for f in self.inside[h]}
            missing: set[int] = set()
            if len(variables) == 1:
                missing = set(self.inside[variables.pop()] - self.inside[h])
            if len(missing) != 1:
                raise RecoveryError(
                    f"{self.where(h)}: its catalysts are not the messages into one variable but one"
                )
            self.partner[h] = missing.pop()
            self.label_by_catalysts(h, known=True)
        if len(set(self.partner.values())) != len(self.partner):
            raise RecoveryError("two variable→factor messages pair with the same edge")
        return leaves, unary_leaves

    def root(self, f: int) -> int:
        while self.parent[f] != f:
            f = self.parent[f]
        return f

    def join(self, first: int, second: int) -> None:
        self.parent[self.root(first)] = self.root(second)

    def free(self, h: int, pool: set[int] | None = None) -> list[int]:
        """Unpaired F into leaf variables with as many states as h has components."""
        taken = set(self.partner.values())
        return [
            f
            for f in sorted(self.owner)
            if f not in taken
            and len(self.inside[self.owner[f]]) == 1
            and len(self.groups[self.owner[f]]) == len(self.groups[h])
            and (pool is None or f in pool)
        ]

    def pair_halves(self, halves: list[int]) -> None:
        """Pair the halves of factors of two leaf variables, H[i→a] catalysing F[a→j] and
        H[j→a] catalysing F[a→i], by trying partners until the two tables agree."""
        while halves:
            h = halves.pop(0)
            (own,) = self.catalyses[h]
            for f in self.free(h):
                other = [g for g in halves if self.catalyses[g] == {f} and self.free(g, {own})]
                if f == own or not other:
                    continue
                self.partner[h], self.partner[other[0]] = f, own
                try:
                    self.factor([own, f])
                except RecoveryError:
                    del self.partner[h], self.partner[other[0]]
                    continue
                self.join(f, own)
                halves.remove(other[0])
                break
            else:
                raise RecoveryError(
                    f"{self.where(h)}: no message of a leaf variable completes its factor"
                )

    # 4. factor tables --------------------------------------------------------------------
    def factor(self, fs: list[int]) -> tuple[list[int], np.ndarray]:
        """(beliefs of the scope in order, table) of the factor whose F are `fs`; labels
        the components of its leaf H."""
        fs = sorted(fs, key=lambda f: self.groups[self.owner[f]][0])
        scope = [self.owner[f] for f in fs]
        if len(set(scope)) != len(scope):
            raise RecoveryError(f"{self.where(fs[0])}: its factor holds one variable twice")
        h_of = {f: h for h, f in self.partner.items()}
        hs = [h_of[f] for f in fs]
        position = {h: q for q, h in enumerate(hs)}
        shape = tuple(len(self.groups[b]) for b in scope)
        readings = []
        for p, f in enumerate(fs):
            if self.inside[f] != {h for q, h in enumerate(hs) if q != p}:
                raise RecoveryError(
                    f"{self.where(f)}: not catalysed by the messages of the "
                    "other variables of its factor"
                )
            table = np.zeros(shape)
            for target, sets in self.motifs[f].items():
                for catalysts, rate in sets.items():
                    if len({self.group_of[c] for c in catalysts}) != len(fs) - 1:
                        raise RecoveryError(
                            f"{self.where(f)}: a conversion into it lacks a catalyst from one "
                            "of its factor's messages"
                        )
                    x = [0] * len(fs)
                    x[p] = self.label[target]
                    for c in catalysts:
                        g = self.group_of[c]
                        x[position[g]] = self.label.get(c, self.groups[g].index(c))
                    table[tuple(x)] = rate
            readings.append(table)
        unknown = [q for q, h in enumerate(hs) if self.groups[h][0] not in self.label]
        orders = [list(itertools.permutations(range(shape[q]))) for q in unknown]
        if np.prod([len(o) for o in orders]) > MAX_LABELINGS:
            raise RecoveryError(f"{self.where(fs[0])}: too many leaf labelings to try")
        for choice in itertools.product(*orders):
            aligned = []
            for p, table in enumerate(readings):
                for q, order in zip(unknown, choice, strict=True):
                    if q != p:  # component raw of H[q] takes state order[raw]
                        table = np.take(table, np.argsort(order), axis=q)
                aligned.append(table)
            if all(np.allclose(t, aligned[0], rtol=RATE_RTOL, atol=0) for t in aligned[1:]):
                for q, order in zip(unknown, choice, strict=True):
                    for raw, s in enumerate(self.groups[hs[q]]):
                        self.label[s] = order[raw]
                return scope, aligned[0]
        raise RecoveryError(
            f"{self.where(fs[0])}: the messages of its factor read different "
            "tables (rates do not come from one factor)"
        )

    def assemble(self, beliefs: list[int]) -> Recovered:
        index = {b: i for i, b in enumerate(beliefs)}
        classes: dict[int, list[int]] = defaultdict(list)
        for f in self.owner:
            classes[self.root(f)].append(f)
        factors = []
        for fs in sorted(classes.values(), key=lambda fs: min(self.groups[f][0] for f in fs)):
            scope, table = self.factor(fs)
            factors.append(([index[b] for b in scope], table))
        cards = [len(self.groups[b]) for b in beliefs]
        graph = FactorGraph.build(cards, factors, source="recovered CRN")
        belief = tuple(self.groups[b] for b in beliefs)
        return Recovered(graph, CompiledGraph(self.network, belief, tuple(self.groups)))
