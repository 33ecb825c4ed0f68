"""The L'Unisson table of the terminal client (3 to 6 players).

- ``words``: moves, sequences and the question asked, in words, from one seat.
- ``choices``: the legal moves as a tree of keyboard choices.
- ``controller``: one seat at a table; ``PracticeController`` plays bots in process.
- ``widgets`` and ``table``: the screen (``UnissonTableScreen``), sized for 80×24.
"""
