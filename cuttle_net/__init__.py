"""cuttle-net: Cuttle played peer to peer, with a cryptographic deal.

``cuttle_net`` holds the pure parts: the games (``games/``, one package per game: engine,
notation, bots), the deck protocol (``deck/``), the session (``session``) and the game
records with their verification (``records/``).  None of it does I/O or imports trio or
textual; the wire protocol (``cuttle_protocol``) and the client with the ``cuttle`` command
(``cuttle_client``) sit above it.
"""

__version__ = "0.1.0"
