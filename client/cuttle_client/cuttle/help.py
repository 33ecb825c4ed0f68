"""Cuttle's help: the rules in play (goal, each rank's uses, kings, the variants), and the
keys.  ``?`` opens it from the lobby (for the rules chosen there) and from the table."""

from __future__ import annotations

from cuttle_net.games.cuttle.rules import Rules

from ..helpscreen import HelpScreen

VARIANT_RULES = {
    "eight-one-off": "an 8 may also be a one-off that scraps the opponent's glasses "
    "(both 8s go to the scrap)",
    "joker": "a joker is added (53 cards): as a one-off the players swap hands",
    "nine-frozen": "a 9 targets only the opponent's permanents; the card goes back to their "
    "hand and is frozen for their next turn",
    "nine-to-deck": "a 9 puts the permanent face down on top of the draw pile instead "
    "(both players know which card it is)",
    "queens-protect-queens": "a queen also protects its controller's other queens",
    "random-fours": "a 4's two discards are picked at random (fairly, neither player can bias it)",
    "ten-blocks-scuttle": "a 10 from your hand may block the opponent's scuttle: the 10 and the "
    "scuttling card go to the scrap, the target stays",
}

TABLE_KEYS = """\
[b]Keys at the table[/b]
  1-9          choose a card of your hand (or click it)
  ↑ ↓  Enter   choose among the options below the hand
  Esc          back one step (card ← use ← target)
  d            draw a card (pass when the draw pile is empty)
  : or m       type a move in notation, e.g. scuttle 9H 4C
  s            browse the scrap pile
  o            offer a draw
  c            concede (asks first)
  ?            this help
  ctrl+q       quit

[b]On the table[/b]
  4♣/J♦   a point card with the jacks on it, bottom to top;
          it counts for the side it is on
  *       a card of yours your opponent knows;  ~  a frozen card
  ▒▒ / ##  a card you cannot see
  [reverse]7♥[/reverse]      the cards the last move played, took or moved
  7♥+     a card the last move brought to your hand
  Without colour (NO_COLOR) red suits (♦ ♥) are underlined.
  Cards read as rank then suit: 10♥ is the ten of hearts (TH)."""


def rules_text(rules: Rules) -> str:
    """The rules of ``rules`` in a few lines per topic (Rich markup)."""
    std = rules.standard
    goals = " / ".join(str(g) for g in rules.goals)
    seven = (
        "reveal the top [b]two[/b] cards of the draw pile: play one at once, the other goes "
        "back on top face up"
        if rules.seven_reveals == 2
        else "reveal the top card of the draw pile: play it at once (scrapped if it cannot be "
        "played)"
    )
    if rules.nine_to_deck:
        nine = "put a permanent on top of the draw pile"
    elif rules.nine_opponent_only:
        nine = "return an opponent's permanent to their hand (frozen for their next turn)"
    elif rules.nine_freezes:
        nine = "return a permanent to its controller's hand (frozen for their next turn)"
    else:
        nine = "return a permanent to its controller's hand"
    four = "the opponent discards two cards of their choice"
    if rules.random_fours:
        four = "the opponent discards two cards picked at random"
    eight = "points, or glasses: the opponent plays with their hand open to you"
    if rules.eight_one_off:
        eight += "; or a one-off scrapping the opponent's glasses"
    lines = [
        f"[b]Rules in play: {rules.name}[/b]",
        "",
        "[b]Goal[/b]  be the first to hold point cards worth your goal: "
        f"{rules.goals[0]} points with no king. A turn is one action: draw, or play a card.",
        f"[b]Kings[/b]  each king you control lowers your goal: {goals} "
        "for 0 / 1 / 2 / 3 / 4 kings" + (" (four kings win at once)." if std else "."),
        "",
        "[b]Each rank[/b]  A–10 may always be played for points, or to scuttle (destroy) a "
        "lower opponent point card (equal rank: lower suit, ♣ < ♦ < ♥ < ♠). One-offs:",
        "  A   scrap every point card on the table",
        "  2   scrap a permanent; or, from your hand, counter a one-off",
        "  3   take any card from the scrap",
        f"  4   {four}",
        "  5   draw two cards" + (" (up to the hand limit of 8)" if std else ""),
        "  6   scrap every permanent (kings, queens, glasses, jacks)",
        f"  7   {seven}",
        f"  8   {eight}",
        f"  9   {nine}",
        "  10  points or scuttle only"
        + ("; or block a scuttle (ten-blocks-scuttle)" if rules.ten_blocks else ""),
        "  J   steal an opponent's point card (a jack on it)",
        "  Q   protects your other cards from 2s, 9s and jacks; your one-offs cannot be countered",
        "  K   lowers your goal (above)",
        "",
        "[b]Counters[/b]  after any one-off the opponent may answer with a 2, and so on; the "
        "one-off happens only if an even number of 2s were played.",
    ]
    if std:
        lines.append(
            "[b]Standard rules[/b]  hand limit 8; a card returned by a 9 is frozen for a turn; "
            "a 4 may be played on an empty hand."
        )
    if rules.variants:
        lines.append("[b]Variants[/b]")
        lines.extend(f"  {v}: {VARIANT_RULES[v]}" for v in sorted(rules.variants))
    return "\n".join(lines)


class CuttleHelpScreen(HelpScreen):
    """The rules in play, then the keys; scrolls with the arrows."""

    def __init__(self, rules: Rules, ascii: bool, keys: str = TABLE_KEYS) -> None:
        super().__init__(ascii, keys)
        self.rules = rules

    def text(self) -> str:
        """Cuttle's rules (Rich markup), then the keys."""
        return f"{rules_text(self.rules)}\n\n{self.keys}"


def rules_screen(token: str, players: int, ascii: bool, keys: str) -> CuttleHelpScreen:
    """Cuttle's rules under the rules token ``token`` (the registry's ``GameUI.rules_help``;
    Cuttle is for two, so ``players`` changes nothing)."""
    return CuttleHelpScreen(Rules.parse(token), ascii, keys)
