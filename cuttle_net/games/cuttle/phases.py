"""What kind of decision a game of Cuttle waits for (its phase), and who makes it.

Kept apart from ``engine`` so the modules that explain or describe a game (``explain``,
``describe``) read these names without importing the engine, which imports them.
"""

MAIN, COUNTER, DISCARD, PICK, SEVEN, BLOCK, OFFER, OVER = range(8)
PHASE_NAMES = ("main", "counter", "discard", "pick", "seven", "block", "offer", "over")

CHANCE = 2  # to_act when nobody decides: random-fours picks the discards at random
NOBODY = -1  # to_act when the game is over
