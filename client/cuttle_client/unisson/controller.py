"""One seat at a L'Unisson table: the view the screen draws, and where its moves go.

The screen (``UnissonTableScreen``) draws ``view`` (its seat's view, never the full game),
the ``log`` and the ``ending``, and sends moves through ``submit``.  ``PracticeController``
holds the whole game in process and plays every other seat with a bot, each from its own
seat's view.

``NetworkTable`` (``network.py``) subclasses ``UnissonController`` the same way for a
networked table: it keeps ``_view`` as a copy of the session's view of its seat, calls
``_record(seat, move, before, after)`` with the views around each move (the log is written
from them alone), sets ``ending`` once the game is over, and sends the player's moves from
``submit`` after ``check``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cuttle_protocol.store import RecordNotSaved

from cuttle_net.games.unisson import FACES, Game, IllegalMove, Score, match_totals, next_dealer
from cuttle_net.games.unisson.bots import make_bot
from cuttle_net.games.unisson.motions import Drawn, HandOut, Motion, Taken, Turned
from cuttle_net.games.unisson.moves import Kind, Move

from ..chat import Talker
from ..tablehost import TableHost, bot_thinks, save_practice, saved_words
from .words import card, describe, result_words, sequence


@dataclass(frozen=True)
class Entry:
    """One line of the log as the player saw it; ``move`` is None for a note of the table
    ("the stock is empty: last round")."""

    seat: int
    move: Move | None
    words: str
    touched: frozenset[int] = frozenset()  # the cards it moved that the player saw
    free: bool = False  # it answered an effect (a free discard or draw)


@dataclass(frozen=True)
class Ending:
    """The game's end for this player: the result, every score, every hand shown."""

    text: str
    scores: tuple[Score, ...]
    hands: tuple[tuple[int, ...], ...]


class UnissonController(Talker):
    """A seat at the table.  Subclasses set the names, keep ``_view`` and the log, and
    implement ``submit`` and ``rematch``."""

    seat: int
    names: tuple[str, ...]  # each seat's name; ``names[seat]`` is "You"
    players: int
    decks: int
    can_rematch: bool = False
    busy: bool = False  # a move of ours is on its way and not yet confirmed
    label = "practice"  # what table this is, for the screen's title
    game_name = "unisson"  # its game in the registry (``games.GAMES``)
    leave_question = "Leave this table? The game is abandoned."
    farewell = ""  # said in the lobby once the player left mid-game (where the record is)
    banner = ""  # said in the title after the table's name (a lesson's number and name)
    watching = ""  # who watches the table (SPEC 3.15 *Watchers*), for the title
    # A lesson's lines (``learn``): kind ("goal", "rule", "done") and words, for the side panel.
    coach: Sequence[tuple[str, str]] = ()
    # The game-over panel's words: its heading, and its two buttons'.
    over_heading, again_label, back_label = "Game over", "Rematch", "Lobby"

    def __init__(self) -> None:
        self._host: TableHost | None = None
        self._view: Game | None = None
        self.log: list[Entry] = []
        self.ending: Ending | None = None
        self.games: list[list[int]] = []  # each finished game's totals, seat by seat

    @property
    def view(self) -> Game:
        assert self._view is not None, "the controller has not started"
        return self._view

    @property
    def my_turn(self) -> bool:
        """Is a decision of this player's pending (and none of theirs on its way)?"""
        return self.ending is None and not self.busy and self.view.to_act == self.seat

    @property
    def match(self) -> list[int]:
        """Each seat's total over the games finished at this table."""
        return match_totals(self.games) if self.games else [0] * self.players

    def waiting_for(self) -> str:
        """What the player waits for, in words, or ""."""
        v = self.view
        if self.ending is not None or v.to_act in (-1, self.seat):
            return ""
        return f"{self.names[v.to_act]} is thinking…"

    def trouble(self) -> str:
        """What is wrong with the connection, in words, even on the player's turn ("")."""
        return ""

    @property
    def away(self) -> dict[int, int]:
        """The seats whose connection is lost (a networked table's host sees them), with
        the seconds each has left to come back."""
        return {}

    def cause(self) -> str:
        """What started the effect now waiting ("Bob melded J♠–A♠"), from the log."""
        for e in reversed(self.log):
            m = e.move
            if m is None or e.free:
                continue
            who = self.names[e.seat]
            verb = {Kind.TAKE: "took", Kind.DISCARD: "discarded", Kind.MELD: "melded"}.get(m.kind)
            if verb is None:
                return ""
            what = sequence(m.faces) if m.kind is Kind.MELD else card(m.faces[0])
            return f"{who} {verb} {what}"
        return ""

    def attach(self, host: TableHost) -> None:
        """Connect the screen, start the game, and have it drawn."""
        self._host = host
        self.start()
        self._changed()

    def start(self) -> None:
        """Begin the game once a screen is attached."""

    def close(self) -> None:
        self._host = None

    async def aclose(self) -> None:
        self.close()

    def check(self, move: Move) -> None:
        """Raise ``IllegalMove`` unless this player may make ``move`` now (on the view)."""
        if self.ending is not None:
            raise IllegalMove(f"the game is over: {self.ending.text}")
        v = self.view
        if v.to_act != self.seat:
            raise IllegalMove(f"it is not your decision: {self.waiting_for() or 'please wait'}")
        v.check(move)

    def submit(self, move: Move) -> None:
        raise NotImplementedError

    def rematch(self) -> None:
        raise NotImplementedError

    def match_note(self) -> str:
        """Between games, what the match waits for or why it ended, in words ("")."""
        return ""

    def _changed(self) -> None:
        if self._host is not None:
            self._host.table_changed()

    def _record(self, seat: int, move: Move, before: Game, after: Game) -> None:
        """Log ``move`` by ``seat`` from this player's views before and after it."""
        self.log += log_entries(seat, move, before, after, self.names, self.seat)


def log_entries(
    seat: int, move: Move, before: Game, after: Game, names: Sequence[str], me: int
) -> list[Entry]:
    """``move`` by ``seat`` in the log of the player at ``me`` (-1: an onlooker), from that
    player's views before and after it: the cards it showed them (their own draw, a card
    turned into the range) are read off the views, so the log holds nothing the player
    could not see; then a note if it began the last round."""
    motions = before.motions(move)  # what the player cannot see is UNKNOWN
    hand = before.hand(me) if me >= 0 else []
    table = before.range_cards()
    for x in motions:
        if isinstance(x, Taken):
            table.remove(x.face)
            if x.seat == me:
                hand.append(x.face)
        elif isinstance(x, HandOut):
            if x.seat == me:
                hand.remove(x.face)
            if x.to == "range":
                table.append(x.face)
    drawn = _added(hand, after.hand(me)) if me >= 0 else []
    turned = _added(table, after.range_cards())
    seen = []
    for x in motions:
        if isinstance(x, Drawn) and x.seat == me and drawn:
            x = x._replace(face=drawn.pop(0))
        elif isinstance(x, Turned) and turned:
            x = x._replace(face=turned.pop(0))
        seen.append(x)
    entries = [entry(seat, move, seen, names, me, bool(before.effects))]
    last = after.last_player
    if before.last_player is None and last is not None and not after.is_over:
        who = "You are" if last == me else f"{names[last]} is"
        note = f"The stock is empty: last round. {who} the last player."
        entries.append(Entry(last, None, note))
    return entries


def _added(before: list[int], after: list[int]) -> list[int]:
    """The faces in ``after`` beyond those of ``before`` (multisets)."""
    rest = list(after)
    for f in before:
        if f in rest:
            rest.remove(f)
    return rest


def entry(
    seat: int, move: Move, motions: Sequence[Motion], names: Sequence[str], me: int, effect: bool
) -> Entry:
    """The log line of ``move`` for the player at ``me``: cards drawn by others unnamed."""
    seen = [x._replace(face=-1) if isinstance(x, Drawn) and x.seat != me else x for x in motions]
    touched = set(move.faces)
    for x in seen:
        if isinstance(x, Turned | Drawn) and x.face >= 0:
            touched.add(x.face)
    words = describe(move, seat, seen, names, me, effect)
    return Entry(seat, move, words, frozenset(touched), effect)


class PracticeController(UnissonController):
    """A game against bots, in process: the controller holds the whole game.

    Each bot plays from its own seat's view after ``bot_delay`` seconds, so a person can
    follow (a search bot thinks in a worker thread: ``bot_thinks``); the deal passes left
    at each new game and the totals add up over the match.
    """

    can_rematch = True
    # ctrl+q during the game asks this, then ``quit_game`` (tablehost.Practising).
    quit_question = "Quit? This practice game is abandoned."

    def __init__(
        self,
        bot: str = "greedy",
        players: int = 4,
        decks: int | None = None,
        seed: int | None = None,
        *,
        seat: int = 0,
        bot_delay: float = 0.6,
        records: Path | None = None,
        player: str = "You",
    ) -> None:
        super().__init__()
        self.records = records  # where each finished game's record is saved (SPEC 5.5)
        self.player = player  # the person's name, for the record (the table says "You")
        self.bot_name = bot
        self.players = players
        self.decks = decks if decks is not None else (2 if players >= 5 else 1)
        Game.empty(players, self.decks)  # refuses a table the rules do not allow
        self._bots = [make_bot(bot) for _ in range(players)]
        self.seat = seat
        name = bot.capitalize()
        self.names = tuple("You" if s == seat else f"{name} {s}" for s in range(players))
        self.bot_delay = bot_delay
        self.seed = seed if seed is not None else random.randrange(2**32)
        self.dealer = random.Random(self.seed).randrange(players)  # the first dealer: by lot
        self._deals = 0  # numbers the deals, so a bot timer from an old game does nothing
        self._deal()

    def _deal(self) -> None:
        self.order = list(range(FACES * self.decks))  # the deal, kept for the game's record
        random.Random(self.seed).shuffle(self.order)
        self.game = Game.deal(self.players, self.decks, self.dealer, order=self.order)
        self.moves: list[tuple[int | None, str]] = []
        self.saved: Path | RecordNotSaved | None = None
        self._rng = random.Random(self.seed)
        self._view = self.game.view(self.seat)
        self.log = []
        self.ending = None
        self._deals += 1

    def start(self) -> None:
        self._advance()

    def close(self) -> None:
        self._deals += 1  # a bot's thought or timer still under way plays nothing now
        super().close()

    def submit(self, move: Move) -> None:
        self.check(move)
        self._play(self.seat, move)
        self._advance()

    def rematch(self) -> None:
        """A new deal: the deal passes left."""
        self.seed = (self.seed + 1) % 2**32
        self.dealer = next_dealer(self.dealer, self.players)
        self._deal()
        self._advance()

    def _play(self, seat: int, move: Move) -> None:
        before = self.view
        self.game.apply(move, by=seat)
        self.moves.append((seat, str(move)))
        self._view = self.game.view(self.seat)
        self._record(seat, move, before, self.view)

    def _advance(self) -> None:
        """After a move: end the game, or let the next bot think."""
        g = self.game
        if g.is_over:
            self._end()
            return
        self._changed()
        if g.to_act != self.seat:
            deal = self._deals
            # An answer to an effect (a free discard or draw) shows faster than an action.
            delay = self.bot_delay / 3 if g.effects else self.bot_delay
            if delay <= 0 or self._host is None:
                self._bot_move(deal)
            else:
                self._host.schedule(delay, lambda: self._bot_move(deal))

    def _bot_move(self, deal: int) -> None:
        g = self.game
        if deal != self._deals or g.is_over or g.to_act == self.seat:
            return  # a timer from an earlier deal
        seat = g.to_act
        host = self._host if self.bot_delay > 0 else None  # no pause to follow: no thread
        bot = self._bots[seat]
        bot_thinks(host, bot, g.view(seat), self._rng, lambda m: self._bot_moves(deal, seat, m))

    def _bot_moves(self, deal: int, seat: int, move: Move) -> None:
        g = self.game
        if deal != self._deals or g.is_over or g.to_act != seat:
            return  # a new deal, or the game moved on, while the bot thought
        self._play(seat, move)
        self._advance()

    def _end(self) -> None:
        g = self.game
        scores = tuple(g.scores())
        if self.ending is None:
            self.games.append([s.total for s in scores])
            if self.records is not None:
                rules = "one-deck" if self.decks == 1 else "two-decks"
                self.saved = save_practice(
                    self.records,
                    "unisson",
                    rules,
                    self.dealer,
                    self.order,
                    self.moves,
                    self.names,
                    self.bot_name,
                    (self.seat, self.player),
                )
        hands = tuple(tuple(g.hand(s)) for s in range(self.players))
        words = result_words(g, self.names, self.seat) + saved_words(self.saved)
        self.ending = Ending(words, scores, hands)
        self._changed()

    def quit_game(self) -> None:
        """The person quits mid-game: abandoned (nothing to save before an end)."""


def practice(
    bot: str, token: str, players: int, seed: int | None, **how: Any
) -> PracticeController:
    """A practice game of ``players`` under the rules ``token`` (its decks; the registry's
    ``GameUI.practice``)."""
    return PracticeController(bot, players, _DECKS.get(token), seed, **how)


_DECKS = {"one-deck": 1, "two-decks": 2}  # a rules token's decks (else the players' default)
