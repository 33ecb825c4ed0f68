"""Positions for L'Unisson tests, built from what matters in each (the rest fills the stock)."""

from __future__ import annotations

from cuttle_net.games.unisson import Game, face_text, parse_face, parse_position


def cards(text: str) -> list[int]:
    return [parse_face(w) for w in text.split() if w != "-"]


def position(
    hands: list[str],
    range_: str = "",
    *,
    seqs: list[list[str]] | None = None,
    stock: str | None = None,
    top: str = "",
    decks: int = 1,
    player: int = 0,
    used: int = 0,
    phase: str = "main",
    idle: int = 0,
    last: int | None = None,
    dealer: int | None = None,
    public: list[str] | None = None,
) -> Game:
    """A full position: ``hands[s]`` and the range as cards ("9H AS"), sequences as
    "LOW-HIGH" per seat.  The stock is ``top`` then every card left, in face order (top
    first); or exactly ``stock``, the cards left then going to the range.  ``public[s]``
    marks cards of hand s as seen by all."""
    n = len(hands)
    seqs = seqs or [[] for _ in range(n)]
    left = [f for f in range(32) for _ in range(decks)]
    hand_fields = []
    for s, h in enumerate(hands):
        marks = cards(public[s]) if public else []
        words = []
        for f in cards(h):
            left.remove(f)
            if f in marks:
                marks.remove(f)
                words.append(face_text(f) + "*")
            else:
                words.append(face_text(f))
        hand_fields.append(",".join(words) or "-")
    for f in cards(range_) + cards(top):
        left.remove(f)
    for s in range(n):
        for q in seqs[s]:
            lo, hi = (parse_face(w) for w in q.split("-"))
            for f in range(lo, hi + 1):
                left.remove(f)
    range_faces = cards(range_)
    if stock is None:
        stock_faces = cards(top) + left
    else:  # exactly these cards (top first); whatever is left goes to the range
        stock_faces = cards(stock)
        for f in stock_faces:
            left.remove(f)
        range_faces += left
    if dealer is None:
        dealer = (player - 1) % n
    turn = (player - dealer) % n or n
    stock_text = ",".join(face_text(f) for f in stock_faces) or "-"
    range_text = ",".join(face_text(f) for f in sorted(range_faces)) or "-"
    seat_fields = ["/".join([hand_fields[s], *seqs[s]]) for s in range(n)]
    fields = [
        "unisson",
        str(n),
        str(decks),
        str(dealer),
        str(turn),
        str(player),
        str(used),
        phase,
        str(idle),
        "-" if last is None else str(last),
        stock_text,
        range_text,
        *seat_fields,
    ]
    return parse_position(" ".join(fields))


def play(g: Game, *moves: str) -> Game:
    for m in moves:
        g.apply(m)
    return g


def hand(g: Game, s: int) -> str:
    return " ".join(face_text(f) for f in g.hand(s))


def range_of(g: Game) -> str:
    return " ".join(face_text(f) for f in g.range_cards())
