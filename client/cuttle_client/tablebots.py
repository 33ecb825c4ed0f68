"""Bots a host adds to its own table while the table waits for players (the connect screen's
``b``; ``x`` takes the last one back while a seat is still free).

Each bot is a real seat: it joins the host over loopback with a fresh identity key of its
own (in a temporary folder, with its journal) through the join path of ``cuttle join
--bot`` (``open_game_peer``, then ``sit_at_table`` with ``bot_hooks``), as a task beside the
host's own seat in the app's trio run, so that it ends with the host's table. Its name says
that it is a bot ("bot 1 (medium)"); the others see an ordinary seat, which it is.
"""

from __future__ import annotations

import contextlib
import ipaddress
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from cuttle_protocol.play import NetPlan, open_game_peer
from cuttle_protocol.shells import ConnectionEnded, TableTimeouts
from cuttle_protocol.store import load_or_create_identity
from cuttle_protocol.table import Lobby
from cuttle_protocol.wire import format_address

from .cli_table import bot_for, bot_hooks, sit_at_table


@dataclass
class AddedBot:
    """A bot the host added: its seat's name, its level, its key once made."""

    name: str
    level: str
    key: bytes = b""
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)


def dial_back(host: str, port: int) -> str:
    """The address a bot on this machine dials to reach a host listening on ``host``:
    loopback when the host listens on every address."""
    unspecified = ipaddress.ip_address(host.partition("%")[0]).is_unspecified
    return format_address("127.0.0.1" if unspecified else host, port)


class TableBots:
    """The bots at a host's table, while it waits: ``add`` and ``remove`` them (from the UI
    side), at ``level`` (one of ``levels``, the game's bots as the lobby lists them).
    ``changed`` is called whenever what ``hint`` or the table's seats show may change."""

    def __init__(
        self,
        game: str,
        timeouts: TableTimeouts,
        bot_delay: float,
        changed: Callable[[], None],
    ) -> None:
        from .lobby import BOT_ORDER, DEFAULT_BOT

        self.game = game
        self.levels: tuple[str, ...] = BOT_ORDER[game]
        self.level: str = DEFAULT_BOT[game]
        self.bots: list[AddedBot] = []  # in the order added
        self.problem = ""  # why the last bot could not sit, in words ("")
        self._timeouts, self._delay, self._changed = timeouts, bot_delay, changed
        self._nursery: trio.Nursery | None = None
        self._address = ""  # where the host listens, as a bot dials it
        self._free = 0  # seats the table's lobby shows free
        self._seated: set[bytes] = set()  # the keys the table's lobby shows

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The host's table runs in this block; its bots end with it."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            try:
                yield
            finally:
                self._nursery = None
                nursery.cancel_scope.cancel()

    def listening(self, host: str, port: int) -> None:
        """The host listens (`sit_at_table`'s hook): bots may come."""
        self._address = dial_back(host, port)

    def follow(self, lobby: Lobby) -> None:
        """Who sits at the table now (the host's lobby): the seats left for bots."""
        self._free = lobby.settings.seats - len(lobby.players)
        self._seated = {p.identity for p in lobby.players}
        self._changed()

    def _coming(self) -> int:
        """Bots added that the table has not seated yet."""
        return sum(1 for b in self.bots if b.key not in self._seated)

    @property
    def can_add(self) -> bool:
        return self._nursery is not None and bool(self._address) and self._free > self._coming()

    @property
    def can_remove(self) -> bool:
        """A bot goes only while the table waits: once every seat is taken, it plays."""
        return self._nursery is not None and bool(self.bots) and self._free > 0

    def ours(self, identity: bytes) -> bool:
        """Whether the seat with this key is a bot we added (its key was made here)."""
        return any(b.key == identity for b in self.bots)

    def next_level(self) -> None:
        """The next bot added plays at the next level (round the game's list)."""
        at = self.levels.index(self.level) if self.level in self.levels else -1
        self.level = self.levels[(at + 1) % len(self.levels)]
        self._changed()

    def hint(self) -> str:
        """The keys, for the waiting screen ("" once no bot can be added or removed)."""
        if not (self.can_add or self.can_remove):
            return ""
        add = f"b adds one ({self.level}; v: level)" if self.can_add else ""
        remove = "x removes the last" if self.can_remove else ""
        return "Bots: " + ", ".join(w for w in (add, remove) if w)  # (whole at 60 columns)

    # -- in the trio run (the UI calls these through `TrioGuest.run_sync_soon`)

    def add(self) -> None:
        if not self.can_add or self._nursery is None:
            return
        names = {b.name for b in self.bots}
        number = next(n for n in range(1, len(names) + 2) if f"bot {n}" not in names)
        bot = AddedBot(f"bot {number}", self.level)
        self.bots.append(bot)
        self.problem = ""
        self._nursery.start_soon(self._sit, bot)
        self._changed()

    def remove(self) -> None:
        """The last bot added leaves the table (its seat is free again)."""
        if self.can_remove:
            bot = self.bots.pop()
            bot.scope.cancel()
            self._changed()

    async def _sit(self, bot: AddedBot) -> None:
        with bot.scope, tempfile.TemporaryDirectory(prefix="cuttle-bot-") as folder:
            try:
                await self._play(bot, Path(folder))
            except (ConnectionEnded, OSError) as e:
                if bot in self.bots:
                    self.problem = f"{bot.name} could not sit: {getattr(e, 'message', e)}"
            except Exception as e:  # a bug of the bot's seat must not end the host's table
                self.problem = f"{bot.name} stopped: our program failed ({type(e).__name__}: {e})"
            finally:
                if bot in self.bots:
                    self.bots.remove(bot)
                self._changed()

    async def _play(self, bot: AddedBot, folder: Path) -> Any:
        """The bot's seat: `cuttle join --bot`'s path, with its own key and journal in
        ``folder``; it agrees to every next game, and keeps no record (the host does)."""
        key = load_or_create_identity(folder)  # (a new one: the folder is new)
        bot.key = key.public_key().public_bytes_raw()
        name = f"{bot.name} ({bot.level})"
        plan = NetPlan("join", name, address=self._address, config_dir=folder)
        quiet: Callable[[Any], None] = lambda said: None  # noqa: E731
        async with open_game_peer(plan, quiet) as conn:
            return await sit_at_table(
                name,
                conn,
                address=self._address,
                config_dir=folder,
                data_dir=folder,
                timeouts=self._timeouts,
                say=quiet,
                tell=quiet,
                match=True,
                games=None,
                save=False,
                **bot_hooks(bot_for(self.game, bot.level), self._delay),
            )
