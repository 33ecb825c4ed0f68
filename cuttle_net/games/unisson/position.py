"""Positions of L'Unisson as one line of text (SPEC part 6), both ways.

``position_text(game)`` writes a full position or a view; ``parse_position(text)`` reads
one back and refuses, with a ``PositionError`` whose message starts with the field's name,
any line that is malformed or that no game could reach.
"""

from __future__ import annotations

from .cards import FACES, OCTAVES, face_text, mask_faces, parse_face
from .engine import (
    FULL,
    MAY_DRAW,
    MUST_DISCARD,
    SPECTATOR,
    Game,
    Outcome,
    check_table,
)
from .motions import UNKNOWN
from .moves import MELD

GAME = "unisson"
_FIXED = ("game", "players", "decks", "dealer", "turn", "player", "actions", "phase", "idle")
_FIXED += ("last", "stock", "range")


class PositionError(ValueError):
    """The text is not a position of L'Unisson; the message starts with the field at fault."""


# ------------------------------------------------------------------- writing


def _cards(faces: list[int]) -> str:
    return ",".join(face_text(f) for f in faces) or "-"


def _hand_text(g: Game, s: int) -> str:
    known = g.public_hand(s)
    words = []
    for f in g.hand(s):
        if f in known:
            known.remove(f)
            words.append(face_text(f) + "*")
        else:
            words.append(face_text(f))
    if g.hidden[s]:
        words.append(f"?{g.hidden[s]}")
    return ",".join(words) or "-"


def _seq_text(mask: int) -> str:
    faces = mask_faces(mask)
    return f"{face_text(faces[0])}-{face_text(faces[-1])}"


def phase_text(g: Game) -> str:
    o = g.outcome
    if o is not None:
        return f"over:octave:{o.seat}" if o.reason == "octave" else f"over:{o.reason}"
    if not g.pending:
        return "main"
    return ",".join(f"{('discard', 'draw')[k]}:{s}:{n}" for k, s, n in g.pending)


def position_text(g: Game) -> str:
    """The one-line text of a position (a view adds its ``view:`` field)."""
    if g.viewer == FULL:
        stock = ",".join(face_text(f) for f in reversed(g.stock)) or "-"
    else:
        stock = f"?{len(g.stock)}" if g.stock else "-"
    fields = [
        GAME,
        str(g.players),
        str(g.decks),
        str(g.dealer),
        str(g.turn),
        str(g.player),
        str(g.used),
        phase_text(g),
        str(g.idle),
        "-" if g.last < 0 else str(g.last),
        stock,
        _cards(g.range_cards()),
    ]
    for s in range(g.players):
        fields.append("/".join([_hand_text(g, s), *(_seq_text(m) for m in g.seqs[s])]))
    if g.viewer != FULL:
        fields.append("view:spectator" if g.viewer == SPECTATOR else f"view:{g.viewer}")
    return " ".join(fields)


# ------------------------------------------------------------------- reading


def _number(name: str, word: str, lo: int, hi: int) -> int:
    if not (word.isascii() and word.isdecimal() and len(word) <= 10) or not lo <= int(word) <= hi:
        raise PositionError(f"{name}: {word!r} is not a number from {lo} to {hi}")
    return int(word)


def _face(name: str, word: str) -> int:
    try:
        return parse_face(word)
    except ValueError as e:
        raise PositionError(f"{name}: {e}") from None


def _card_list(name: str, word: str) -> list[int]:
    if word == "-":
        return []
    return [_face(name, w) for w in word.split(",")]


def _unknown(name: str, word: str, most: int) -> int:
    if not word.startswith("?"):
        raise PositionError(f"{name}: {word!r} is not ?N (a count of unknown cards)")
    return _number(name, word[1:], 1, most)


def parse_position(text: str) -> Game:
    """Read a position (or a view); raise ``PositionError`` naming the first field at fault."""
    words = text.split()
    if not words or words[0] != GAME:
        raise PositionError(f"game: a position starts with {GAME!r}")
    if len(words) < 3:
        raise PositionError(f"position: {len(words)} fields, too few")
    players = _number("players", words[1], 3, 6)
    decks = _number("decks", words[2], 1, 2)
    try:
        check_table(players, decks)
    except ValueError as e:
        raise PositionError(f"decks: {e}") from None
    want = len(_FIXED) + players
    viewer = FULL
    if len(words) == want + 1:
        v = words[-1]
        if v == "view:spectator":
            viewer = SPECTATOR
        elif v.startswith("view:"):
            viewer = _number("view", v[5:], 0, players - 1)
        else:
            raise PositionError(f"view: {v!r} is not view:SEAT or view:spectator")
    elif len(words) != want:
        raise PositionError(f"position: {len(words)} fields, {players} players need {want}")
    total = FACES * decks
    g = Game.empty(players, decks, _number("dealer", words[3], 0, players - 1), viewer)
    g.turn = _number("turn", words[4], 1, 10**9)
    g.player = _number("player", words[5], 0, players - 1)
    if g.player != (g.dealer + g.turn) % players:
        raise PositionError(
            f"player: turn {g.turn} after dealer {g.dealer} is seat {(g.dealer + g.turn) % players}"
        )
    g.used = _number("actions", words[6], 0, 2)
    _read_phase(g, words[7])
    g.idle = _number("idle", words[8], 0, players)
    g.last = -1 if words[9] == "-" else _number("last", words[9], 0, players - 1)
    stock = words[10]
    if viewer == FULL:
        g.stock = _card_list("stock", stock)[::-1]
    else:
        g.stock = [] if stock == "-" else [UNKNOWN] * _unknown("stock", stock, total)
    for f in _card_list("range", words[11]):
        g._add_range(f)
    for s in range(players):
        _read_seat(g, s, words[len(_FIXED) + s])
    _check(g)
    return g


def _read_phase(g: Game, word: str) -> None:
    n = g.players
    if word == "main":
        return
    if word.startswith("over:"):
        reason = word[5:]
        if reason.startswith("octave:"):
            g.outcome = Outcome("octave", _number("phase", reason[7:], 0, n - 1))
        elif reason in ("last-round", "passes"):
            g.outcome = Outcome(reason)
        else:
            raise PositionError(
                f"phase: {word!r}: a game ends over:octave:SEAT, over:last-round or over:passes"
            )
        return
    for step in word.split(","):
        parts = step.split(":")
        if len(parts) != 3 or parts[0] not in ("discard", "draw"):
            raise PositionError(
                f"phase: {step!r} is not main, over:… or an effect "
                "discard:SEAT:COUNT / draw:SEAT:COUNT"
            )
        kind = MUST_DISCARD if parts[0] == "discard" else MAY_DRAW
        g.pending.append(
            (kind, _number("phase", parts[1], 0, n - 1), _number("phase", parts[2], 1, 7))
        )


def _read_seat(g: Game, s: int, word: str) -> None:
    name = f"seat{s}"
    hand, *seqs = word.split("/")
    if hand != "-":
        items = hand.split(",")
        if items[-1].startswith("?"):
            g.hidden[s] = _unknown(name, items.pop(), FACES * g.decks)
            g.sizes[s] += g.hidden[s]
        for w in items:
            public = w.endswith("*")
            f = _face(name, w[:-1] if public else w)
            g._add_hand(s, f)
            if public:
                b = 1 << f
                if g.known_lo[s] & b:
                    g.known_hi[s] |= b
                else:
                    g.known_lo[s] |= b
    for w in seqs:
        ends = w.split("-")
        if len(ends) != 2:
            raise PositionError(f"{name}: {w!r} is not a sequence LOW-HIGH like 7S-9S")
        a, b = _face(name, ends[0]), _face(name, ends[1])
        mask = ((1 << (b + 1)) - 1) ^ ((1 << a) - 1) if b >= a else 0
        if mask not in MELD:
            raise PositionError(
                f"{name}: {w!r} is not a sequence: 3 to 8 cards of one suit, low card first"
            )
        g.seqs[s].append(mask)


def _check(g: Game) -> None:
    """Refuse what no game could reach (each rule is written in SPEC 6.8)."""
    n, view = g.players, g.viewer
    total = FACES * g.decks
    for s in range(n):
        if g.hidden[s] and view == s:
            raise PositionError(f"seat{s}: a view knows its own hand")
        if g.hidden[s] and view == FULL:
            raise PositionError(f"seat{s}: ?N is only for views")
        if view not in (FULL, s) and (g.lo[s], g.hi[s]) != (g.known_lo[s], g.known_hi[s]):
            raise PositionError(
                f"seat{s}: a view lists only the cards of another hand that all saw (marked *)"
            )
    # Cards: each face `decks` times; in a view, unknown cards make up the rest.
    for f in range(FACES):
        if g.visible_count(f) > g.decks:
            raise PositionError(f"position: {face_text(f)} appears more than {g.decks} time(s)")
    seen = sum(g.visible_count(f) for f in range(FACES)) + sum(g.hidden)
    seen += 0 if view == FULL else len(g.stock)
    if seen != total:
        raise PositionError(f"position: {seen} cards placed, the decks hold {total}")
    octaves = [s for s in range(n) for m in g.seqs[s] if m in OCTAVES]
    o = g.outcome
    if o is None or o.reason != "octave":
        if octaves:
            raise PositionError(f"seat{octaves[0]}: an octave melded ends the game")
    elif octaves != [o.seat] or o.seat != g.player or not g.used:
        raise PositionError(
            f"phase: seat {o.seat} ended the game with an octave, an action of its own turn"
        )
    if o is None:
        if bool(g.stock) == (g.last >= 0):
            raise PositionError("last: a last player exists exactly when the stock is empty")
        if g.idle >= n:
            raise PositionError(f"idle: {n} empty turns in a row end the game")
        since = (g.player - g.last) % n  # turns since the last player's began
        if g.last >= 0 and since and g.idle > since - 1:
            raise PositionError("idle: the last player's turn had an action")
        if g.last >= 0 and not since and not g.used:
            raise PositionError(
                "actions: the stock emptied in the last player's turn, so it has acted"
            )
        if g.pending:
            _check_pending(g)
        elif g.used == 2:
            raise PositionError("actions: a turn ends after its second action and its effects")
    else:
        if o.reason == "last-round" and (g.last < 0 or g.stock or g.player != (g.last - 1) % n):
            raise PositionError(
                "phase: the last round ends after the turn of the seat "
                "right of the last player, with the stock empty"
            )
        if o.reason == "passes" and (g.idle != n or g.used or g.last >= 0):
            raise PositionError(
                f"idle: the game ends by passes after {n} empty turns, with no last player"
            )


def _check_pending(g: Game) -> None:
    n, p = g.players, g.player
    steps = g.pending
    if not g.used:
        raise PositionError("actions: an effect follows an action")
    kind, seat, count = steps[0]
    if kind == MUST_DISCARD and not g.sizes[seat]:
        raise PositionError(f"phase: seat {seat} holds no card to discard")
    if kind == MAY_DRAW and not g.stock:
        raise PositionError("phase: nothing to draw from an empty stock")
    if seat == p:
        if len(steps) != 1 or count > 2:
            raise PositionError("phase: the player's own effect is one step of 1 or 2 cards")
        return
    # A meld's effect: the other seats in turn order from the melder's left, same count.
    order = [(p + i) % n for i in range(1, n)]
    seats = [s for _, s, _ in steps]
    if seats != order[len(order) - len(seats) :]:
        raise PositionError(
            "phase: a meld's effect reaches the other seats in turn order, from the melder's left"
        )
    rest = steps[1:]
    if any(k != kind for k, _, _ in rest) or len({c for _, _, c in rest}) > 1:
        raise PositionError("phase: a meld's effect asks the same of every other seat")
    if rest and (rest[0][2] < 3 or count > rest[0][2]):
        raise PositionError("phase: a meld's effect counts the sequence's 3 to 7 cards")
