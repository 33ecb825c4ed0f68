"""L'Unisson in words, from one seat's point of view: moves for the log, sequences, the
question the player is asked and the result.  Pure functions of views and motions."""

from __future__ import annotations

from collections.abc import Sequence

from cuttle_net.games.unisson import Game, face_display
from cuttle_net.games.unisson.cards import ACE, RANK_OF, SEVEN
from cuttle_net.games.unisson.motions import Drawn, Motion, Turned
from cuttle_net.games.unisson.moves import Kind, Move


def card(f: int, ascii: bool = False) -> str:
    return face_display(f, ascii)


def cards(fs: Sequence[int], ascii: bool = False) -> str:
    return " ".join(card(f, ascii) for f in fs)


def sequence(faces: Sequence[int], ascii: bool = False) -> str:
    """A sequence by its ends, ``7♥–9♥`` (``7H-9H`` in ASCII); an octave says so."""
    dash = "-" if ascii else "–"
    text = f"{card(faces[0], ascii)}{dash}{card(faces[-1], ascii)}"
    return f"{text} octave" if len(faces) == 8 else text


def effect_hint(m: Move, in_turn: bool, stock: int) -> str:
    """What follows ``m`` by the rules: an ace taken makes you discard two, and so on
    (a draw only if the stock will still hold a card: a take's replacement comes first)."""
    if not m.faces or not in_turn:
        return ""
    rank = RANK_OF[m.faces[0]]
    if m.kind is Kind.TAKE:
        if rank == ACE:
            return "then discard 2"
        return "then you may draw 1" if rank == SEVEN and stock >= 2 else ""
    if m.kind is Kind.DISCARD:
        if rank == ACE and stock:
            return f"then you may draw up to {min(2, stock)}"
        return "then discard 1 more" if rank == SEVEN else ""
    if m.kind is Kind.MELD:
        n = len(m.faces)
        if n == 8:
            return "an octave: you win"
        ranks = {RANK_OF[f] for f in m.faces}
        if ACE in ranks:
            return f"the others discard {n} each"
        if SEVEN in ranks and stock:
            return f"the others may draw {n} each"
    return ""


def describe(
    m: Move,
    seat: int,
    motions: Sequence[Motion],
    names: Sequence[str],
    me: int,
    effect: bool,
    ascii: bool = False,
) -> str:
    """``m`` by ``seat`` in words for the player at ``me``: "Ann takes A♠ (K♣ turned up)".

    ``motions`` are the move's card motions; a drawn card is named only to its drawer.
    ``effect`` says the move answered an effect (a free discard or draw).
    """
    who = names[seat]
    you = seat == me
    k = m.kind
    free = " (free)" if effect else ""
    if k is Kind.DRAW:
        drawn = [x.face for x in motions if isinstance(x, Drawn)]
        if you and drawn and drawn[0] >= 0:
            text = f"{who} draw {card(drawn[0], ascii)}{free}"
        else:
            text = f"{who} {'draw' if you else 'draws'} a card{free}"
    elif k is Kind.TAKE:
        text = f"{who} {'take' if you else 'takes'} {card(m.faces[0], ascii)} from the range"
    elif k is Kind.DISCARD:
        text = f"{who} {'discard' if you else 'discards'} {card(m.faces[0], ascii)}{free}"
    elif k is Kind.MELD:
        text = f"{who} {'meld' if you else 'melds'} {cards(m.faces, ascii)}"
    elif k is Kind.EXTEND:
        text = f"{who} {'add' if you else 'adds'} {card(m.faces[0], ascii)} to sequence {m.seq}"
    elif k is Kind.STOP:
        text = f"{who} {'stop' if you else 'stops'} drawing"
    else:
        text = f"{who} {'pass' if you else 'passes'}"
    turned = [x.face for x in motions if isinstance(x, Turned)]
    if turned:
        text += f" ({cards(turned, ascii)} turned up)"
    return text


def effect_words(g: Game, names: Sequence[str], me: int, cause: str) -> str:
    """The effect waiting, in words: what the seat answering it must or may do.

    ``cause`` names what started it ("Bob melded J♠–A♠"), or is empty.
    """
    effects = g.effects
    if not effects:
        return ""
    e = effects[0]
    you = e.seat == me
    who = "you" if you else names[e.seat]
    plural = "s" * (e.count > 1)
    if e.kind == "discard":
        what = f"{who} must discard {e.count} card{plural}"
    else:
        what = f"{who} may draw up to {e.count} card{plural}"
    text = f"{cause}: {what}" if cause else what[0].upper() + what[1:]
    if you:
        text += " (x: discard one)" if e.kind == "discard" else " (d: draw one, s: stop)"
    return text


def turn_words(g: Game, names: Sequence[str], me: int) -> str:
    """Whose turn it is and how many actions remain: "Your turn: 2 actions left"."""
    if g.is_over:
        return "The game is over"
    left = g.actions_left
    actions = f"{left} action{'s' * (left != 1)} left"
    if g.player == me:
        return f"Your turn, {actions}"
    return f"{names[g.player]}'s turn, {actions}"


def result_words(g: Game, names: Sequence[str], me: int) -> str:
    """The result in one sentence: who won and how."""
    o = g.outcome
    assert o is not None
    winners = g.winners()
    if o.reason == "octave":
        who = names[o.seat]  # type: ignore[index]
        return f"{'You win' if o.seat == me else who + ' wins'}: an octave!"
    how = {
        "last-round": "the last round is over",
        "passes": "every player passed a whole turn",
    }[o.reason]
    if len(winners) > 1:
        shared = ", ".join(names[w] for w in winners)
        return f"Shared win ({shared}): {how}"
    w = winners[0]
    return f"{'You win' if w == me else names[w] + ' wins'}: {how}, highest total"
