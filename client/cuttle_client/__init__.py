"""cuttle_client: the Textual terminal client of cuttle-net.

- ``controller``: the seam.  ``TableController`` is one player's seat (a view to draw,
  ``submit`` for moves); ``PracticeController`` plays a bot in process.  Its docstring
  says how a network controller plugs in.
- ``trio_guest``: trio in guest mode on Textual's asyncio loop, for the network session.
- ``app`` (``make_app``), ``lobby``, ``table``, ``modals``, ``widgets``: the screens;
  ``help``: the rules in play and the keys; ``cuttle.tcss`` is the one stylesheet (its
  size classes come from the app's breakpoints).
- ``profile``: the player's name, kept in the config folder.
- ``choices``: the legal moves as a tree (card, use, target) and the question asked.
- ``cardtext``: cards as styled text; ASCII with ``--ascii`` or ``CUTTLE_ASCII=1``.
- ``cli``: the ``cuttle`` command (``cuttle_client.cli:main``; ``python -m cuttle_client``);
  each subcommand in its own module: ``cli_play`` (``cuttle play`` and ``cuttle`` alone, the
  lobby), ``cli_net`` (host, join), ``cli_lan``, ``cli_record``, ``cli_rules``, ``cli_arena``.

Only ``app`` and the screen modules import textual; ``cli_play`` imports it when it runs.
"""
