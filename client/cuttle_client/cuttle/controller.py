"""The seam between the table screen and whatever runs the game.

The table screen draws from ``TableController.view`` (one player's view, never the full
game) and sends intended moves through ``submit``; it holds no game state of its own.
A controller tells the screen that something changed through the ``TableHost`` it is
attached to.

Two implementations are planned:

- ``PracticeController`` (here): the full game and a bot, in process.
- A network controller (to come, wired to the session that joins engine, deck and wire).
  It should subclass ``TableController`` and:

  * keep ``self._view`` as its seat's view, updated with
    ``view.apply(move, reveal=cards)`` from what the session reports, and append a
    ``LogEntry`` per move (``self._record``) before calling ``self._changed()``;
  * run the session as a task of the app's trio run, a *guest* of Textual's asyncio loop
    (``cuttle_client.trio_guest``): trio's tasks then run on the UI thread, so
    they may call ``self._changed()`` / ``self._end(...)`` directly;
  * in ``submit``, call ``self.check(move)`` (raises ``IllegalMove`` with the rule's
    words), set ``self.busy`` until the session confirms the move (the view changes only
    then: a draw needs the deck protocol to show the card), and hand the move to trio with
    ``guest.run_sync_soon(send_channel.send_nowait, move)`` — a trio memory channel read
    by the session's writer task;
  * report a dropped connection or a cheating peer with ``self._end(None, "why")``;
  * ``close()`` cancels the trio run (``guest.cancel()``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cuttle_protocol.store import RecordNotSaved

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.cards import ALL_CARDS, ALL_CARDS_WITH_JOKER, card_display
from cuttle_net.games.cuttle.describe import describe
from cuttle_net.games.cuttle.engine import (
    CHANCE,
    COUNTER,
    DISCARD,
    MAIN,
    Game,
    IllegalMove,
    Outcome,
)
from cuttle_net.games.cuttle.explain import why_illegal
from cuttle_net.games.cuttle.moves import CONCEDE, NONE, Kind, Move
from cuttle_net.games.cuttle.rules import Rules

from ..chat import Talker
from ..tablehost import TableHost, bot_thinks, save_practice, saved_words

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class LogEntry:
    """One move of the game as the player saw it."""

    seat: int  # who made it: 0, 1, or CHANCE
    move: Move
    words: str  # the move in words, from the player's point of view
    touched: frozenset[int] = frozenset()  # the cards it played, took, moved or drew


def log_entry(seat: int, move: Move, before: Game, after: Game, names, me: int | None) -> LogEntry:
    """``move`` in words for the player at ``me``, naming the cards it brought to their hand
    from the draw pile (``before`` and ``after`` are that player's views)."""
    words = describe(move, before, by=seat, names=names, you=me)
    touched = {c for c in (move.card, move.target) if c != NONE}
    if me is not None:
        drawn = _drawn(before, after, me)
        if drawn:
            shown = " and ".join(card_display(c) for c in drawn)
            if move.kind == Kind.DRAW and seat == me:
                words = f"you draw {shown}"
            else:
                words += f"; you draw {shown}"
            touched.update(drawn)
    return LogEntry(seat, move, words, frozenset(touched))


def waiting_entry(view: Game, names: Sequence[str], me: int) -> LogEntry | None:
    """The one-off a position starts on, waiting for an answer (a lesson's ``counter:AC``),
    as the log entry of its play: the game's first screen then says what happened, where
    an empty log would say "No move yet" (issue 26). None if nothing waits."""
    if view.phase not in (COUNTER, DISCARD) or not view.chain:
        return None
    move = Move(Kind.ONEOFF, view.chain[0], view.target)
    words = describe(move, view, by=view.player, names=names, you=me)
    return LogEntry(view.player, move, words, frozenset({view.chain[0]}))


def _drawn(before: Game, after: Game, me: int) -> list[int]:
    """The cards that came to ``me``'s hand from the draw pile in this step."""
    if len(after.deck) >= len(before.deck):
        return []
    seen = set(before.hands[me]) | set(before.scrap) | set(before.revealed)
    for side in (0, 1):
        seen.update(before.points[side], before.perms[side])
    for stack in before.jacks.values():
        seen.update(stack)
    return [c for c in after.hands[me] if c not in seen]


@dataclass(frozen=True)
class MatchScore:
    """Games won by each player on this table, and drawn (a rematch keeps counting)."""

    mine: int = 0
    theirs: int = 0
    drawn: int = 0

    def after(self, outcome: Outcome, me: int) -> MatchScore:
        return self.won_by(outcome.winner, me)

    def won_by(self, winner: int | None, me: int) -> MatchScore:
        """After a game won by seat ``winner`` (None: drawn), ``me`` being our seat."""
        if winner is None:
            return MatchScore(self.mine, self.theirs, self.drawn + 1)
        if winner == me:
            return MatchScore(self.mine + 1, self.theirs, self.drawn)
        return MatchScore(self.mine, self.theirs + 1, self.drawn)

    def text(self, other: str) -> str:
        drawn = f", {self.drawn} drawn" if self.drawn else ""
        return f"You {self.mine}–{self.theirs} {other}{drawn}"


@dataclass(frozen=True)
class Ending:
    """How the game ended, for this player; ``outcome`` is None if it stopped unfinished."""

    outcome: Outcome | None
    text: str


class TableController(Talker):
    """One player's seat at a table: the view to draw, and where moves go."""

    game_name = "cuttle"  # its game in the registry (``games.GAMES``)

    seat: int
    names: tuple[str, str]  # how to call each seat; ``names[seat]`` is "You"
    rules: Rules
    can_rematch: bool = False
    busy: bool = False  # a move of ours is on its way and not yet confirmed
    dealing: bool = False  # a new game is being agreed on or dealt: the view is the last game's
    refused: str = ""  # the last move the game refused after it left the table, and why
    banner: str = ""  # shown beside the title all game long (e.g. the code to compare)
    watching: str = ""  # who watches the table (SPEC 3.15 *Watchers*), for the title
    # A lesson's lines (``learn``): kind ("goal", "rule", "done") and words, for the side panel.
    coach: Sequence[tuple[str, str]] = ()
    # The game-over panel's words: its heading, and its two buttons'.
    over_heading, again_label, back_label = "Game over", "Rematch", "Lobby"

    def __init__(self) -> None:
        self._host: TableHost | None = None
        self._view: Game | None = None
        self.log: list[LogEntry] = []
        self.ending: Ending | None = None
        self.score = MatchScore()

    @property
    def view(self) -> Game:
        """The player's current view of the game."""
        assert self._view is not None, "the controller has not started"
        return self._view

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def my_turn(self) -> bool:
        """Is a decision of this player's pending (and none of theirs on its way)?"""
        return self.ending is None and not self.busy and self.view.to_act == self.seat

    def waiting_for(self) -> str | None:
        """What the player waits for, in words ("the bot is thinking"), or None."""
        return None

    def trouble(self) -> str:
        """What is wrong with the connection, in words, even on the player's turn ("")."""
        return ""

    @property
    def rematch_offer(self) -> str:
        """The other player asked for another game (shown on the game-over screen)."""
        return ""

    def their_hand(self) -> tuple[list[int], int]:
        """The opponent's hand as far as this player may know it: (cards, unseen count)."""
        v = self.view
        return list(v.hands[self.opponent]), v.hidden[self.opponent]

    def attach(self, host: TableHost) -> None:
        """Connect the UI, start (or resume) the game, and have it drawn."""
        self._host = host
        self.start()
        self._changed()

    def start(self) -> None:
        """Begin the game once a host is attached."""

    def close(self) -> None:
        """The table is going away: stop any background work."""
        self._host = None

    async def aclose(self) -> None:
        """``close``, then wait for background work to stop (the app may be exiting)."""
        self.close()

    def submit(self, move: Move) -> None:
        """Play ``move`` for this player; raise ``IllegalMove`` saying why it is not allowed."""
        raise NotImplementedError

    def concede(self) -> None:
        self.submit(CONCEDE)

    def rematch(self) -> None:
        """A new game with the dealer alternating (only if ``can_rematch``)."""
        raise NotImplementedError

    @property
    def concede_question(self) -> str:
        """What the table asks before ``concede``."""
        return f"Concede this game? {self.names[self.opponent]} wins."

    def check(self, move: Move) -> None:
        """Raise ``IllegalMove`` unless this player may make ``move`` now (on the view alone)."""
        if self.ending is not None:
            raise IllegalMove(f"the game is over: {self.ending.text}")
        if move.kind == Kind.CONCEDE:
            return
        v = self.view
        if v.to_act != self.seat:
            raise IllegalMove(f"it is not your decision: {self.waiting_for() or 'please wait'}")
        if move.kind == Kind.OFFER_DRAW:
            if v.phase != MAIN or v.offered:
                raise IllegalMove("a draw may be offered once a turn, on your own turn")
            return
        if move not in v.legal_moves():
            raise IllegalMove(why_illegal(v, move))

    # -- for subclasses

    def _record(self, seat: int, move: Move, before: Game) -> None:
        """Log ``move`` (call once ``self._view`` shows the table after it)."""
        self.log.append(log_entry(seat, move, before, self.view, self.names, self.seat))

    def _changed(self) -> None:
        if self._host is not None:
            self._host.table_changed()

    def _end(self, outcome: Outcome | None, reason: str = "") -> None:
        """The game is over (``outcome``), or stopped unfinished for ``reason``."""
        text = reason or ending_text(outcome, self.view, self.seat, self.names)
        if outcome is not None and self.ending is None:
            self.score = self.score.after(outcome, self.seat)
        self.ending = Ending(outcome, text)
        self._changed()


def ending_text(
    outcome: Outcome | None, view: Game, seat: int | None, names: tuple[str, str]
) -> str:
    """The result in words, for the player at ``seat`` (``view`` is the final table), or
    for an onlooker (``seat`` None: a replay), every player by name."""
    if outcome is None:
        return "the game stopped without a result"
    if outcome.winner is None:
        if outcome.reason == "passes":
            return "Drawn: three passes in a row with an empty draw pile"
        return "Drawn by agreement"
    w = outcome.winner
    wins = "You win" if w == seat else f"{names[w]} wins"
    if outcome.reason == "goal":
        goal = view.goal(w)
        how = f"{view.score(w)} points, goal {goal}" if goal else "four kings"
        return f"{wins}: {how}"
    loser = "you" if seat == 1 - w else names[1 - w]
    return f"{wins}: {loser} conceded"


class PracticeController(TableController):
    """A game against a bot, in process: the controller holds the full game.

    The bot plays from its own view after ``bot_delay`` seconds, so a person can follow; a
    search bot then thinks in a worker thread (``bot_thinks``) so the table stays live
    and says that it is thinking;
    random-fours discards are picked here (chance) from the seeded generator.
    """

    can_rematch = True
    # ctrl+q during the game asks this, then ``quit_game`` (tablehost.Practising).
    quit_question = "Quit? This practice game is conceded, and its record saved."

    def __init__(
        self,
        bot: str = "greedy",
        rules: Rules | None = None,
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
        self.saved: Path | RecordNotSaved | None = None
        self.bot_name = bot
        self._bot = make_bot(bot)
        self.rules = rules or Rules()
        self.bot_delay = bot_delay
        self._deals = 0  # numbers the deals, so a bot timer from an old game does nothing
        self._deal(seed if seed is not None else random.randrange(2**32), seat)

    def _deal(self, seed: int, seat: int) -> None:
        self.seed, self.seat = seed, seat
        bot = f"{self.bot_name.capitalize()} bot"
        self.names = ("You", bot) if seat == 0 else (bot, "You")
        self._rng = random.Random(seed)
        # The deal Game.deal(seed=...) makes, kept for the game's record.
        self.order = list(ALL_CARDS_WITH_JOKER if self.rules.joker else ALL_CARDS)
        random.Random(seed).shuffle(self.order)
        self.game = Game.deal(self.rules, order=self.order)
        self.moves: list[tuple[int | None, str]] = []
        self.saved = None
        self._view = self.game.view(seat)
        self.log = []
        self.ending = None
        self._deals += 1

    def waiting_for(self) -> str | None:
        if self.ending is None and self.view.to_act == self.opponent:
            return f"{self.names[self.opponent]} is thinking…"
        return None

    def start(self) -> None:
        self._advance()

    def close(self) -> None:
        self._deals += 1  # the bot's thought or timer still under way plays nothing now
        super().close()

    def submit(self, move: Move) -> None:
        self.check(move)
        self._play(self.seat, move)
        self._advance()

    def rematch(self) -> None:
        """A fresh deal with the dealer alternating: the seats swap (seat 1 deals)."""
        self._deal((self.seed + 1) % 2**32, self.opponent)
        self._advance()

    def _play(self, seat: int, move: Move) -> None:
        before = self._view
        observe = getattr(self._bot, "observe", None)
        if observe is not None:  # a bot that reads its opponent's play sees every move
            observe(self.game.view(self.opponent), move)
        self.game.apply(move, by=None if seat == CHANCE else seat)
        self.moves.append((None if seat == CHANCE else seat, str(move)))
        self._view = self.game.view(self.seat)
        assert before is not None
        self._record(seat, move, before)

    def _advance(self) -> None:
        """After a move: end the game, make the chance pick, or let the bot think."""
        g = self.game
        if g.outcome is not None:
            self._save()
            text = ending_text(g.outcome, self.view, self.seat, self.names)
            self._end(g.outcome, text + saved_words(self.saved))
            return
        if g.to_act == CHANCE:
            self._play(CHANCE, self._rng.choice(g.legal_moves()))
            self._advance()
            return
        self._changed()
        if g.to_act == self.opponent:
            deal = self._deals
            if self.bot_delay <= 0 or self._host is None:
                self._bot_move(deal)
            else:
                self._host.schedule(self.bot_delay, lambda: self._bot_move(deal))

    def _save(self) -> None:
        """Keep the finished game as a practice record (it proves only what SPEC 5.5 says)."""
        if self.records is not None and self.saved is None:
            names, bot = self.names, self.bot_name
            self.saved = save_practice(
                self.records,
                "cuttle",
                self.rules.name,
                1,
                self.order,
                self.moves,
                names,
                bot,
                (self.seat, self.player),
            )

    def their_hand(self) -> tuple[list[int], int]:
        """A practice game holds the whole deal: the bot's hand, every card."""
        return list(self.game.hands[self.opponent]), 0

    def _bot_move(self, deal: int) -> None:
        g = self.game
        if deal != self._deals or g.outcome is not None or g.to_act != self.opponent:
            return  # a timer from an earlier deal, or the game moved on (a concession)
        host = self._host if self.bot_delay > 0 else None  # no pause to follow: no thread
        view = g.view(self.opponent)
        bot_thinks(host, self._bot, view, self._rng, lambda move: self._bot_moves(deal, move))

    def _bot_moves(self, deal: int, move: Move) -> None:
        g = self.game
        if deal != self._deals or g.outcome is not None or g.to_act != self.opponent:
            return  # the player conceded or asked for a new deal meanwhile
        self._play(self.opponent, move)
        self._advance()

    def quit_game(self) -> None:
        """The person quits mid-game: conceded, so that its record is saved."""
        self.concede()


def practice(
    bot: str, token: str, players: int, seed: int | None, **how: Any
) -> PracticeController:
    """A practice game under the rules ``token`` (the registry's ``GameUI.practice``: Cuttle
    is for two, so ``players`` changes nothing)."""
    return PracticeController(bot, Rules.parse(token) if token else None, seed, **how)
