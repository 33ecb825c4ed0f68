"""The layers of the code, checked from the source (README "Layout"):

    cuttle_client    the Textual client and the ``cuttle`` command
    cuttle_protocol  the network layer, in sub-packages by layer (lowest first):
                     errors, wire, table, store, shells, play
    cuttle_net       the pure core: games/, deck/, session, records/

A module may import its own layer and the layers below, never one above, and so may each
sub-package of cuttle_protocol; the core and cuttle_protocol's sans-I/O layers (errors,
wire, table, store) import no I/O library, nor load one; a caller outside a sub-package
takes its public names (``__all__``) from the sub-package, not from the module inside; and
no modules anywhere import each other in a circle, counting the package ``__init__`` every
import runs first.
Imports are read with ``ast`` from every file, lazy ones inside functions included (a lazy
import is still a dependency); only ``if TYPE_CHECKING:`` blocks are left out, as they never
run.  Each check is also run on a deliberate violation, so a check that sees nothing fails.
"""

from __future__ import annotations

import ast
import functools
import importlib
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
# cuttle_protocol's sub-packages, lowest first: each imports only itself and those before it.
PROTOCOL_LAYERS = ("errors", "wire", "table", "store", "shells", "play")
# The sans-I/O parts of cuttle_protocol: no trio, socket or other I/O library (store reads and
# writes files, and finds their folders with platformdirs, but opens no connection).
SANS_IO = ("errors", "wire", "table", "store")
SANS_IO_FORBIDDEN = CORE_FORBIDDEN - {"platformdirs"}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    path: Path
    line: int
    target: str  # the module imported (a submodule when ``from pkg import sub`` names one)
    names: tuple[str, ...] = ()  # ``from target import names`` (none for a module imported)


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
            names = [a.name for a in node.names if f"{base}.{a.name}" not in modules]
            targets = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
            if names:
                found.append(Import(module, path, node.lineno, base, tuple(names)))
        found += [Import(module, path, node.lineno, t) for t in dict.fromkeys(targets)]
    return found


MODULES = module_files()


@functools.cache
def imports() -> list[Import]:
    """Every import of the three packages, read once, when a test first asks (not while the
    suite is collected: reading every file is a second of CPU each worker paid)."""
    return [i for m, p in MODULES.items() for i in imports_of(m, p, MODULES)]


def _where(i: Import) -> str:
    return f"{i.path.relative_to(ROOT)}:{i.line} ({i.module}) imports {i.target}"


def test_the_scan_sees_every_package_and_its_imports() -> None:
    # Guards the test itself: a scan that found nothing would pass everything.
    for package in PACKAGES:
        assert package in MODULES
    found = imports()
    assert any(i.target == "cuttle_net.games.cuttle.engine" for i in found)
    assert any(i.module.startswith("cuttle_client") and i.target == "textual.app" for i in found)


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{_where(i)}, a layer above {i.module.split('.')[0]}"
        for i in imports()
        if i.target.split(".")[0] in LAYER
        and LAYER[i.target.split(".")[0]] > LAYER[i.module.split(".")[0]]
    ]
    assert not upward, "upward imports (move the code up, or the dependency down):\n" + "\n".join(
        upward
    )


def test_the_core_imports_no_io_library() -> None:
    bad = [
        _where(i)
        for i in imports()
        if i.module.startswith("cuttle_net") and i.target.split(".")[0] in CORE_FORBIDDEN
    ]
    assert not bad, "cuttle_net is sans-I/O; these belong in cuttle_protocol:\n" + "\n".join(bad)


def protocol_layer(module: str) -> str | None:
    """The sub-package of cuttle_protocol a module belongs to, or None (outside it, or a
    module at its top that belongs to no layer)."""
    parts = module.split(".")
    if parts[0] != "cuttle_protocol" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in PROTOCOL_LAYERS else None


def upward_in_protocol(imports: list[Import]) -> list[str]:
    """Imports from one of cuttle_protocol's layers into a layer above it."""
    rank = {layer: i for i, layer in enumerate(PROTOCOL_LAYERS)}
    return [
        f"{_where(i)}: {protocol_layer(i.module)} is below {protocol_layer(i.target)}"
        for i in imports
        if protocol_layer(i.module)
        and protocol_layer(i.target)
        and rank[protocol_layer(i.target)] > rank[protocol_layer(i.module)]
    ]


def _sans_io(module: str) -> bool:
    return any(
        module == f"cuttle_protocol.{part}" or module.startswith(f"cuttle_protocol.{part}.")
        for part in SANS_IO
    )


def io_in_sans_io(imports: list[Import]) -> list[str]:
    """Imports of an I/O library by cuttle_protocol's sans-I/O layers."""
    return [
        _where(i)
        for i in imports
        if _sans_io(i.module) and i.target.split(".")[0] in SANS_IO_FORBIDDEN
    ]


def stray_protocol_modules(modules: dict[str, Path]) -> list[str]:
    """cuttle_protocol's modules that belong to no layer (say, a flat module a merge brought
    back): every module but the package's own ``__init__`` lives in a layer."""
    return [m for m in modules if m.startswith("cuttle_protocol.") and protocol_layer(m) is None]


def public_api() -> dict[str, set[str]]:
    """Each of cuttle_protocol's sub-packages (a package, not a module) and its ``__all__``."""
    api = {}
    for layer in PROTOCOL_LAYERS:
        init = PACKAGES["cuttle_protocol"] / layer / "__init__.py"
        if not init.exists():
            continue
        exported: set[str] = set()
        for node in ast.parse(init.read_text()).body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                exported = set(ast.literal_eval(node.value))
        api[f"cuttle_protocol.{layer}"] = exported
    return api


def api_bypasses(imports: list[Import], api: dict[str, set[str]]) -> list[str]:
    """Imports, by a caller outside cuttle_protocol (client, tests, benchmarks), of a
    sub-package's public name from the module inside rather than from the sub-package: one
    way to import each thing.  Inside cuttle_protocol modules import modules (``__init__``
    re-exports them), which keeps a layer's load order its own."""
    found = []
    for i in imports:
        package = ".".join(i.target.split(".")[:2])
        if package not in api or i.target == package or i.module.startswith("cuttle_protocol"):
            continue
        public = sorted(set(i.names) & api[package])
        if public:
            found.append(f"{_where(i)}: take {', '.join(public)} from {package}")
    return found


def import_graph(imports: list[Import], modules: dict[str, Path]) -> dict[str, set[str]]:
    """Who imports whom among our modules.  Importing ``a.b.c`` runs ``a/__init__`` and
    ``a/b/__init__`` first, and those import their own submodules: so an import also depends
    on each package above its target that is not one of the importer's own."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for i in imports:
        if i.module not in graph or i.target not in graph:
            continue
        parts = i.target.split(".")
        for n in range(1, len(parts) + 1):
            target = ".".join(parts[:n])
            if target in graph and target != i.module and not i.module.startswith(target + "."):
                graph[i.module].add(target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of a graph: strongly connected components of two or more modules
    (Tarjan), each sorted."""
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


def _explain(component: list[str], imports: list[Import]) -> str:
    edges = [_where(i) for i in imports if i.module in component and i.target in component]
    return " <-> ".join(component) + "\n  " + "\n  ".join(edges)


def test_no_import_cycles_anywhere() -> None:
    # Core, protocol and client alike: a screen that imports a game's seat that imports the
    # screen's module back (network and unisson.network did) ties every game to every other.
    cycles = import_cycles(import_graph(imports(), MODULES))
    assert not cycles, "import cycles:\n" + "\n".join(_explain(c, imports()) for c in cycles)


def test_no_protocol_layer_imports_one_above_it() -> None:
    upward = upward_in_protocol(imports())
    assert not upward, (
        "cuttle_protocol's layers, lowest first, are " + ", ".join(PROTOCOL_LAYERS) + "; these "
        "import upward (move the code up, or the dependency down):\n" + "\n".join(upward)
    )


def test_every_protocol_module_lives_in_a_layer() -> None:
    strays = stray_protocol_modules(MODULES)
    assert not strays, (
        "modules of cuttle_protocol outside its layers ("
        + ", ".join(PROTOCOL_LAYERS)
        + "): "
        + ", ".join(strays)
    )


def test_the_sans_io_layers_import_no_io_library() -> None:
    bad = io_in_sans_io(imports())
    assert not bad, (
        "cuttle_protocol's " + ", ".join(SANS_IO) + " do no I/O; these belong in shells:\n"
    ) + "\n".join(bad)


def test_callers_take_public_names_from_the_sub_package() -> None:
    api = public_api()
    assert set(api) == {f"cuttle_protocol.{layer}" for layer in PROTOCOL_LAYERS} - {
        "cuttle_protocol.errors"
    }
    bypasses = api_bypasses(imports(), api)
    assert not bypasses, "public names imported from inside a sub-package:\n" + "\n".join(bypasses)


def test_every_public_name_is_there() -> None:
    for package, names in public_api().items():
        module = importlib.import_module(package)
        assert names, f"{package} has no __all__"
        missing = sorted(n for n in names if not hasattr(module, n))
        assert not missing, f"{package}.__all__ names what it does not have: {missing}"


def _fake(module: str, target: str, names: tuple[str, ...] = ()) -> Import:
    return Import(module, MODULES.get(module, ROOT / "fake.py"), 1, target, names)


def test_each_check_catches_a_deliberate_violation() -> None:
    # The wire (sans-I/O) importing a shell, a table core trio, the LAN record zeroconf.
    assert upward_in_protocol([_fake("cuttle_protocol.wire.codec", "cuttle_protocol.shells.peer")])
    assert upward_in_protocol([_fake("cuttle_protocol.store.dirs", "cuttle_protocol.play.game")])
    assert not upward_in_protocol([_fake("cuttle_protocol.play.game", "cuttle_protocol.wire")])
    assert io_in_sans_io([_fake("cuttle_protocol.table.core", "trio")])
    assert io_in_sans_io([_fake("cuttle_protocol.wire.announcement", "zeroconf")])
    assert io_in_sans_io([_fake("cuttle_protocol.store.identity", "socket")])
    assert not io_in_sans_io([_fake("cuttle_protocol.shells.mdns", "zeroconf")])
    assert not io_in_sans_io([_fake("cuttle_protocol.store.dirs", "platformdirs")])
    # A flat module at the top of cuttle_protocol (as a merge of an older branch may bring).
    assert stray_protocol_modules({**MODULES, "cuttle_protocol.netstuff": ROOT}) == [
        "cuttle_protocol.netstuff"
    ]
    # A public name taken from the module inside its sub-package; a private one may be.
    api = public_api()
    assert api_bypasses(
        [_fake("cuttle_client.app", "cuttle_protocol.wire.codec", ("unpack",))], api
    )
    assert not api_bypasses(
        [_fake("cuttle_client.app", "cuttle_protocol.wire.codec", ("_private",))], api
    )
    assert not api_bypasses(
        [_fake("cuttle_protocol.table.core", "cuttle_protocol.wire.codec", ("unpack",))], api
    )


def test_the_cycle_check_catches_a_deliberate_circle() -> None:
    # One import reversed in each package makes a circle.
    for package in PACKAGES:
        edge = next(
            i
            for i in imports()
            if i.module.startswith(package + ".")
            and i.target.startswith(package + ".")
            and i.target in MODULES
            and not i.module.startswith(i.target + ".")
            and not i.target.startswith(i.module + ".")
        )
        back = _fake(edge.target, edge.module)
        cycles = import_cycles(import_graph([*imports(), back], MODULES))
        assert any({edge.module, edge.target} <= set(c) for c in cycles), package
    # A circle only through a package's __init__: store.identity importing shells.dial (which
    # imports nothing of store) runs shells/__init__, whose peer imports store.identity.
    via_init = [*imports(), _fake("cuttle_protocol.store.identity", "cuttle_protocol.shells.dial")]
    cycles = import_cycles(import_graph(via_init, MODULES))
    assert any(
        {"cuttle_protocol.store.identity", "cuttle_protocol.shells"} <= set(c) for c in cycles
    )


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


def test_the_sans_io_layers_load_neither_trio_nor_textual() -> None:
    # Imported for real, with every package __init__ on the way.
    pure = [m for m in MODULES if _sans_io(m)]
    assert "cuttle_protocol.wire.connection" in pure
    assert "cuttle_protocol.store.seatjournal" in pure
    loaded = _loaded_io(pure)
    assert loaded == "", (
        f"the sans-I/O layers of cuttle_protocol ({', '.join(SANS_IO)}) load {loaded}; "
        "a trio or socket shell belongs in shells"
    )


# -- the protocol hands up data; the client alone chooses the words (issue 25)

# Hooks that still take a sentence, each with why it may (none left: the listener's log, the
# last, tells `ListenerNews`).
SENTENCE_HOOKS_LEFT: dict[str, set[str]] = {}


def _takes_a_sentence(arg: ast.arg) -> bool:
    """A parameter that is handed English for the player: named ``say``, or a hook typed
    ``Callable[[str], None]`` (the shape of ``print``)."""
    note = ast.unparse(arg.annotation) if arg.annotation is not None else ""
    return arg.arg == "say" or note.replace(" ", "") == "Callable[[str],None]"


def sentence_hooks(modules: dict[str, Path]) -> list[str]:
    """Every function of cuttle_protocol with a parameter that takes a sentence for the
    player, but those `SENTENCE_HOOKS_LEFT` names."""
    found = []
    for module, path in modules.items():
        if not module.startswith("cuttle_protocol"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if _takes_a_sentence(arg) and arg.arg not in SENTENCE_HOOKS_LEFT.get(module, ()):
                    found.append(f"{module}:{node.lineno} {node.name}({arg.arg})")
    return found


def test_the_protocol_takes_no_hook_for_sentences() -> None:
    """Progress and outcomes travel up as typed events (`play.events`, `play.result`, the
    shells' news): a `say` hook in the protocol is English the client cannot choose."""
    found = sentence_hooks(MODULES)
    assert not found, "hooks handed English (tell typed events instead):\n" + "\n".join(found)


def test_the_sentence_hook_check_sees_one(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from collections.abc import Callable\n"
        "def a(say): ...\n"
        "async def b(x: int, *, log: Callable[[str], None] = print): ...\n"
        "def c(tell: Callable[[object], None]): ...\n"
    )
    found = sentence_hooks({"cuttle_protocol.shells.bad": bad})
    assert [f.split(" ")[1] for f in found] == ["a(say)", "b(log)"]


# -- only the registries know the games by name (issue 25)

# Who may import a game's own package (``cuttle_net.games.<name>``): the game's own folders
# (its core package, its client folder ``cuttle_client.<name>``) and the client's registry.
# The protocol never may: it reaches a game through ``cuttle_net.games`` (``GAMES``,
# ``game_part``) and ``interface.game_module``.  A client module that still did would be listed
# here with why (docs/adding-a-game.md "What still names a game"); none does.
GAME_IMPORTS_LEFT: dict[str, str] = {}
GAME_REGISTRIES = {"cuttle_client.games"}


def _game_of(module: str) -> str | None:
    """The game whose own package or client folder ``module`` is in, else None."""
    from cuttle_net.games import GAMES

    parts = module.split(".")
    if parts[:2] == ["cuttle_net", "games"] and len(parts) > 2 and parts[2] in GAMES:
        return parts[2]
    if parts[0] == "cuttle_client" and len(parts) > 1 and parts[1] in GAMES:
        return parts[1]
    return None


def games_imported_by_name(imports: list[Import], left: dict[str, str]) -> list[str]:
    """Imports of a game's own package by a module that is not that game's, a registry, nor
    one of those ``left`` names (never in cuttle_protocol)."""
    found = []
    for i in imports:
        game = _game_of(i.target)
        if game is None or i.target.split(".")[0] != "cuttle_net" or _game_of(i.module) == game:
            continue
        if i.module.startswith("cuttle_client") and (i.module in GAME_REGISTRIES | set(left)):
            continue
        found.append(_where(i))
    return found


def test_only_the_registries_know_the_games_by_name() -> None:
    found = games_imported_by_name(imports(), GAME_IMPORTS_LEFT)
    assert not found, (
        "a game reached by name (go through cuttle_net.games / interface.game_module, or the "
        "client's games.py):\n" + "\n".join(found)
    )
    stale = sorted(
        m
        for m in GAME_IMPORTS_LEFT
        if not any(i.module == m and _game_of(i.target) for i in imports())
    )
    assert not stale, f"these import no game any more: take them off GAME_IMPORTS_LEFT: {stale}"


def test_the_game_import_check_sees_one() -> None:
    assert games_imported_by_name(
        [_fake("cuttle_protocol.shells.mdns", "cuttle_net.games.cuttle.rules", ("Rules",))], {}
    )
    assert games_imported_by_name(
        [_fake("cuttle_net.games.unisson.bots", "cuttle_net.games.cuttle")], {}
    )
    assert games_imported_by_name(
        [_fake("cuttle_client.unisson.words", "cuttle_net.games.cuttle.cards")], {}
    )
    assert games_imported_by_name([_fake("cuttle_client.lobby", "cuttle_net.games.unisson")], {})
    assert not games_imported_by_name(
        [_fake("cuttle_client.unisson.words", "cuttle_net.games.unisson.cards")], {}
    )
    assert not games_imported_by_name(
        [_fake("cuttle_protocol.table.seats", "cuttle_net.games.interface")], {}
    )
    assert not games_imported_by_name(
        [_fake("cuttle_client.games", "cuttle_net.games.cuttle.cards")], {}
    )


def worded_classes(modules: dict[str, Path]) -> list[str]:
    """Classes of cuttle_protocol that word themselves (``__str__``): what they carry is
    for the client to say (an exception's message is its own ``args``, not a ``__str__``)."""
    found = []
    for module, path in modules.items():
        if not module.startswith("cuttle_protocol"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(f, ast.FunctionDef) and f.name == "__str__" for f in node.body
            ):
                found.append(f"{module}:{node.lineno} {node.name}.__str__")
    return found


def test_the_protocol_words_no_data_of_its_own() -> None:
    found = worded_classes(MODULES)
    assert not found, "English for the screen in the protocol (word it in the client):\n" + (
        "\n".join(found)
    )


def test_the_worded_class_check_sees_one(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("class A:\n    def __str__(self) -> str:\n        return 'a'\n")
    assert worded_classes({"cuttle_protocol.wire.bad": bad}) == [
        "cuttle_protocol.wire.bad:1 A.__str__"
    ]
