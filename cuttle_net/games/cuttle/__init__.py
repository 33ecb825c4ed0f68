"""Cuttle: cards, the rules engine (``engine``, ``rules``), the notation (``moves``,
``position``), the card motions a move makes (``motions``), explanations (``explain``,
``describe``), the bots (``bots``, ``search``, ``playout``) and bot matches (``arena``).
"""

NAME = "cuttle"
