"""Greedy's weights: ``bots.GreedyBot`` and its fast copy ``rule.QuickGreedy`` read them
from here."""

# Greedy's weights, in points (tuned in the arena against random bots, seed 7; measured
# on other seeds in benchmarks/README.md).
WIN = 1000.0  # an octave melded or completed: the game is won at once
REACH = 0.12  # a suit's worth: REACH × (ranks held + its longest sequence)², toward an octave
RUNS = 0.5  # a run held in hand mid-game: half its points (it can be melded later)
HORIZON = 2.0  # the end nears when the stock holds fewer than HORIZON cards a player
SHED = 3.0  # near the end, each card fewer than 3 in hand (the empty hand earns 10)
LAST_BONUS = 5.0  # emptying the stock on one's own turn makes one the last player (+5)
GIFT = 3.0  # emptying it on another's turn hands that player the bonus
ACE_MELD = 0.3  # a meld with an ace: each other seat discards (up to 4 counted) a card
SEVEN_MELD = 0.1  # a meld with a seven: each other seat may draw a card per card melded
