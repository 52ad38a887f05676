"""The package's imports point one way (docs/architecture.md, "Layers").

Every import of every module is read from its syntax tree — at module level, inside functions,
and ``importlib.import_module("...")`` strings — and resolved to a module of the package. The
test fails on an import of a later layer, on a cycle among the modules (also inside one layer),
and on a module-level import below the first definition (a bottom-of-file import hides a cycle).
"""

from __future__ import annotations

import ast
import pathlib

import pytest

import tradeoff_algebra

PKG = "tradeoff_algebra"
ROOT = pathlib.Path(tradeoff_algebra.__file__).parent

#: The layer order: a module may import modules of its own layer and of earlier ones only.
LAYERS = ["core", "numeric", "families", "operators", "rewrite", "routes", "analysis", "notions",
          "bounds", "printing", "verify", "mechanisms", "interop", "accountant", "calibration",
          "opacus_accountant", "plot", "audit", "sweep", "__init__", "parse_limits", "parse", "cli",
          "__main__"]


def _modules() -> dict[str, tuple[pathlib.Path, bool]]:
    out = {}
    for p in sorted(ROOT.rglob("*.py")):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (p, is_pkg)
    return out


MODULES = _modules()


def layer(mod: str) -> int:
    parts = mod.split(".")
    name = parts[1] if len(parts) > 1 else "__init__"
    return LAYERS.index(name)


def _absolute(mod: str, is_pkg: bool, level: int, name: str | None) -> str:
    if not level:
        return name or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _known(target: str) -> str | None:
    while target and target not in MODULES:
        target = target.rpartition(".")[0]
    return target or None


def imports(mod: str) -> list[tuple[str, int, bool]]:
    """(imported module, line, at module level) for every import of ``mod`` in the package."""
    path, is_pkg = MODULES[mod]
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(mod, is_pkg, node.level, node.module)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                       for a in node.names]
        elif isinstance(node, ast.Call):
            fn = node.func
            name = getattr(fn, "attr", getattr(fn, "id", None))
            if name == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
                s = node.args[0].value
                if isinstance(s, str) and s.startswith("."):
                    level = len(s) - len(s.lstrip("."))
                    s = _absolute(mod, is_pkg, level, s.lstrip(".") or None)
                targets = [s] if isinstance(s, str) else []
        for t in targets:
            if t == PKG or t.startswith(PKG + "."):
                k = _known(t)
                if k is not None and k != mod:
                    out.append((k, node.lineno, id(node) in top))
    return out


GRAPH = {m: imports(m) for m in MODULES}


def test_every_module_has_a_layer():
    for m in MODULES:
        layer(m)  # raises ValueError for a module outside the listed layers


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_imports_point_down(mod):
    up = [(t, line) for t, line, _ in GRAPH[mod] if layer(t) > layer(mod)]
    assert not up, f"{mod} imports a later layer: {up}"


def test_no_cycle():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w, _, _ in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for m in MODULES:
        if m not in index:
            visit(m)
    assert not cycles, f"import cycles: {cycles}"


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_module_level_imports_come_first(mod):
    path, _ = MODULES[mod]
    tree = ast.parse(path.read_text())
    first_def = next((n.lineno for n in tree.body
                      if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))),
                     None)
    late = [n.lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
            and first_def is not None and n.lineno > first_def]
    assert not late, f"{mod}: module-level imports below the first definition, lines {late}"


def test_the_graph_reads_the_imports():
    """The reader itself: it sees function-local imports and import_module strings."""
    edges = {t for t, _, _ in GRAPH[f"{PKG}.routes.product"]}
    assert f"{PKG}.operators.tensor" in edges and f"{PKG}.numeric.pld" in edges
    assert layer(f"{PKG}.numeric.pld") < layer(f"{PKG}.families.gaussian")
    assert _absolute(f"{PKG}.numeric.pld", False, 2, "core.errors") == f"{PKG}.core.errors"


#: The public API and the practitioner's layer name families by design: the package's exports,
#: the mechanism constructors, the adapters of other libraries, the parser and the command.
PUBLIC = {"__init__", "__main__", "mechanisms", "interop", "opacus_accountant", "calibration",
          "plot", "parse", "cli"}

#: Every other import of a family outside families/, each with its reason. The set may only
#: shrink: every capability of a family is asked through numeric/capability.py and
#: numeric/privacy_loss.py, and an operator's closed form on a family is the family's hook.
FAMILY_IMPORTS_LEFT = {
    # Id and Zero are the unit and the absorbing element of the algebra (Dong, Roth & Su,
    # Sec. 3.1): the operators and the plan of a product use them as constants.
    ("operators.maxgroup", "families.trivial"),
    ("operators.subsample", "families.trivial"),
    ("operators.tensor", "families.trivial"),
    ("routes.plan", "families.trivial"),
    ("bounds.berry_esseen", "families.trivial"),
    # f_{eps,delta} as the (eps, delta) notion: a factor f_{0,delta} split off in a plan
    ("routes.plan", "families.epsdelta"),
    # a notion is defined by its family: (eps, delta)-DP by f_{eps,delta}, GDP by G_mu, RDP's
    # optimal conversion by the Renyi region
    ("notions.approx", "families.epsdelta"),
    ("notions.gdp", "families.gaussian"),
    ("notions.renyi_dp", "families.renyi_region"),
    # theorems about particular families, stated as bounds (Thms. 5-7, 11 of Dong, Roth & Su;
    # Wang et al.'s Prop. 6.4, Thm. 5.1; the Feldman-McMillan-Talwar bound)
    ("bounds.berry_esseen", "families.binomial"),
    ("bounds.berry_esseen", "families.epsdelta"),
    ("bounds.berry_esseen", "families.gaussian"),
    ("bounds.clt", "families.binomial"),
    ("bounds.clt", "families.epsdelta"),
    ("bounds.clt", "families.gaussian"),
    ("bounds.initialisation", "families.gaussian"),
    ("bounds.mixtures", "families.discrete"),
    ("bounds.mixtures", "families.gaussian"),
    ("bounds.mixtures", "families.piecewise"),
    ("bounds.shuffling", "families.epsdelta"),
}


def test_no_family_name_outside_its_module_and_the_public_api():
    found = set()
    for m in MODULES:
        top = m.split(".")[1] if "." in m else "__init__"
        if top == "families" or top in PUBLIC:
            continue
        found |= {(m[len(PKG) + 1:], t[len(PKG) + 1:]) for t, _, _ in GRAPH[m]
                  if t.split(".")[1:2] == ["families"]}
    assert found <= FAMILY_IMPORTS_LEFT, f"new family imports: {found - FAMILY_IMPORTS_LEFT}"
    assert found == FAMILY_IMPORTS_LEFT, f"gone (strike them): {FAMILY_IMPORTS_LEFT - found}"
