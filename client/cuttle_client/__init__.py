"""cuttle_client: the Textual terminal client of cuttle-net.

- ``cuttle/`` and ``unisson/``: each game's own screens and controllers, one folder a
  game, reached through the registry ``games`` (docs/adding-a-game.md).  Cuttle's
  ``cuttle.controller`` is the seam: ``TableController`` is one player's seat (a view to
  draw, ``submit`` for moves); ``PracticeController`` plays a bot in process.
- ``tablehost``, ``tablewidgets``, ``helpscreen``, ``cardtext``: what every game's table
  shares (the host a controller draws on, the move log, the help screen, cards as styled
  text; ASCII with ``--ascii`` or ``CUTTLE_ASCII=1``).
- ``trio_guest``: trio in guest mode on Textual's asyncio loop, for the network session.
- ``app`` (``make_app``), ``lobby``, ``modals``: the screens; ``cuttle.tcss`` is the one
  stylesheet (its size classes come from the app's breakpoints).
- ``profile``: the player's name, kept in the config folder.
- ``cli``: the ``cuttle`` command (``cuttle_client.cli:main``; ``python -m cuttle_client``);
  each subcommand in its own module: ``cli_play`` (``cuttle play`` and ``cuttle`` alone, the
  lobby), ``cli_net`` (host, join), ``cli_lan``, ``cli_record``, ``cli_rules``, ``cli_arena``.

Only ``app`` and the screen modules import textual; ``cli_play`` imports it when it runs.
"""
