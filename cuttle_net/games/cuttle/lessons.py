"""Cuttle's lessons (``cuttle learn``): one idea each, on a real position (classic rules).

Each lesson is data for ``cuttle_net.games.lessons``: the learner is seat 0 and the other
player's answers are scripted.  Positions are SPEC part 1 lines; ``+`` at the end of the
draw pile is every card the line places nowhere else.  RULINGS.md decides every point.
"""

from __future__ import annotations

from ..lessons import Course, Lesson, Step, card_words
from .cards import ALL_CARDS, card_text
from .engine import IllegalMove
from .moves import parse_move
from .position import parse_position

_DECLINE = ("decline",)

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "points",
        "Points",
        "classic 9 0 main 0 + 3C,6H,7D 2D,4H,8C,JC 5C,9S 4D,6C - - - -",
        (
            Step(
                "You have 14 points (5♣ and 9♠). Reach 21 and you win at once: choose the card "
                "that makes exactly 21, then 'points'.",
                ("points 7D",),
                "a card played as points adds its rank (ace 1 … 10) to your score.",
                "21 points: you win. Point cards count their rank; with no king, 21 wins.",
                wrong=(
                    ("points 6H", "6♥ makes 20, one short of 21. Which card makes 21?"),
                    ("points 3C", "3♣ makes 17. Which card makes 21?"),
                    ("draw", "drawing spends your turn, and 21 is in your hand already."),
                ),
            ),
        ),
    ),
    Lesson(
        "draw",
        "Drawing and passing",
        "classic 9 0 main 0 9D 3H 7C,TD 5S 6D,9H - - "
        "AC,AD,AH,AS,2C,2D,2H,2S,3C,3D,3S,4C,4D,4H,4S,5C,5D,5H,6C,6H,6S,7D,7H,7S,8C,8D,8H,8S,"
        "9C,9S,TC,TH,TS,JC,JD,JH,JS,QC,QD,QH,QS,KC,KD,KH,KS -",
        (
            Step(
                "A turn is one action. When no card in your hand helps, draw one: d. One card "
                "is left in the draw pile.",
                ("draw",),
                "draw takes the top card of the draw pile; it is your whole turn.",
                "You drew the 9♦. The draw pile is empty now: Sam could only pass, or play.",
                ("pass",),
                wrong=(("points 3H", "3 points; this step is about drawing."),),
            ),
            Step(
                "With the draw pile empty you may pass (d passes then). Pass.",
                ("pass",),
                "you may pass only when the draw pile is empty; drawing is then impossible.",
                "Two passes in a row: a third would end the game as a draw. Play a card to "
                "keep it going.",
                wrong=(("points 9D", "a fine move in a game; this step is about passing."),),
            ),
        ),
    ),
    Lesson(
        "scuttle",
        "Scuttles",
        "classic 9 0 main 0 + 5S,9C,TC 2D,5H,JC 3D,4S 4D,6C,9H - - - -",
        (
            Step(
                "Sam has 19 points: 2 more and Sam wins. Scuttle Sam's 9♥: a higher point card "
                "from your hand sends both cards to the scrap.",
                ("scuttle TC 9H",),
                "a scuttle needs a higher rank, or the same rank and a higher suit "
                "(♣ < ♦ < ♥ < ♠).",
                "10♣ and 9♥ went to the scrap: Sam is back to 10 points. A scuttle is not a "
                "one-off: no 2 can cancel it.",
                wrong=(
                    ("scuttle 9C 9H", ""),
                    ("scuttle 5S 9H", ""),
                    ("scuttle TC 4D", "that leaves them 15 points: scuttle their biggest card."),
                    ("points TC", "you would have 17, and they need 2 points on their turn."),
                ),
            ),
        ),
    ),
    Lesson(
        "kings",
        "Kings",
        "classic 9 0 main 0 + 4C,KS 3H,7S,9D 6H,8C 5D - - - -",
        (
            Step(
                "Each king you control lowers your goal: 21 points, then 14, 10, 7, 5 with 1 to "
                "4 kings. You have 14 points: play your king as a permanent.",
                ("permanent KS",),
                "a king scores nothing itself; it lowers your goal while it stays.",
                "One king: your goal is 14, and you have 14. You win. Lose the king and the "
                "goal goes back up.",
                wrong=(("points 4C", "18 is short of 21; with a king, 14 is enough."),),
            ),
        ),
    ),
    Lesson(
        "ace",
        "One-offs: the ace",
        "classic 9 0 main 0 + AH,9C 6S,JD 3S 5C,7H,8D - - - -",
        (
            Step(
                "Sam has 20 points. A one-off is a card played for its effect, then "
                "scrapped. Play your ace as a one-off: it scraps every point card on the table.",
                ("oneoff AH",),
                "the ace as a one-off scraps every point card, both sides.",
                "Every point card went to the scrap, theirs and your 3♠. After a one-off the "
                "other player may cancel it with a 2 (next lesson); Sam did not.",
                _DECLINE,
                wrong=(
                    ("scuttle 9C 8D", "that leaves them 12 points; the ace clears all three."),
                    ("points AH", "that adds 1 point to yours; their 20 stay."),
                ),
            ),
        ),
    ),
    Lesson(
        "counter",
        "The 2 counters",
        "classic 10 1 counter:AC 0 + 2C,6D 3H,5S 8H,TS 4C - - - -",
        (
            Step(
                "Sam played A♣ as a one-off: it would scrap every point card, your 18 points "
                "too. Counter it with your 2♣.",
                ("counter 2C",),
                "a 2 from your hand cancels a one-off while it waits, whoever's turn it is.",
                "The ace and your 2 went to the scrap; your points stay. A 2 counters only "
                "one-offs (not points, scuttles or permanents), and a 2 may counter a 2.",
                _DECLINE,
                wrong=(
                    ("decline", "then the ace scraps your 18 points. Counter it with the 2."),
                    ("counter 6D", ""),
                ),
            ),
        ),
    ),
    Lesson(
        "two",
        "The 2 as a one-off",
        "classic 9 0 main 0 + 2S,7C 4H,9D 6C 5D,8S - KH - -",
        (
            Step(
                "Sam's K♥ lowers Sam's goal to 14, and Sam has 13. Play your 2 as a one-off "
                "on the king: it scraps one permanent (a king, queen, glasses 8 or jack).",
                ("oneoff 2S KH",),
                "a 2 as a one-off scraps one permanent of your choice.",
                "The king went to the scrap: their goal is 21 again.",
                _DECLINE,
                wrong=(
                    ("points 2S", "their king stays, and they need 1 point to win."),
                    ("points 7C", "their king stays, and they need 1 point to win."),
                ),
            ),
        ),
    ),
    Lesson(
        "three",
        "The 3",
        "classic 9 0 main 0 + 3D,4C 5C,9H 5H,6S 7D - - TS,2H,6D -",
        (
            Step(
                "The 10♠ you need is in the scrap (s shows it). Play your 3 as a one-off: it "
                "takes one card from the scrap into your hand.",
                ("oneoff 3D",),
                "a 3 as a one-off takes one card from the scrap.",
                "Sam let it happen. Now choose from the scrap.",
                _DECLINE,
                wrong=(("points 3D", "3 points make 14; the 10♠ makes 21 next turn."),),
            ),
            Step(
                "Pick the 10♠ from the scrap.",
                ("pick TS",),
                "a 3 takes one card of your choice from the scrap; everyone sees which.",
                "The 10♠ is in your hand: next turn it makes 21.",
                wrong=(("pick 6D", "6 points make 17; the 10♠ makes 21."),),
            ),
        ),
    ),
    Lesson(
        "four",
        "The 4",
        "classic 9 0 main 0 + 4H,8D 9S,JS,QD 7C 6H - - - -",
        (
            Step(
                "Sam holds three cards you cannot see. Play your 4 as a one-off: Sam must "
                "discard two cards, of their choice.",
                ("oneoff 4H",),
                "a 4 as a one-off makes the other player discard two cards.",
                "Sam chose the J♠ and Q♦: both are in the scrap, face up. A 4 needs a card to "
                "take; the player hit chooses what to lose.",
                ("decline", "discard JS QD"),
                wrong=(("points 4H", "4 points; the lesson is the 4 as a one-off."),),
            ),
        ),
    ),
    Lesson(
        "discard",
        "When a 4 hits you",
        "classic 10 1 discard:4S 0 + 3D,5C,KS 2H,9C 6C,8D 7H - - - -",
        (
            Step(
                "Sam played a 4 on you: discard two cards, your choice. You have 14 points: "
                "keep what wins next turn.",
                ("discard 3D 5C",),
                "a king lowers your goal to 14; with 14 points it wins.",
                "You kept the K♠: next turn it makes your goal 14, and you have 14. When a 4 "
                "hits you, you choose what to lose.",
                wrong=(
                    ("discard 3D KS", "keep the king: with it your 14 points win next turn."),
                    ("discard 5C KS", "keep the king: with it your 14 points win next turn."),
                ),
            ),
        ),
    ),
    Lesson(
        "five",
        "The 5",
        "classic 9 0 main 0 + 5C 3C,7S 9D 8H - - - -",
        (
            Step(
                "Your hand is down to one card. Play the 5 as a one-off: you draw two cards.",
                ("oneoff 5C",),
                "a 5 as a one-off draws two cards (one if only one is left).",
                "You drew two cards: see your hand. One card spent, two gained.",
                _DECLINE,
                wrong=(("draw", "a draw brings one card; the 5 brings two."),),
            ),
        ),
    ),
    Lesson(
        "six",
        "The 6",
        "classic 9 0 main 0 + 2D,6C 4S,7H 5D 3H,9C - QS,KC - -",
        (
            Step(
                "Sam's K♣ makes Sam's goal 14 (Sam has 12) and Sam's Q♠ protects it from "
                "your 2. Play the 6 as a one-off: it scraps every permanent, both sides.",
                ("oneoff 6C",),
                "a 6 scraps all kings, queens, glasses and jacks on the table.",
                "King and queen went to the scrap: their goal is 21 again. A 6 also scraps "
                "jacks, so stolen point cards go back to their first owner.",
                _DECLINE,
                wrong=(
                    ("oneoff 2D KC", ""),
                    ("oneoff 2D QS", "that scraps the queen, but the king stays."),
                ),
            ),
        ),
    ),
    Lesson(
        "queens",
        "Queens",
        "classic 9 0 main 0 + AC,QH 5D,JC 7S,TS 6C - - - -",
        (
            Step(
                "Suppose Sam holds a jack: it would take your 10♠. Play your queen as a "
                "permanent: it protects your other cards from jacks, 2s and 9s.",
                ("permanent QH",),
                "a queen protects its owner's other cards from the 2, the 9 and the jack.",
                "Sam could not jack your 10♠, so Sam drew. A queen does not stop scuttles, "
                "aces, 4s or 6s, and does not protect itself.",
                ("draw",),
                wrong=(("points AC", "18 points, but a jack would take your 10♠."),),
            ),
        ),
    ),
    Lesson(
        "jacks",
        "Jacks",
        "classic 9 0 main 0 + 8C,JD 4H,9S 5H,6D 3C,TS - - - -",
        (
            Step(
                "You have 11 points. A jack played on the other player's point card makes it "
                "yours: take Sam's 10♠ with your J♦.",
                ("jack JD TS",),
                "a jack goes on a point card the other player controls, and takes it.",
                "The 10♠ is yours: 21 points, you win. Another jack would take it back; a 2 "
                "or 9 on the jack returns it.",
                wrong=(
                    ("jack JD 5H", ""),
                    ("jack JD 3C", "that takes 3 points: 14. The 10♠ makes 21."),
                    ("points 8C", "19 points: 2 short. The jack brings 10."),
                ),
            ),
        ),
    ),
    Lesson(
        "glasses",
        "Glasses (the 8)",
        "classic 9 0 main 0 + 3C,8H 2S,9D,KH 4D 7C - - - -",
        (
            Step(
                "An 8 is points, or a permanent: glasses. Play your 8 as a permanent to see "
                "Sam's hand.",
                ("permanent 8H",),
                "an 8 as a permanent shows you the other player's hand.",
                "Sam's hand is face up to you while your glasses stay, cards drawn later too.",
                wrong=(("points 8H", "8 points; as a permanent it shows you their hand."),),
            ),
        ),
    ),
    Lesson(
        "seven",
        "The 7",
        "classic 9 0 main 0 TH,+ 7S 4S,JH 5C,6H 8D,9C - - - -",
        (
            Step(
                "You have 11 points. Play your 7 as a one-off: it turns up the draw pile's top "
                "card, which you must play at once.",
                ("oneoff 7S",),
                "a 7 as a one-off reveals the top card of the draw pile; you play it at once.",
                "The 7 showed the 10♥ (in your choices now). It must be played at once.",
                _DECLINE,
                wrong=(("points 7S", "7 points make 18; try the 7's effect."),),
            ),
            Step(
                "Play the 10♥ the 7 turned up, as points.",
                ("points TH",),
                "after a 7 you play the revealed card, in any legal way.",
                "21 points: you win. A revealed card with no legal play goes to the scrap.",
                wrong=(("scuttle TH 9C", "that stops their 9, but as points it makes 21."),),
            ),
        ),
    ),
    Lesson(
        "nine",
        "The 9",
        "classic 9 0 main 0 + 5D,9H 3S,6C 7H 4C,9S - KD - -",
        (
            Step(
                "Sam's K♦ makes Sam's goal 14, and Sam has 13. Play your 9 as a one-off on the "
                "king: it goes back to Sam's hand.",
                ("oneoff 9H KD",),
                "a 9 returns one permanent (or a top jack) to its owner's hand.",
                "The king is back in Sam's hand: Sam's goal is 21 until Sam spends a turn to "
                "play it again. A 2 scraps for good; a 9 buys time.",
                _DECLINE,
                wrong=(("scuttle 9H 9S", ""),),
            ),
        ),
    ),
)

COURSE = Course(
    game="cuttle",
    lessons=LESSONS,
    cards=tuple(card_text(c) for c in ALL_CARDS),
    deck_field=5,
    placed=card_words,
    parse_position=parse_position,
    parse_move=parse_move,
    illegal=IllegalMove,
    others=("Sam",),
)
