"""L'Unisson's lessons (``cuttle learn --game unisson``): one idea each, on a real position.

Each lesson is data for ``cuttle_net.games.lessons``: three players, one deck, the learner
at seat 0, the other seats' answers scripted.  Positions are SPEC part 6 lines; ``+`` at the
end of the stock is every card the line places nowhere else.  UNISSON.md decides every point.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..lessons import Course, Lesson, Step
from .cards import ALL_FACES, face_text, parse_face
from .engine import IllegalMove
from .moves import parse_move
from .position import parse_position

_STOCK = 10  # the stock's field in a position line


def _any(verb: str, cards: str) -> tuple[str, ...]:
    """``verb`` with each of ``cards`` (a forced discard: any card of the hand passes)."""
    return tuple(f"{verb} {c}" for c in cards.split())


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "turn",
        "A turn: two actions",
        "unisson 3 1 2 1 0 0 main 0 - + KC,JD,8H,9S 8C,9D,TC,QS 7D,QC,KH,AS JH,TS,QD,8S",
        (
            Step(
                "Your turn holds up to two actions: draw, take, discard, meld or extend. "
                "First action: draw a card from the stock (d).",
                ("draw",),
                "draw takes the stock's top card into your hand.",
                "One action done, one left (the line under the range counts them).",
                wrong=(("pass", "pass ends your turn; you have two actions to use."),),
            ),
            Step(
                "Second action: discard the Q♠ onto the range (x). After two actions your turn "
                "ends by itself.",
                ("discard QS",),
                "discard puts a card of your hand face up in the range.",
                "Two actions: your turn ended and the next player's began. Pass (p) ends a "
                "turn early.",
                wrong=(("pass", "pass would end your turn; discard the Q♠ instead."),),
            ),
        ),
    ),
    Lesson(
        "range",
        "Taking from the range",
        "unisson 3 1 2 1 0 0 main 0 - + JH,KC,9C,QD 7S,8D,9H,TH 7D,QC,KH,AS 8C,TS,JD,8S",
        (
            Step(
                "The range is the four cards face up in the middle. Take the J♥ (t): it goes "
                "with your 9♥ and 10♥.",
                ("take JH",),
                "take moves a range card into your hand; the stock's top card replaces it.",
                "The J♥ is yours; the stock's top card took its place, face up, for everyone.",
                wrong=(("take KC", "the K♣ goes with nothing of yours; the J♥ does."),),
            ),
            Step(
                "Now pass (p): a turn may stop after one action.",
                ("pass",),
                "pass ends your turn, whatever actions are left.",
                "Your turn ended after one action.",
            ),
        ),
    ),
    Lesson(
        "melds",
        "Melds",
        "unisson 3 1 2 1 0 0 main 0 - + KC,JD,8H,7D 8D,9S,TS,JS,QS QC,KH,AS,9C JH,TH,QD,8S,TC",
        (
            Step(
                "A meld is three or more cards of one suit in a row (7 8 9 10 J Q K A) laid "
                "face up in front of you. Meld 9♠ 10♠ J♠ (m).",
                ("meld 9S TS JS",),
                "a meld is 3 or more cards of one suit, consecutive; the ace is high only.",
                "Your sequence is on the table: at the end it scores its length.",
                wrong=(
                    ("meld 9S TS JS QS", "that is a meld too, but keep the Q♠ for the next step."),
                    ("extend 1 QS", ""),
                ),
            ),
            Step(
                "Second action: extend your sequence with the Q♠ (e): one card at either end.",
                ("extend 1 QS",),
                "extend adds one card of your hand at either end of one of your own sequences.",
                "9♠ to Q♠: four cards. Each card added is one action. An octave (all eight of a "
                "suit) ends the game at once and wins it.",
                wrong=(("extend 1 8D", ""),),
            ),
        ),
    ),
    Lesson(
        "aces",
        "The ace's effects",
        "unisson 3 1 2 1 0 0 main 0 - 7H,TD,+ AC,KC,JD,QH 8C,9H,KS,AD QC,KH,AS,9C JH,TH,QD,8S",
        (
            Step(
                "Effects are free: they never count as actions. Discard your A♦ (x): a "
                "discarded ace lets you draw up to two cards.",
                ("discard AD",),
                "discard an ace: you may draw up to two cards at once, one at a time.",
                "Now draw, one card at a time, or stop.",
                wrong=(("discard KS", "a king has no effect; discard the ace."),),
            ),
            Step("Draw a card (d): free.", ("draw",), "the ace's draws are free.", "One drawn."),
            Step(
                "Draw the second (d).",
                ("draw",),
                "up to two: stop (s) ends the draws early.",
                "Two free cards, and you still have your second action.",
            ),
            Step(
                "Take the A♣ from the range (t): a taken ace makes you discard two cards.",
                ("take AC",),
                "take an ace: you must at once discard two cards of your hand.",
                "Now discard two cards, one at a time (the ace itself may be one).",
                wrong=(("take KC", "take the A♣, to see the other ace effect."),),
            ),
            Step(
                "Discard a card (x): your choice.",
                _any("discard", "8C 9H KS AC 7H TD"),
                "a taken ace makes you discard two cards.",
                "One discarded: these discards have no effect of their own.",
            ),
            Step(
                "Discard another.",
                _any("discard", "8C 9H KS AC 7H TD"),
                "a taken ace makes you discard two cards.",
                "Two cards gone, your choice. Later: a new meld holding an ace makes every other "
                "player discard as many cards as it has.",
            ),
        ),
    ),
    Lesson(
        "sevens",
        "The seven's effects",
        "unisson 3 1 2 1 0 0 main 0 - 9D,JS,+ 7S,KC,JD,QH 7D,8C,9H,KS QC,KH,AS,9C JH,TH,QD,8S",
        (
            Step(
                "Take the 7♠ from the range (t): a taken seven lets you draw one card at once.",
                ("take 7S",),
                "take a seven: you may draw one card at once (free).",
                "Draw (d) or stop (s).",
                wrong=(("take KC", "take the 7♠, to see its effect."),),
            ),
            Step(
                "Draw your free card (d).",
                ("draw",),
                "a taken seven's draw is free.",
                "One free card. Your second action is left.",
            ),
            Step(
                "Discard your 7♦ (x): a discarded seven makes you discard one more card.",
                ("discard 7D",),
                "discard a seven: you must discard one more card at once.",
                "Now one more discard.",
                wrong=(("discard KS", "discard the 7♦, to see its effect."),),
            ),
            Step(
                "Discard one more card (x).",
                _any("discard", "7S 8C 9H KS JS"),
                "a discarded seven costs one more card.",
                "Two cards gone for one seven. Next: a new meld holding a seven lets every other "
                "player draw up to as many cards as it has.",
            ),
        ),
    ),
    Lesson(
        "meld-effects",
        "Melds that reach the others",
        "unisson 3 1 2 1 0 0 main 0 - AD,+ KC,JH,8S,9C 7H,8H,9H,QS,KS,AS 8C,9D,TC,JD QC,KD,7D,TS",
        (
            Step(
                "A new meld holding a seven lets every other player draw up to as many cards "
                "as it has. Meld 7♥ 8♥ 9♥ (m), then see what Ada and Ben do.",
                ("meld 7H 8H 9H",),
                "a new sequence holding a seven: the others may draw up to its length.",
                "Ada drew one card and stopped; Ben drew none. Sevens help the others.",
                ("draw", "stop", "stop"),
                wrong=(("meld QS KS AS", "that is the next step: the seven first."),),
            ),
            Step(
                "A new meld holding an ace makes every other player discard as many cards as "
                "it has. Meld Q♠ K♠ A♠ (m).",
                ("meld QS KS AS",),
                "a new sequence holding an ace: the others must discard its length.",
                "Ada and Ben each discarded three cards, their choice, into the range. "
                "Extending a sequence never triggers these effects.",
                (
                    *("discard 8C", "discard 9D", "discard TC"),
                    *("discard QC", "discard KD", "discard 7D"),
                ),
            ),
        ),
    ),
    Lesson(
        "end",
        "The end and the score",
        "unisson 3 1 1 20 0 0 main 0 - KD 7C,JD,QS,AD 8H,9H,TH,QH "
        "8C,9D,TD,QD,JS,7D,AH/7S-TS 9C,TC,KS,AS,8D,7H,JH,KH/JC-AC",
        (
            Step(
                "One card is left in the stock. First, meld 8♥ 9♥ 10♥ (m): melded, it scores; "
                "left in your hand it would cost you.",
                ("meld 8H 9H TH",),
                "a meld is 3 or more cards of one suit, consecutive.",
                "Melded. Now empty the stock.",
            ),
            Step(
                "Draw the last card (d). Whoever empties the stock on their turn becomes the "
                "last player: everyone else plays one more turn, then the game ends.",
                ("draw",),
                "the stock's last card makes the player whose turn it is the last player.",
                "Everyone had a last turn: the game is over. Scores: a melded sequence +n, one "
                "left in hand -n (an octave doubles its part), +10 for an empty hand, +5 for "
                "the last player; the range's sequences count for everyone.",
                ("pass", "pass"),
            ),
        ),
    ),
)


def placed(fields: Sequence[str]) -> set[str]:
    """The faces a one-deck line places: range, hands and every card of each sequence."""
    out: set[str] = set()
    for f in [fields[_STOCK], fields[_STOCK + 1], *fields[_STOCK + 2 :]]:
        for w in re.split(r"[,/]", f):
            w = w.rstrip("*")
            if "-" in w and len(w) > 1:
                lo, hi = (parse_face(x) for x in w.split("-"))
                out.update(face_text(x) for x in range(lo, hi + 1))
            elif w not in ("-", "+") and not w.startswith("?"):
                out.add(w)
    return out


COURSE = Course(
    game="unisson",
    lessons=LESSONS,
    cards=tuple(face_text(f) for f in ALL_FACES),
    deck_field=_STOCK,
    placed=placed,
    parse_position=parse_position,
    parse_move=parse_move,
    illegal=IllegalMove,
    others=("Ada", "Ben", "Cy", "Dee", "Eve"),
)
