"""The layers of the code, checked from the source (README "Layout"):

    cuttle_client    the Textual client and the ``cuttle`` command
    cuttle_protocol  the wire protocol and the network shells (trio)
    cuttle_net       the pure core: games/, deck/, session, records/

A module may import its own layer and the layers below, never one above; the core imports no
I/O library; inside the core no modules import each other in a circle.  Imports are read with
``ast`` from every file, lazy ones inside functions included (a lazy import is still a
dependency); only ``if TYPE_CHECKING:`` blocks are left out, as they never run.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {  # import name -> folder, lowest layer first
    "cuttle_net": ROOT / "cuttle_net",
    "cuttle_protocol": ROOT / "protocol" / "cuttle_protocol",
    "cuttle_client": ROOT / "client" / "cuttle_client",
}
LAYER = {name: i for i, name in enumerate(PACKAGES)}
# Libraries that do or drive I/O: never in the core.
CORE_FORBIDDEN = {"trio", "textual", "asyncio", "socket", "platformdirs", "zeroconf", "ifaddr"}
CORE_FORBIDDEN |= {"miniupnpc", "selectors", "ssl"}
# The sub-packages of cuttle_protocol that are trio or socket shells; every other is sans-I/O
# and must import without loading trio, textual, asyncio or socket.
PROTOCOL_IO_SHELLS = {"shells", "play"}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    path: Path
    line: int
    target: str  # the module imported (a submodule when ``from pkg import sub`` names one)


def module_files() -> dict[str, Path]:
    """Every module of the three packages, by dotted name."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST):
    """The import statements that can run (all but those under ``if TYPE_CHECKING:``)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in _import_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import sub`` imports the submodule; ``from mod import name`` the module.
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names
            ]
        found += [Import(module, path, node.lineno, t) for t in dict.fromkeys(targets)]
    return found


MODULES = module_files()
IMPORTS = [i for m, p in MODULES.items() for i in imports_of(m, p, MODULES)]


def _where(i: Import) -> str:
    return f"{i.path.relative_to(ROOT)}:{i.line} ({i.module}) imports {i.target}"


def test_the_scan_sees_every_package_and_its_imports() -> None:
    # Guards the test itself: a scan that found nothing would pass everything.
    for package in PACKAGES:
        assert package in MODULES
    assert any(i.target == "cuttle_net.games.cuttle.engine" for i in IMPORTS)
    assert any(i.module.startswith("cuttle_client") and i.target == "textual.app" for i in IMPORTS)


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{_where(i)}, a layer above {i.module.split('.')[0]}"
        for i in IMPORTS
        if i.target.split(".")[0] in LAYER
        and LAYER[i.target.split(".")[0]] > LAYER[i.module.split(".")[0]]
    ]
    assert not upward, "upward imports (move the code up, or the dependency down):\n" + "\n".join(
        upward
    )


def test_the_core_imports_no_io_library() -> None:
    bad = [
        _where(i)
        for i in IMPORTS
        if i.module.startswith("cuttle_net") and i.target.split(".")[0] in CORE_FORBIDDEN
    ]
    assert not bad, "cuttle_net is sans-I/O; these belong in cuttle_protocol:\n" + "\n".join(bad)


def core_cycles(package: str = "cuttle_net") -> list[list[str]]:
    """The import cycles among `package`'s modules: strongly connected components of two or
    more modules (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES if m.startswith(package)}
    for i in IMPORTS:
        if i.module in graph and i.target in graph and i.target != i.module:
            graph[i.module].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def _explain(component: list[str]) -> str:
    edges = [_where(i) for i in IMPORTS if i.module in component and i.target in component]
    return " <-> ".join(component) + "\n  " + "\n  ".join(edges)


def test_no_import_cycles_in_the_core() -> None:
    cycles = core_cycles()
    assert not cycles, "import cycles in cuttle_net:\n" + "\n".join(_explain(c) for c in cycles)


def test_no_import_cycles_in_the_client() -> None:
    # A screen that imports a game's seat that imports the screen's module back (network
    # and unisson.network did) ties every game to every other: the registry breaks it.
    cycles = core_cycles("cuttle_client")
    assert not cycles, "import cycles in cuttle_client:\n" + "\n".join(_explain(c) for c in cycles)


def _loaded_io(modules: list[str]) -> str:
    code = (
        "import importlib, sys\n"
        "for m in sys.argv[1:]: importlib.import_module(m)\n"
        "io = ('trio', 'textual', 'asyncio', 'socket')\n"
        "print(' '.join(sorted({n.split('.')[0] for n in sys.modules} & set(io))))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *modules], check=True, capture_output=True, text=True, cwd="/"
    ).stdout.strip()


def test_the_core_loads_neither_trio_nor_textual() -> None:
    # Every module of the core, imported for real: the engines, the deck, session, records.
    core = [m for m in MODULES if m.startswith("cuttle_net")]
    assert _loaded_io(core) == "", "importing cuttle_net loads I/O libraries"


def test_the_wire_protocol_loads_neither_trio_nor_textual() -> None:
    wire = [
        m
        for m in MODULES
        if m.startswith("cuttle_protocol")
        and m.split(".")[1:2]
        and m.split(".")[1] not in PROTOCOL_IO_SHELLS
    ]
    assert "cuttle_protocol.wire.connection" in wire
    loaded = _loaded_io(wire)
    assert loaded == "", (
        f"the sans-I/O modules of cuttle_protocol load {loaded}; a new trio or socket shell "
        "belongs in PROTOCOL_IO_SHELLS (tests/test_layers.py)"
    )
