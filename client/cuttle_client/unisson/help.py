"""Help at the L'Unisson table: the rules in a screenful, then the keys."""

from __future__ import annotations

from ..helpscreen import HelpScreen

RULES = """\
[b]L'Unisson[/b] · {players} players, {decks}
Build sequences: 3 or more cards of one suit in a row, in the order
7 8 9 10 J Q K A (the ace is high only). Each player holds 4 cards; 4 lie
face up in the middle (the [b]range[/b]); the rest is the [b]stock[/b].

[b]Your turn[/b]  up to two actions, then pass (p):
  draw      the top card of the stock
  take      a range card; the stock's top card replaces it
  discard   a card of your hand onto the range
  meld      3+ cards in a row of one suit, face up in front of you
  extend    one card at either end of one of your own sequences
[b]Effects[/b] (free, resolved at once)
  take an ace: discard 2 cards      take a seven: you may draw 1
  discard an ace: draw up to 2      discard a seven: discard 1 more
  meld with an ace: each other player discards as many cards as it has
  meld with a seven: each other player may draw up to as many
[b]The end[/b]  an [b]octave[/b] (all eight of a suit) melded or completed wins
at once. When the stock runs out, the player whose turn it is becomes the
[b]last player[/b] (L): everyone else plays one more turn. A whole round of
passes also ends the game.
[b]Scoring[/b]  sequences melded: 1 a card (an octave 8, and it doubles
them); sequences left in your hand cost as much; empty hand +10; last
player +5; the range's sequences count for everyone; if every player has
an octave, melded or held: the Unisson, +50 each."""

KEYS = """\
[b]Keys at the table[/b]
  d   draw a card (also during an effect)    p   pass: end your turn
  t   take from the range…                   x   discard…
  m   meld a sequence…                       e   extend a sequence…
  s   stop drawing (an effect's draws)       1-9 the moves of a card in hand
  ↑ ↓ Enter   choose among the options       Esc back one step
  :   type a move, e.g. meld 7H 8H 9H or extend 1 TH
  l   leave the table    ?   this help    ctrl+q quit
[b]On the table[/b]
  ▶  whose decision it is    D  the dealer    L  the last player
  1:7♥–9♥  your sequence number 1, from 7♥ to 9♥ (extend names it by number)
  *  a card of yours the others know (you took it from the range)
  +  a card the last move brought you;  [reverse]7♥[/reverse]  the last move's cards"""


class UnissonHelpScreen(HelpScreen):
    """The rules of L'Unisson and the keys; scrolls with the arrows."""

    def __init__(self, players: int, decks: int, ascii: bool, keys: str = KEYS) -> None:
        super().__init__(ascii, keys)
        self.players, self.decks = players, decks

    def text(self) -> str:
        deck_words = "one deck of 32" if self.decks == 1 else "two decks (64 cards)"
        text = f"{RULES.format(players=self.players, decks=deck_words)}\n\n{self.keys}"
        return text.replace("–", "-").replace("▶", ">") if self.ascii else text


def rules_screen(token: str, players: int, ascii: bool, keys: str) -> UnissonHelpScreen:
    """L'Unisson's rules for ``players`` with the decks the token names (the registry's
    ``GameUI.rules_help``)."""
    return UnissonHelpScreen(players, 2 if token == "two-decks" else 1, ascii, keys)
