"""The L'Unisson table's choices and words, as pure functions of a seat's view."""

from __future__ import annotations

import random

from cuttle_client.unisson.choices import choices, for_card
from cuttle_client.unisson.controller import PracticeController, entry
from cuttle_client.unisson.words import effect_hint, sequence

from cuttle_net.games.unisson import Game, parse_face, parse_move
from cuttle_net.games.unisson.motions import Drawn


def leaves(level):
    for c in level:
        if c.children:
            yield from leaves(c.children)
        elif c.move is not None:
            yield c.move


def decisions(players: int, seed: int):
    """(full game, seat) at every decision of a random game."""
    g = Game.deal(players=players, decks=2 if players >= 5 else 1, seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        yield g, g.to_act
        g.push(rng.choice(g.legal_moves()))


def test_the_choices_are_exactly_the_legal_moves() -> None:
    for players, seed in ((3, 1), (4, 2), (6, 3)):
        for g, seat in decisions(players, seed):
            view = g.view(seat)
            found = list(leaves(choices(view, seat)))
            assert sorted(found) == sorted(view.legal_moves())
            assert choices(view, (seat + 1) % players) == []  # not their decision
            for f in set(view.hand(seat)):
                for c in for_card(view, seat, f):
                    assert c.move in view.legal_moves() and f in c.move.faces


def test_hints_say_what_follows_only_when_it_can() -> None:
    take, discard = parse_move("take 7H"), parse_move("discard AS")
    assert effect_hint(take, True, 2) == "then you may draw 1"
    assert effect_hint(take, True, 1) == ""  # the replacement empties the stock
    assert effect_hint(parse_move("take AC"), True, 0) == "then discard 2"
    assert effect_hint(discard, True, 1) == "then you may draw up to 1"
    assert effect_hint(discard, True, 0) == ""
    assert effect_hint(discard, False, 9) == ""  # a forced discard has no effect
    assert effect_hint(parse_move("discard 7D"), True, 0) == "then discard 1 more"
    assert effect_hint(parse_move("meld QS KS AS"), True, 5) == "the others discard 3 each"
    assert effect_hint(parse_move("meld 7S 8S 9S TS"), True, 5) == "the others may draw 4 each"
    octave = parse_move("meld " + " ".join(f"{r}H" for r in "789TJQKA"))
    assert effect_hint(octave, True, 5) == "an octave: you win"


def test_the_log_names_a_drawn_card_to_its_drawer_only() -> None:
    motions = [Drawn(1, parse_face("9H"))]
    mine = entry(1, parse_move("draw"), motions, ("Ann", "You", "Cy"), me=1, effect=False)
    theirs = entry(1, parse_move("draw"), motions, ("You", "Bob", "Cy"), me=0, effect=False)
    assert mine.words == "You draw 9♥" and parse_face("9H") in mine.touched
    assert theirs.words == "Bob draws a card" and not theirs.touched
    assert sequence([parse_face("7H"), parse_face("8H"), parse_face("9H")]) == "7♥–9♥"
    assert sequence([parse_face("7H"), parse_face("9H")], ascii=True) == "7H-9H"


def test_the_log_read_off_the_views_says_what_the_full_game_shows_the_player() -> None:
    """The controller writes the log from the player's views alone; over whole games (two
    decks too) it says what the full game's card motions show that player."""
    for players, seed in ((3, 4), (4, 5), (6, 6)):
        c = PracticeController("random", players, seed=seed, bot_delay=0)
        g = Game.deal(players=players, decks=c.decks, seed=seed)
        rng = random.Random(seed)
        names = c.names
        while not g.is_over:
            seat, move = g.to_act, rng.choice(g.legal_moves())
            shown = entry(seat, move, g.motions(move), names, 0, bool(g.effects))
            before = g.view(0)
            g.push(move)
            c.log = []
            c._record(seat, move, before, g.view(0))
            assert c.log[0] == shown
