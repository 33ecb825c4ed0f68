"""Game records: the header every record starts with (``header``), how a game ended
(``ending``), the record file format (``record``, ``replay``) and its independent check
(``verify``).

Two layers share this folder: ``header`` and ``ending`` are the vocabulary of a game, below
the session (which imports them); ``record``, ``replay`` and ``verify`` read and write
sessions, above it.  No module here imports a game: they ask the game module.
"""
