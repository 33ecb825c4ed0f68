"""The L'Unisson table's widgets; each draws from a seat's view when ``show`` is called.

At 80×24 with six players: the players (one line each), the range and the stock, whose
turn and the last-round marker, your hand, the last move and the question, then the
choices beside the move log.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from cuttle_net.games.unisson import Game, face_display, parse_move
from cuttle_net.games.unisson.cards import SUIT_OF
from cuttle_net.records.positions import Positions
from cuttle_net.session import CONCEDE

from ..cardtext import ascii_text, back, styled
from ..peertext import plain
from .controller import Ending, Entry, log_entries
from .words import result_words, sequence, turn_words

RED_SUITS = (1, 2)  # diamonds, hearts
NAME_WIDTH = 11


def card(f: int, ascii: bool, touched: bool = False) -> Text:
    """``10♥`` (``TH`` in ASCII), styled as every card of the table (``cardtext``)."""
    return styled(face_display(f, ascii), SUIT_OF[f] in RED_SUITS, touched)


def cards(fs: Sequence[int], ascii: bool, touched: Collection[int] = ()) -> Text:
    return Text(" ").join(card(f, ascii, f in touched) for f in fs)


class Players(Static):
    """One line a seat, in seat order: who decides now (▶), the name, the hand's size (the
    hand itself once shown), dealer and last player, a seat whose connection is lost (and
    the seconds it has left to come back), and the sequences, numbered; after the name,
    the seat's match total once a game of the match is over (here every seat's stays
    readable at 80 columns: the title cut long names)."""

    def show(
        self,
        view: Game,
        names: Sequence[str],
        me: int,
        ascii: bool,
        touched: Collection[int] = (),
        ending: Ending | None = None,
        away: Mapping[int, int] | None = None,
        hands: Sequence[Sequence[int]] | None = None,
        match: Sequence[int] | None = None,
    ) -> None:
        """``hands``: every hand, face up (a replay with every card known); the ending's
        are shown once the game is over. ``match``: each seat's total over the games
        finished at this table (None before the first is over)."""
        lines = []
        acting = view.to_act
        if ending is not None and ending.hands:
            hands = ending.hands
        for s in range(view.players):
            line = Text(">" if ascii and s == acting else "▶" if s == acting else " ")
            name = names[s][:NAME_WIDTH].ljust(NAME_WIDTH)
            line.append_text(plain(f" {name} ", style="bold" if s == me else ""))
            if match is not None:  # a column of its own, hands shown or not
                line.append(" match", style="dim")
                line.append(f"{match[s]:>4}  ", style="bold" if s == me else "")
            if hands is not None:
                hand = hands[s]
                line.append_text(cards(hand, ascii) if hand else Text("empty", style="dim"))
                line.append("  ")
            else:
                n = view.hand_size(s)
                line.append(f"{n:>2} card{'s' if n != 1 else ' '}")
                line.append(" D" if s == view.dealer else "  ", style="dim")
                line.append(" L" if s == view.last_player else "  ", style="bold reverse")
                line.append(" ")
                if away and s in away:  # before the sequences: a long line is cut there
                    line.append(f" lost {away[s]:>2} s ", style="bold reverse")
            seqs = view.sequences(s)
            for i, seq in enumerate(seqs, 1):
                seen = any(f in touched for f in seq)
                line.append(f" {i}:", style="dim")
                line.append(sequence(seq, ascii), style="bold reverse" if seen else "bold")
            if not seqs:
                line.append(" no sequence", style="dim")
            lines.append(line)
        self.update(Text("\n").join(lines))


class RangeLine(Static):
    """The range, sorted, and the stock's size."""

    def show(self, view: Game, ascii: bool, touched: Collection[int] = ()) -> None:
        t = Text("Range ", style="bold")
        faces = view.range_cards()
        t.append_text(cards(faces, ascii, touched) if faces else Text("empty", style="dim"))
        t.append(f"  · Stock {view.stock_size}" if view.stock_size else "  · Stock empty")
        self.update(t)


class Status(Static):
    """Whose turn, the actions left, and the last round's marker."""

    def show(self, view: Game, names: Sequence[str], me: int) -> None:
        t = Text(f"Turn {view.turn} · ")
        t.append_text(plain(turn_words(view, names, me), "bold" if view.player == me else ""))
        last = view.last_player
        if last is not None and not view.is_over:
            who = "you are" if last == me else f"{names[last]} is"
            t.append(" · ")
            t.append("LAST ROUND", style="bold reverse")
            t.append_text(plain(f" ({who} the last player)"))
        self.update(t)


class HandLine(Static):
    """Your hand, numbered for the keys 1–9: ``*`` marks a card the others know you hold
    (you took it from the range), ``+`` a card the last move brought you."""

    def show(
        self,
        view: Game,
        me: int,
        ascii: bool,
        highlight: Collection[int] = (),
        new: Collection[int] = (),
    ) -> None:
        t = Text("Hand ", style="bold")
        hand = view.hand(me)
        known = list(view.public_hand(me))
        for i, f in enumerate(hand):
            label = Text(f"{i + 1}:" if i < 9 else "", style="dim")
            label.append_text(card(f, ascii, f in highlight))
            if f in known:
                known.remove(f)
                label.append("*")
            if f in new:
                label.append("+")
            t.append_text(label).append(" ")
        if not hand:
            t.append("empty", style="dim")
        if view.hidden[me]:
            t.append_text(Text(" ").join([back(ascii)] * view.hidden[me]))
        self.update(t)


class LastMove(Static):
    """The last move in words, above the question."""

    def show(self, log: Sequence[Entry], ascii: bool) -> None:
        if not log:
            self.update(Text("No move yet", style="dim"))
            return
        words = ascii_text(log[-1].words) if ascii else log[-1].words
        self.update(Text("Last: ", style="dim").append_text(plain(words, style="italic")))


class ReplayBoard(Vertical):
    """The L'Unisson table of a replay (``games.ReplayBoard``): the table's own widgets,
    every hand face up on the players' lines, or one seat's hand below as it saw it."""

    log_beside = False  # six players' lines need the width: the moves go below

    def compose(self) -> ComposeResult:
        yield Players(id="u-players")
        yield RangeLine(id="u-range")
        yield Status(id="u-status")
        yield HandLine(id="u-hand")
        yield LastMove(id="last")

    def log(self, p: Positions, seat: int | None) -> list[list[Entry]]:
        """Each move in words, as ``seat`` saw it (None: an onlooker's words)."""
        me = -1 if seat is None else seat
        names = [("You" if s == me else n) for s, n in enumerate(p.names)]  # as at the table
        lines = []
        for k, (by, text) in enumerate(p.moves):
            if by is None or text == CONCEDE:  # the game has no chance: a seat that left
                who = "the table" if by is None else names[by]
                lines.append([Entry(by or 0, None, f"{who} left: the game is over")])
                continue
            before, after = p.view(k, seat), p.view(k + 1, seat)
            lines.append(log_entries(by, parse_move(text), before, after, names, me))
        return lines

    def show(
        self, p: Positions, k: int, seat: int | None, log: Sequence[Entry], ascii: bool
    ) -> None:
        view, me = p.view(k, seat), -1 if seat is None else seat
        touched = log[-1].touched if log else frozenset()
        names = [("You" if s == me else n) for s, n in enumerate(p.names)]  # as its log says
        hands = None
        if p.full and (seat is None or view.is_over):  # every hand is shown at the end
            full = p.states[k]
            hands = [full.hand(s) for s in range(full.players)]
        self.query_one("#u-players", Players).show(view, names, me, ascii, touched, hands=hands)
        self.query_one("#u-range", RangeLine).show(view, ascii, touched)
        self.query_one("#u-status", Status).show(view, names, me)
        hand = self.query_one("#u-hand", HandLine)
        hand.display = seat is not None
        if seat is not None:
            hand.show(view, seat, ascii)
        self.query_one("#last", LastMove).show(log, ascii)

    def ending(self, p: Positions) -> str:
        final = p.states[-1]
        if final.outcome is None:
            return ""  # not by the rules: the replay says how (a forfeit)
        return result_words(final, p.names, -1)
