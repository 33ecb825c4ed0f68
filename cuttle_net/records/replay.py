"""A game replayed with every card known (after its audit, or a practice game): each move
checked, the deck operations it required and the cards each seat saw by it (SPEC 5.1, 5.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cuttle_net.deck import Op
from cuttle_net.games.interface import CHANCE, GameModule
from cuttle_net.session import CONCEDE

Seen = tuple[tuple[str, ...], ...]
"""The cards each seat saw for the first time by a move, as the game writes them."""


@dataclass(frozen=True)
class Step:
    """One move of a fully known game: what it required of the deck, and who saw what."""

    seat: int | None
    text: str
    ops: list[Op]
    seen: Seen


def seen_texts(module: GameModule, per_seat: Sequence[Sequence[int]]) -> Seen:
    """The record's note of what each seat saw first: each seat's cards in deck-id order,
    as the game writes them; nothing after the last seat that saw something."""
    seen = [tuple(module.card_text(c) for c in sorted(cards)) for cards in per_seat]
    while seen and not seen[-1]:
        seen.pop()
    return tuple(seen)


def replay(
    module: GameModule,
    rules: Any,
    seats: int,
    dealer: int,
    order: Sequence[int],
    moves: Sequence[tuple[int | None, str]],
) -> tuple[Any, list[Step]]:
    """Replay ``moves`` on the deal ``order`` with every card known; raise ``ValueError``
    at the first bad one."""
    state = module.new_full(rules, seats, dealer, order)
    steps = []
    for seat, text in moves:
        if text == CONCEDE:
            if seat is None:
                raise ValueError("chance cannot concede")
            module.concede(state, seat)
            steps.append(Step(seat, text, [], ()))
            continue
        m = module.parse_move(text)
        actor = module.to_act(state)
        if seat is None:
            if actor != CHANCE:
                raise ValueError(f"{text}: chance decides nothing here")
            ops = module.chance_ops(state)
        else:
            if actor != seat:
                raise ValueError(f"{text}: it is not seat {seat}'s decision")
            module.check(state, m, seat)
            ops = module.deck_ops(state, m)
        seen = module.play_full(state, m, seat)
        steps.append(Step(seat, text, ops, seen_texts(module, seen)))
    return state, steps


def full_states(
    module: GameModule,
    rules: Any,
    seats: int,
    dealer: int,
    order: Sequence[int],
    moves: Sequence[tuple[int | None, str]],
) -> list[Any]:
    """The table with every card known after the deal and after each of ``moves`` (already
    checked, as by ``replay``): ``[0]`` is the deal, ``[k]`` the table after ``k`` moves."""
    state = module.new_full(rules, seats, dealer, order)
    states = [module.copy(state)]
    for seat, text in moves:
        if text == CONCEDE and seat is not None:
            module.concede(state, seat)
        else:
            module.play_full(state, module.parse_move(text), seat)
        states.append(module.copy(state))
    return states


__all__ = ["Seen", "Step", "full_states", "replay", "seen_texts"]
