"""cuttle-net: Cuttle played peer to peer, with a cryptographic deal.

``cuttle_net`` holds the pure parts: the rules engine, the notation and the
deck protocol.  None of it does I/O or imports trio or textual.
"""

__version__ = "0.1.0"
