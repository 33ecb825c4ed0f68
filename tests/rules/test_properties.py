"""Properties of the engine over random games, in every rule set and variant."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cuttle_net.games.cuttle.cards import ALL_CARDS, ALL_CARDS_WITH_JOKER
from cuttle_net.games.cuttle.engine import OFFER, OVER, UNKNOWN, Game
from cuttle_net.games.cuttle.moves import OFFER_DRAW
from cuttle_net.games.cuttle.position import format_position, parse_position
from cuttle_net.games.cuttle.rules import VARIANTS, Rules

MAX_DECISIONS = 2000  # far beyond any real game: reaching it means the game does not end


@st.composite
def rule_sets(draw: st.DrawFn) -> Rules:
    variants = draw(st.sets(st.sampled_from(VARIANTS)))
    if {"nine-frozen", "nine-to-deck"} <= variants:
        variants.discard(draw(st.sampled_from(["nine-frozen", "nine-to-deck"])))
    return Rules(standard=draw(st.booleans()), variants=frozenset(variants))


def every_card(g: Game) -> list[int]:
    cards = [*g.deck, *g.scrap, *g.chain, *g.revealed]
    for s in (0, 1):
        cards += [*g.hands[s], *g.points[s], *g.perms[s]]
    for jacks in g.jacks.values():
        cards += jacks
    return sorted(cards)


def visible_to(g: Game, seat: int) -> set[int]:
    """Cards ``seat`` may see in full-information game ``g`` by the rules of the game."""
    seen = {*g.scrap, *g.chain, *g.revealed, *g.hands[seat], *g.deck[len(g.deck) - g.deck_known :]}
    for s in (0, 1):
        seen |= {*g.points[s], *g.perms[s]}
    for jacks in g.jacks.values():
        seen |= set(jacks)
    other = 1 - seat
    seen |= g.known[other]
    if g.has_glasses(seat):
        seen |= set(g.hands[other])
    return seen


@settings(max_examples=120, deadline=None)
@given(rules=rule_sets(), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    g = Game.deal(rules, seed=seed)
    views = [g.view(0), g.view(1)]
    deck = list(ALL_CARDS_WITH_JOKER if rules.joker else ALL_CARDS)
    for _ in range(MAX_DECISIONS):
        if g.phase == OVER:
            break
        legal = g.legal_moves()
        assert legal, f"no legal move in {format_position(g)}"
        if rng.random() < 0.05:  # every legal move applies through the checked path
            for m in legal:
                g.copy().apply(m, by=None)
        m = (
            OFFER_DRAW
            if g.phase != OFFER and rng.random() < 0.01 and g.can_offer_draw
            else rng.choice(legal)
        )
        learned = g.play(m)
        # Each card exactly once across all zones.
        assert every_card(g) == deck
        # The text form round-trips, for the game and for both views.
        text = format_position(g)
        assert format_position(parse_position(text)) == text
        for seat in (0, 1):
            # What a seat learns is only what the rules show it ...
            assert set(learned[seat]) <= visible_to(g, seat) | set(g.scrap) | set(g.deck)
            # ... and a view fed only the public move and those cards is exactly the
            # projection of the truth: it holds nothing its player could not know.
            views[seat].apply(m, reveal=learned[seat])
            projected = g.view(seat)
            assert format_position(views[seat]) == format_position(projected)
            assert set(projected.hands[1 - seat]) <= visible_to(g, seat)
            assert all(c == UNKNOWN for c in projected.deck[: len(g.deck) - g.deck_known])
            view_text = format_position(projected)
            assert format_position(parse_position(view_text)) == view_text
    else:
        raise AssertionError(f"the game did not end in {MAX_DECISIONS} decisions")


@settings(max_examples=40, deadline=None)
@given(rules=rule_sets(), seed=st.integers(0, 2**32 - 1), at=st.integers(0, 60))
def test_hidden_cards_do_not_show_in_a_view(rules: Rules, seed: int, at: int) -> None:
    """Swapping two cards that seat 0 cannot see leaves seat 0's view unchanged."""
    rng = random.Random(seed)
    g = Game.deal(rules, seed=seed)
    for _ in range(at):
        if g.phase == OVER:
            break
        g.push(rng.choice(g.legal_moves()))
    hidden_hand = [c for c in g.hands[1] if c not in g.known[1] and not g.has_glasses(0)]
    hidden_deck = list(range(len(g.deck) - g.deck_known))
    if not hidden_hand or not hidden_deck:
        return
    twin = g.copy()
    x, i = rng.choice(hidden_hand), rng.choice(hidden_deck)
    y = twin.deck[i]
    twin.deck[i] = x
    twin.hands[1].remove(x)
    twin.hands[1].append(y)
    twin.hands[1].sort()
    assert format_position(twin.view(0)) == format_position(g.view(0))
    assert format_position(twin.view(1)) != format_position(g.view(1))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_move_refused_for_its_reveals_leaves_the_view_as_it_was(seed: int) -> None:
    # A view plays a move in the copy it was checked in (`Game.apply`): a reveal that does
    # not fit must leave the view itself untouched, with the opponent's cards still hidden.
    rng = random.Random(seed)
    g = Game.deal(Rules())
    for _ in range(rng.randrange(0, 12)):
        if g.phase == OVER:
            return
        g.play(rng.choice(g.legal_moves()))
    if g.to_act not in (0, 1):
        return
    seat = g.to_act
    view = g.view(1 - seat)  # the other seat sees this seat's move, naming hidden cards
    m = rng.choice(g.legal_moves())
    before = format_position(view), [list(h) for h in view.hands], list(view.hidden)
    wrong = [c for c in (*view.hands[1 - seat], *view.scrap) if c not in view.unseen()][:1]
    extra = sorted(view.unseen())[: view.reveals_needed(m) + 1]
    for reveal in (wrong, extra):
        try:
            view.apply(m, by=seat, reveal=reveal)
        except ValueError:
            assert (format_position(view), view.hands, view.hidden) == before
        else:
            return  # the move took them (a wrong list can be right for some moves)
