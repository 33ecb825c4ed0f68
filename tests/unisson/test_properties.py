"""Property tests of the engine over random whole games: cards are conserved, views hide what
they must and follow the game move by move, positions read back, and every game ends."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cuttle_net.games.unisson import (
    DRAW,
    FACES,
    PASS,
    STOP,
    Drawn,
    Game,
    IllegalMove,
    MoveSyntaxError,
    PositionError,
    Turned,
    parse_move,
    parse_position,
    position_text,
)
from cuttle_net.games.unisson.moves import DISCARD, EXTEND, MELD, TAKE

TABLES = [(3, 1), (4, 1), (3, 2), (4, 2), (5, 2), (6, 2)]
# No game outlasts this many decisions: each action draws from the stock or empties a hand a
# little, and the last round is one turn a seat.
MAX_DECISIONS = 2_000
ALL_MOVES = [DRAW, PASS, STOP, *TAKE, *DISCARD, *MELD.values(), *EXTEND[1], *EXTEND[2]]

games = st.tuples(
    st.sampled_from(TABLES),
    st.integers(0, 5),  # dealer (mod players)
    st.integers(0, 2**32),  # deal
    st.integers(0, 2**32),  # move choices
)


def _play(table, dealer, deal_seed, move_seed, each=None):
    (players, decks) = table
    g = Game.deal(players, decks, dealer % players, seed=deal_seed)
    rng = random.Random(move_seed)
    decisions = 0
    while not g.is_over:
        moves = g.legal_moves()
        assert moves, position_text(g)
        m = rng.choice(moves)
        if each:
            each(g, m)
        g.push(m)
        decisions += 1
        assert decisions < MAX_DECISIONS
    return g


def _hand_runs(faces: list[int]) -> list[int]:
    """The seed's rule, spelled out: per suit, the longest run left, again and again."""
    out = []
    for suit in range(4):
        counts = [faces.count(suit * 8 + r) for r in range(8)]
        while True:
            best, start = 0, 0
            for lo in range(8):
                n = 0
                while lo + n < 8 and counts[lo + n]:
                    n += 1
                if n > best:
                    best, start = n, lo
            if best < 3:
                break
            out.append(best)
            for r in range(start, start + best):
                counts[r] -= 1
    return out


def _conserved(g: Game) -> None:
    for f in range(FACES):
        assert g.visible_count(f) == g.decks, position_text(g)
    assert sum(g.hand_size(s) for s in range(g.players)) == sum(
        len(g.hand(s)) for s in range(g.players)
    )


@settings(max_examples=60, deadline=None)
@given(games)
def test_every_game_ends_with_every_card_in_one_place(args) -> None:
    g = _play(*args, each=lambda g, m: _conserved(g))
    _conserved(g)
    scores = g.scores()
    for seat, sc in enumerate(scores):
        assert sc.total == sc.melded + sc.hand + sc.empty + sc.last + sc.range + sc.unisson
        lengths = [len(q) for q in g.sequences(seat)]
        assert sc.melded == sum(lengths) * (2 if 8 in lengths else 1)
        runs = _hand_runs(g.hand(seat))
        if sc.unisson:
            runs = [r for r in runs if r != 8]
        assert sc.hand == -sum(runs) * (2 if 8 in runs else 1)
        assert sc.empty == (10 if g.hand_size(seat) == 0 else 0)
        assert sc.last == (5 if g.last_player == seat else 0)
        assert sc.range == scores[0].range and sc.unisson == scores[0].unisson
    assert len(g.winners()) >= 1
    if g.outcome.reason == "octave":
        assert g.winners() == (g.outcome.seat,)
    else:
        best = max(s.total for s in scores)
        assert all(scores[w].total == best for w in g.winners())


@settings(max_examples=40, deadline=None)
@given(games)
def test_views_follow_the_game_and_never_hold_a_hidden_card(args) -> None:
    (players, decks), dealer, deal_seed, move_seed = args
    g = Game.deal(players, decks, dealer % players, seed=deal_seed)
    views = [g.view(s) for s in range(players)] + [g.view(None)]
    rng = random.Random(move_seed)
    while not g.is_over:
        m = rng.choice(g.legal_moves())
        actor = g.to_act
        motions = g.motions(m)
        for s, v in enumerate(views):
            seat = s if s < players else None
            shown = [
                x.face
                for x in motions
                if isinstance(x, Turned) or (isinstance(x, Drawn) and x.seat == seat)
            ]
            assert v.reveals_needed(m) == len(shown)
            v.apply(str(m), by=actor, reveal=shown)
        g.apply(m)
        for s, v in enumerate(views):
            seat = s if s < players else None
            truth = g.view(seat)
            assert position_text(v) == position_text(truth)
            for o in range(players):
                if o != seat:  # another hand: exactly the cards all saw it take
                    assert v.hand(o) == g.public_hand(o)
            assert all(f < 0 for f in v.stock)
    for v in views[players:]:
        for s in range(players):
            v.show_hand(s, g.hand(s))
        assert v.scores() == g.scores()


@settings(max_examples=40, deadline=None)
@given(games)
def test_positions_and_moves_read_back_and_illegal_moves_are_refused(args) -> None:
    seen: list[int] = [0]

    def check(g: Game, m) -> None:
        text = position_text(g)
        assert position_text(parse_position(text)) == text
        assert parse_move(str(m)) is m
        legal = set(g.legal_moves())
        seen[0] += 1
        for other in random.Random(seen[0]).sample(ALL_MOVES, 12):
            if other not in legal:
                try:
                    g.check(other)
                except IllegalMove as e:
                    assert str(e)
                else:
                    raise AssertionError(f"{other} accepted in {text}")

    _play(*args, each=check)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_a_move_or_a_syntax_error(text: str) -> None:
    try:
        m = parse_move(text)
    except MoveSyntaxError as e:
        assert str(e)
    else:
        assert parse_move(str(m)) is m


FIELD_WORDS = st.one_of(
    st.text(alphabet="0123456789?*-/,:ACDHJKQSTv789ewimnaorvcpst", max_size=12),
    st.sampled_from(["main", "over:passes", "discard:1:3", "draw:0:2", "?3", "-", "9H*", "view:0"]),
)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 50), st.integers(0, 15), FIELD_WORDS)
def test_any_damaged_position_is_refused_with_a_field_name_or_reads_back(
    seed: int, field: int, word: str
) -> None:
    g = _play((4, 1), 0, seed, seed, each=None) if seed % 2 else Game.deal(4, 1, 0, seed=seed)
    words = position_text(g).split()
    if field < len(words):
        words[field] = word
    else:
        words.append(word)
    text = " ".join(words)
    try:
        h = parse_position(text)
    except PositionError as e:
        assert str(e).split(":")[0] in FIELD_NAMES, str(e)
    else:
        assert parse_position(position_text(h)) is not None
        if not h.is_over and h.hidden[h.to_act] == 0:
            h.legal_moves()


FIELD_NAMES = {
    "game",
    "players",
    "decks",
    "dealer",
    "turn",
    "player",
    "actions",
    "phase",
    "idle",
    "last",
    "stock",
    "range",
    "seat0",
    "seat1",
    "seat2",
    "seat3",
    "view",
    "position",
}
