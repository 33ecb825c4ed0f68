"""Test-wide settings."""

import gc
import os
import signal
import tempfile

# Tests never send to the real network: the client's lobby must not browse the LAN.
os.environ["CUTTLE_NO_LAN"] = "1"

# Records of practice and network games never land in the user's own data directory, nor
# keys and settings in its config directory: each test process (one per xdist worker, and
# per suite when two run at once) has its own.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="cuttle-tests-data-")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="cuttle-tests-config-")

# Under `nohup` (or any parent that ignores hang-ups) the processes the tests start would
# inherit SIGHUP ignored, and the tests of what a hang-up does would fail. A handler, unlike
# an ignored signal, is not inherited across exec: the children get the default action,
# while this process still lets a hang-up pass.
if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, lambda signum, frame: None)

# The in-memory network for the trio shells' timing tests (tests/memnet.py).
from tests.memnet import memory_net  # noqa: F401
from tests.proofmemo import install as _remember_shuffle_proofs

# A shuffle argument that passed is not checked again in this process (tests/proofmemo.py).
_remember_shuffle_proofs()


def pytest_collection_modifyitems(items: list) -> None:
    """The modules that hold a slow test (whole games over sockets or processes, marked
    `slow`) run first, each module whole and in its order: under xdist a long test that
    starts last keeps one worker busy while the others have nothing left to do."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)  # stable: the rest keeps its order


def pytest_collection_finish(session: object) -> None:
    """What collecting loaded (Textual, hypothesis, the packages, every test module) lives to
    the end of the run: frozen, the garbage collector's full passes stop walking it again
    (two fifths of their time, about 5% of a client test's CPU)."""
    gc.collect()
    gc.freeze()
