"""Running the client under Textual's test harness from plain (sync) pytest tests.

pytest-asyncio is not installed and pytest-trio's trio_mode stays off, so each UI test
runs its async body with ``asyncio.run``: the same loop Textual uses in real life.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
from collections.abc import Awaitable, Callable, Iterator

import textual.app
from cuttle_client.app import CuttleApp, Practice, Settings, make_app
from rich.console import Console
from textual.app import App
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import OptionList

SIZE = (80, 24)


def practice_app(
    seed: int = 1, rules: str = "classic", bot: str = "greedy", ascii: bool = False
) -> CuttleApp:
    """A table against a bot that answers at once, on a fixed deal."""
    return make_app(Settings(ascii=ascii, bot_delay=0), Practice(bot, rules, seed))


def run(app: App, body: Callable[[Pilot], Awaitable[None]], size: tuple[int, int] = SIZE) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await body(pilot)

    with _quick_keys(), _unpainted():
        asyncio.run(main())
    # Everything the app ran on trio (network seats, bots a test started there) unwound as
    # it closed: a run still going when its loop stops breaks every later test in the
    # process ("Attempted to call run() from inside a run()").
    guest = getattr(app, "trio", None)
    assert guest is None or not guest.started or guest.done, "trio outlived the app"


async def _yield_once(min_sleep: float = 0, max_sleep: float = 1) -> None:
    await asyncio.sleep(0)


@contextlib.contextmanager
def _quick_keys() -> Iterator[None]:
    """Pilot waits for the process to look idle (tens of ms) after each key; whole games
    press hundreds of keys.  Ordering does not need it: ``keys`` waits, after each key, for
    the messages it set going (``settle``)."""
    saved = textual.app.wait_for_idle
    textual.app.wait_for_idle = _yield_once
    try:
        yield
    finally:
        textual.app.wait_for_idle = saved


@contextlib.contextmanager
def _unpainted() -> Iterator[None]:
    """Headless, the screen's updates are rendered and then thrown away (``App._display``
    writes nothing without a terminal): a fifth to a third of a UI test's CPU.  The tests
    read the screen by ``screen_text``, a full render of the same widgets, so a widget that
    cannot render still fails there."""
    saved = Screen._compositor_refresh

    def refresh(screen: Screen) -> None:
        app = screen.app
        if screen is not app.screen or app.is_inline:
            saved(screen)  # (a screen below marks the top one dirty: kept)
            return
        screen._compositor._dirty_regions.clear()  # what the render would have cleared
        screen._dirty_widgets.clear()
        app._update_mouse_over(screen)

    Screen._compositor_refresh = refresh  # type: ignore[method-assign]
    try:
        yield
    finally:
        Screen._compositor_refresh = saved  # type: ignore[method-assign]


def screen_text(app: App) -> str:
    """The screen as plain text, the way a person reads it."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), record=True, legacy_windows=False
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text()


async def keys(pilot: Pilot, *names: str) -> None:
    """Press keys one at a time, each once the app has handled what the one before caused.

    ``pilot.press(a, b)`` sends ``b`` right after ``a`` without waiting, and a key's effect
    takes several hops: the focus it moves (``Widget.focus`` is a ``call_later``), its
    bubbling up to the screen's bindings, the messages it posts (``Select.Changed``).  On a
    loaded machine ``b`` could reach the widget that had the focus before ``a`` moved it.
    What a key starts on the trio side (a network message) is not waited for: ``until``."""
    for name in names:
        await pilot.press(name)
        await settle(pilot)


async def settle(pilot: Pilot, rounds: int = 50) -> None:
    """Let the app run until no message pump has a message queued, or a ``call_next``
    callback waiting: what the last key or message set going has been done.
    Gives up quietly after ``rounds`` (a screen may wait on another): ``until`` checks."""
    for _ in range(rounds):
        await pilot.pause()
        if not pilot.app.is_running:
            return  # the key quit
        pumps = [pilot.app, *pilot.app.screen.walk_children(with_self=True)]
        if not any(_busy(p) for p in pumps):
            return


def _busy(pump: MessagePump) -> bool:
    # (a handler still running is waited for by ``pause``: it drains every queue)
    return bool(pump.message_queue_size or pump._next_callbacks or pump._pending_message)


async def until(pilot: Pilot, condition: Callable[[], bool], seconds: float = 60) -> None:
    """Let the app run until ``condition()`` holds: what a screen draws once its controller
    has started (through trio) can come a few frames after the key that opened it, more so
    on a loaded machine.  ``seconds`` only bounds a failure: generous unless the time is
    what the test is about."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not condition():
        waited = loop.time() - start
        if waited > seconds:
            raise AssertionError(
                f"still not true after {seconds} s; the screen shows:\n{screen_text(pilot.app)}"
            )
        # A long wait (a game the bots play on) is looked at less often: a condition that
        # reads the screen draws all of it each time.
        await pilot.pause(0.02 if waited < 1 else 0.1)


async def choose_any_option(pilot: Pilot, table: Screen, rng: random.Random) -> None:
    """Pick one of the enabled options under the hand by arrow keys and Enter (once the
    screen shows them: the turn may come a frame before they are drawn, under load)."""
    options = table.query_one("#actions", OptionList)

    def enabled() -> list[int]:
        count = options.option_count
        return [i for i in range(count) if not options.get_option_at_index(i).disabled]

    controller = table.controller  # type: ignore[attr-defined]
    await until(pilot, lambda: bool(enabled()) or not controller.my_turn)
    choices = enabled()
    if not choices:  # the turn went (the game ended meanwhile): the caller looks again
        return
    await pick_option(pilot, choices, rng.choice(choices))


async def pick_option(pilot: Pilot, enabled: list[int], target: int) -> None:
    """Highlight option ``target`` of the focused list and press Enter: Home (the first
    enabled option), then Down over the enabled ones. (Up pressed once per option was as
    sure, and cost a settled key press each: most of a whole game's time.)"""
    await keys(pilot, "home", *(["down"] * enabled.index(target)), "enter")


async def choose_like(pilot: Pilot, table: Screen, choose: Callable[[object], object]) -> None:
    """Play the move ``choose(view)`` picks (a bot's) by keys through the options: a game
    of greedy moves is a few moves long, of random ones some fifty, each a dozen keys.
    The screen draws the turn's options a few frames after the controller has the turn:
    waited for."""
    c = table.controller  # type: ignore[attr-defined]
    move = choose(c.view)
    held = lambda: any(_holds(ch, move) for ch in _level(table))  # noqa: E731
    await until(pilot, held, 30)
    while True:
        level = _level(table)
        index = next(i for i, ch in enumerate(level) if _holds(ch, move))
        await pick_option(pilot, [i for i, ch in enumerate(level) if ch.enabled], index)
        if level[index].move is not None:
            return


def _level(table: Screen) -> list:
    """The options the table screen shows now (both tables keep the open branch privately:
    the Cuttle table a path into its tree, L'Unisson's a stack of levels)."""
    if hasattr(table, "_level"):
        return list(table._level())
    return list(table._stack[-1][1]) if table._stack else []  # type: ignore[attr-defined]


def _holds(choice: object, move: object) -> bool:
    return choice.move == move or any(_holds(ch, move) for ch in choice.children)  # type: ignore[attr-defined]


async def seated(pilot: Pilot) -> None:
    """Until a network table's screen is up, the table's code confirmed if it was asked."""
    from cuttle_client.cuttle.table import TableScreen
    from cuttle_client.modals import ConfirmScreen

    app = pilot.app
    asked = lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#no")  # noqa: E731
    await until(pilot, lambda: isinstance(app.screen, TableScreen) or asked())
    if asked():
        await keys(pilot, "y")
    await until(pilot, lambda: isinstance(pilot.app.screen, TableScreen))
