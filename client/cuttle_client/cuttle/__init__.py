"""The Cuttle table of the terminal client (2 players).

- ``cardtext``: Cuttle's cards as styled text.
- ``choices``: the legal moves as a tree (card, use, target) and the question asked.
- ``controller``: one seat at a table; ``PracticeController`` plays a bot in process.
- ``widgets`` and ``table``: the screen (``TableScreen``), sized for 80×24.
- ``help`` and ``variants``: the rules in play and the keys; choosing the variants.
- ``network``: the seat at a networked table; ``lesson``: the lessons' controller.
"""
