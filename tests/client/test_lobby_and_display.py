"""The lobby, the command line, and cards readable without colour or suit glyphs."""

from __future__ import annotations

import argparse
import re
import socket

import pytest
from cuttle_client import cli, cli_play
from cuttle_client.app import Practice, Settings, make_app
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.lobby import LobbyScreen
from cuttle_client.network import ConnectScreen
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Input, Select

from cuttle_net.games.cuttle.rules import Rules
from tests.client.helpers import keys, practice_app, run, screen_text, until

GLYPHS = re.compile("[♣♦♥♠]")


def test_join_from_the_lobby_reports_a_refused_connection_plainly() -> None:
    app = make_app(Settings(bot_delay=0))
    with socket.socket() as s:  # a loopback port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def body(pilot: Pilot) -> None:
        assert "LAN discovery is off" in screen_text(app)
        await keys(pilot, "j")
        assert "Type the host's address here" in str(app.screen.query_one("#notice").render())
        await pilot.click("#address")
        await keys(pilot, *f"127.0.0.1:{port}", "enter")
        assert isinstance(app.screen, ConnectScreen)
        await until(pilot, lambda: "could not connect" in screen_text(app))
        assert f"could not connect to 127.0.0.1:{port}" in screen_text(app)
        await keys(pilot, "escape")
        assert isinstance(app.screen, LobbyScreen)

    run(app, body)


def test_host_from_the_lobby_shows_where_to_join_and_can_be_cancelled() -> None:
    app = make_app(Settings(bot_delay=0))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "h")
        assert isinstance(app.screen, ConnectScreen)
        await until(
            pilot,
            lambda: "1 more player" in screen_text(app) or "Cannot listen" in screen_text(app),
        )
        text = screen_text(app)
        # Every address of the machine, loopback last, each with the exact command.
        # (or, the default port taken by another program on the machine, which says so)
        listed = "cuttle join 127.0.0.1:4454   (from this machine)" in text
        assert (
            listed and "cuttle join cuttle:" in " ".join(text.split())
        ) or "Cannot listen on port 4454" in text, text
        await keys(pilot, "escape")
        assert isinstance(app.screen, LobbyScreen)

    run(app, body)


def test_practice_is_the_default_in_the_lobby() -> None:
    app = make_app(Settings(bot_delay=0))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "enter")  # the practice button has the focus
        assert isinstance(app.screen, TableScreen)
        assert "practice against Easy bot · classic" in screen_text(app)

    run(app, body)


def test_a_key_pressed_as_the_lobby_opens_is_not_typed_into_the_name() -> None:
    """Composed, the lobby focused its first field (the name) until on_mount moved the focus
    to Practice: a key pressed meanwhile (a new player's `j` on a loaded machine) became
    part of the name (seen in tmux: "Alicej")."""

    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        await app.push_screen(LobbyScreen("Ann", lan=False))
        # Composed, not yet settled: what a key pressed now would reach.
        assert app.screen.focused is app.screen.query_one("#practice")
        await keys(pilot, "j")
        assert app.screen.query_one("#name").value == "Ann"
        assert app.screen.focused is app.screen.query_one("#address")

    run(app, body)


def test_the_lobby_names_learn_whole_at_60_columns() -> None:
    """At 60×20 the Practice row was cut at 'Learn' (its key lost): the bot's list was
    sized for 'greedy (default)' and the button for a longer word."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        row = next(x for x in screen_text(app).splitlines() if "Practice (p)" in x)
        assert "against easy (default)" in row and "Learn (e)" in row, row

    run(app, body, size=(60, 20))


def test_the_lobby_title_and_rows_are_whole_at_60_columns() -> None:
    """At 60×20 the title was cut after "L'Unis", the Host row's hint after "(v: vari" and
    the Join row lost Watch (w) (issue 26)."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        lines = screen_text(app).splitlines()
        assert lines[0].strip() == "cuttle · Cuttle (2 players) · L'Unisson (3 to 6 players)"
        host = next(x for x in lines if "Host (h)" in x)
        assert host.split() == ["Host", "(h)", "rules", "classic", "▼", "(v:", "variants)"], host
        join = next(x for x in lines if "Join (j)" in x)
        assert join.rstrip().endswith("Watch (w)"), join
        await keys(pilot, "v", "down", "space", "enter")  # joker: one variant, by name
        host = next(x for x in screen_text(app).splitlines() if "Host (h)" in x)
        assert host.rstrip().endswith("+joker (v)"), host

    run(app, body, size=(60, 20))


def test_g_opens_the_list_of_games() -> None:
    """g said "Game" in the footer and only focused the list: it opens it (issue 26)."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "g")
        assert app.lobby.query_one("#game", Select).expanded
        await keys(pilot, "down", "enter")
        assert app.lobby.game == "unisson"

    run(app, body)


def test_ascii_mode_shows_no_suit_glyphs() -> None:
    app = practice_app(seed=7, ascii=True)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "1")  # a card's uses, in words
        await keys(pilot, "escape", "d")  # a move in the log
        text = screen_text(app)
        assert not GLYPHS.search(text), text
        assert re.search(r"\b[A2-9TJQK][CDHS]\b", text)
        await keys(pilot, "question_mark")
        assert not GLYPHS.search(screen_text(app))

    run(app, body)


def test_cuttle_ascii_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from cuttle_client.cardtext import ascii_wanted

    monkeypatch.setenv("CUTTLE_ASCII", "1")
    assert ascii_wanted()
    monkeypatch.setenv("CUTTLE_ASCII", "0")
    assert not ascii_wanted() and ascii_wanted(True)


def test_no_color_keeps_rank_and_suit_in_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = practice_app(seed=1)
    assert app.no_color  # Textual then draws in monochrome

    async def body(pilot: Pilot) -> None:
        assert "Hand 1:A♥ 2:3♦ 3:6♥ 4:10♦ 5:K♦" in screen_text(app)

    run(app, body)


def test_command_line_opens_the_lobby_or_a_table(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[tuple[bool, Practice | None]] = []

    def fake_run_app(args: argparse.Namespace, practice: Practice | None) -> int:
        opened.append((args.ascii, practice))
        return 0

    monkeypatch.setattr(cli_play, "_run_app", fake_run_app)
    assert cli.main([]) == 0
    assert cli.main(["--ascii"]) == 0
    args = ["play", "--bot", "random", "--rules", "standard", "--variant", "joker"]
    assert cli.main([*args, "--seed", "3", "--ascii"]) == 0
    assert opened[:2] == [(False, None), (True, None)]
    assert opened[2] == (True, Practice("random", "standard+joker", 3, "cuttle", 2))
    assert cli.main(["play", "--variant", "nine-frozen", "--variant", "nine-to-deck"]) == 2
    # The default bot is the lobby's, under its name: `cuttle play` met "Greedy bot" and
    # the lobby "Easy bot" (the same bot, two names for a newcomer).
    assert cli.main(["play", "--seed", "3"]) == 0
    assert opened[-1][1] == Practice("easy", "classic", 3, "cuttle", 2)


def alice_on_the_lan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The LAN browser replaced (tests never multicast): it finds Alice's Cuttle game at
    127.0.0.1:4454, then waits."""
    from contextlib import asynccontextmanager

    import trio
    from cuttle_protocol.shells import mdns as lan
    from cuttle_protocol.wire import Announcement

    game = lan.LanGame(
        "Alice._cuttle._tcp.local.", Announcement("Alice", 4454, Rules()), ("127.0.0.1",), 0.0
    )

    @asynccontextmanager
    async def fake_browse(**_):
        async def updates():
            yield [game]
            await trio.sleep_forever()

        yield updates()

    monkeypatch.setattr(lan, "browse", fake_browse)


def test_lan_browsing_and_a_network_game_share_the_one_trio_run(monkeypatch) -> None:
    """The lobby lists LAN games (zeroconf replaced: tests never multicast) while a join
    runs beside it, both as tasks of the app's single trio run."""
    alice_on_the_lan(monkeypatch)
    app = make_app(Settings(bot_delay=0, lan=True))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def body(pilot: Pilot) -> None:
        await until(
            pilot, lambda: "Alice · 127.0.0.1:4454 · Cuttle classic · seat free" in screen_text(app)
        )
        await pilot.click("#address")
        await keys(pilot, *f"127.0.0.1:{port}", "enter")
        await until(pilot, lambda: "could not connect" in screen_text(app))
        assert f"could not connect to 127.0.0.1:{port}" in screen_text(app)
        await keys(pilot, "escape")
        assert "Alice" in screen_text(app)  # still browsing

    run(app, body)
    assert app.trio.done


def test_the_highlighted_lan_game_stays_highlighted_as_the_list_changes(monkeypatch) -> None:
    """A table's seats change as players sit down, and games come and go: the game the
    player highlighted stays highlighted, so Enter joins what they see."""
    from contextlib import asynccontextmanager

    import trio
    from cuttle_protocol.shells import mdns as lan
    from cuttle_protocol.wire import Announcement
    from textual.widgets import ListView

    from cuttle_net.games.interface import game_module

    rules = game_module("unisson").parse_rules("one-deck", 4)

    def table(name: str, taken: int) -> lan.LanGame:
        a = Announcement(name, 4454, rules, taken, game="unisson", seats=4)
        return lan.LanGame(f"{name}._cuttle._tcp.local.", a, ("192.0.2.7",), 0.0)

    lists = [
        [table("Bob", 1), table("Cy", 1)],
        [table("Ann", 3), table("Bob", 1), table("Cy", 2)],  # Ann comes first, Cy fills
        [table("Bob", 1)],  # the highlighted game is gone
    ]
    step = trio.Event()

    @asynccontextmanager
    async def fake_browse(**_):
        async def updates():
            nonlocal step
            for games in lists:
                yield games
                await step.wait()
                step = trio.Event()
            await trio.sleep_forever()

        yield updates()

    async def next_list() -> None:
        step.set()

    monkeypatch.setattr(lan, "browse", fake_browse)
    app = make_app(Settings(bot_delay=0, lan=True))

    async def body(pilot: Pilot) -> None:
        listing = app.lobby.query_one("#lan", ListView)
        await until(pilot, lambda: "Cy · 192.0.2.7:4454" in screen_text(app))
        await keys(pilot, "l")
        await until(pilot, lambda: listing.has_focus)  # Widget.focus is a call_later
        await keys(pilot, "down")
        assert listing.index == 1  # Cy
        app.trio.start_task(next_list)
        await until(pilot, lambda: "3 of 4 seats taken" in screen_text(app))
        await until(pilot, lambda: listing.index is not None)
        assert listing.highlighted_child.service.startswith("Cy.")  # type: ignore[union-attr]
        assert "Cy · 192.0.2.7:4454 · L'Unisson one-deck · 2 of 4 seats taken" in screen_text(app)
        app.trio.start_task(next_list)
        await until(pilot, lambda: "Cy ·" not in screen_text(app))
        await until(pilot, lambda: listing.index == 0)  # the list has focus: its first game

    run(app, body)


def test_quitting_while_the_lan_list_changes_ends_quietly(monkeypatch) -> None:
    """Quitting ``cuttle host`` withdraws our own announcement, and the lobby's browser
    reports that while the lobby's widgets are being taken down: the update is dropped, not
    a MountError traceback (issue 26, defect 1)."""
    from textual.widgets import ListView

    alice_on_the_lan(monkeypatch)
    app = make_app(Settings(bot_delay=0, lan=True))
    late: list[bool] = []

    def withdrawn(listing: ListView) -> None:  # the browser's news as the list goes
        app.lobby._show_games([])
        late.append(True)

    monkeypatch.setattr(ListView, "_on_unmount", withdrawn, raising=False)

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "Alice · 127.0.0.1:4454" in screen_text(app))
        await app.action_quit()

    run(app, body)
    assert late and app.trio.done


def test_the_invitation_is_copied_whole_and_joins_from_its_wrapped_rows(tmp_path) -> None:
    """The invitation is longer than 80 columns: the screen wraps it, and a copy of its rows
    was broken (issue 26, defect 5).  It has its own widget (a selection copies it whole),
    ``c`` copies it, and its wrapped rows pasted in the Join field or typed after
    ``cuttle join`` still join."""
    from cuttle_client import cli_net
    from cuttle_client.app import NetworkLaunch
    from cuttle_protocol.play import NetPlan
    from cuttle_protocol.wire import Invitation
    from textual import events
    from textual.widgets import Input, Static

    plan = NetPlan("host", "Ann", port=0, bind="127.0.0.1", announce=False)
    app = make_app(Settings(bot_delay=0, data_dir=tmp_path), network=NetworkLaunch(plan))
    rows: list[str] = []

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        shown = app.screen.query_one("#invitation", Static)
        shown.text_select_all()  # what a double-click does
        command = app.screen.get_selected_text()
        assert command is not None and command.startswith("cuttle join cuttle:")
        invitation = "".join(command.split()[2:])  # shown in groups (it fits 80 columns)
        Invitation.decode(invitation)
        assert all(len(row) <= 80 for row in screen_text(app).splitlines())
        await keys(pilot, "c")
        assert app.clipboard == f"cuttle join {invitation}"  # in one piece, for a chat
        rows.extend([command[:-5], command[-5:]])  # the screen's rows, copied: cut inside
        await keys(pilot, "escape")
        field = app.lobby.query_one("#address", Input)
        field.focus()
        field.post_message(events.Paste("\n".join(rows)))
        await pilot.pause()
        assert Invitation.decode(field.value) == Invitation.decode(invitation)

    run(app, body)
    typed = cli.build_parser().parse_args(["join", *rows[0].split()[2:], rows[1]])
    assert Invitation.decode(cli_net.plan_from(typed).address)


@pytest.mark.parametrize("game", ["cuttle", "unisson"])
def test_practice_records_name_the_player(game: str, tmp_path) -> None:
    """The table says "You"; the record names the person (issue 26, defect 13: practice
    records named the player "You")."""
    from cuttle_net.records.record import parse_record

    app = make_app(Settings(bot_delay=0, data_dir=tmp_path))

    async def body(pilot: Pilot) -> None:
        from textual.widgets import Select

        app.lobby.query_one("#game", Select).value = game
        await pilot.pause()
        app.lobby.action_practice()
        await until(pilot, lambda: hasattr(app.screen, "controller"))
        c = app.screen.controller  # type: ignore[attr-defined]
        if game == "cuttle":
            c.concede()
        while c.ending is None:
            if c.my_turn:
                c.submit(c.view.legal_moves()[0])
            await pilot.pause()
        await until(pilot, lambda: c.saved is not None)
        assert parse_record(c.saved.read_text()).tags[f"Seat{c.seat}"] == "Ann"

    run(app, body)


def test_the_bots_are_listed_weakest_first_with_the_default_named() -> None:
    """The lobby read 'easy, medium, hard, greedy, random', greedy (easy's other name) last
    but one and the default (issue 26, defect 7)."""
    from textual.widgets import Select

    from cuttle_net.games.cuttle.bots import BOTS
    from cuttle_net.games.unisson.bots import BOTS as UNISSON_BOTS

    app = make_app(Settings(bot_delay=0))
    seen: dict[str, list[str]] = {}

    async def body(pilot: Pilot) -> None:
        for game in ("unisson", "cuttle"):
            app.lobby.query_one("#game", Select).value = game
            await pilot.pause()
            bot = app.lobby.query_one("#bot", Select)
            seen[game] = [str(label) for label, _ in bot._options if _ is not Select.BLANK]
            seen[game + " chosen"] = [str(bot.value)]
        await keys(pilot, "p")
        assert app.screen.controller.names[1] == "Easy bot"  # type: ignore[attr-defined]

    run(app, body)
    assert seen["cuttle"] == ["random", "easy (default)", "medium", "hard"]
    assert seen["unisson"] == ["random", "easy (default)", "medium", "hard"]
    assert seen["cuttle chosen"] == ["easy"] and seen["unisson chosen"] == ["easy"]
    assert set(BOTS) == {"random", "easy", "medium", "hard", "greedy"}  # greedy is easy
    assert set(UNISSON_BOTS) == {"random", "easy", "medium", "hard", "greedy"}


def test_every_key_of_the_lobby_footer_shows_at_80_columns() -> None:
    """At 80×24 the footer cut "? Rules" (the palette's key took the room) and never showed
    "^q Quit" (the app's own ctrl+q, hidden, stood in for the lobby's): issue 26."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        # The footer is drawn a few frames after the lobby (blank then, under load).
        await until(pilot, lambda: bool(screen_text(app).splitlines()[-1].strip()))
        footer = screen_text(app).splitlines()[-1]
        shown = [
            b
            for b in LobbyScreen.BINDINGS
            if isinstance(b, Binding) and b.show and b.action != "leave_field"  # in a field
        ]
        assert len(shown) >= 9
        for binding in shown:
            key = app.get_key_display(binding)
            assert f" {key} {binding.description} " in f"{footer} ", (key, footer)

    run(app, body)


def test_a_long_invitation_is_shown_in_groups_that_wrap_whole_at_80_columns() -> None:
    """Three addresses make an invitation of about 90 characters: shown as one word it was
    folded at column 80 in the middle of its letters; in groups, a row ends between two."""
    import io

    from cuttle_client.network import in_groups
    from cuttle_protocol.wire import Invitation
    from rich.console import Console

    addresses = (("198.51.100.7", 4454), ("2001:db8::1", 4454), ("192.168.1.20", 4454))
    invitation = Invitation.for_key(bytes(32), addresses).encode()
    command = f"cuttle join {invitation}"
    assert len(command) > 80
    shown = in_groups(command)
    assert "".join(shown.split()[2:]) == invitation
    console = Console(width=80, file=io.StringIO())
    with console.capture() as captured:
        console.print(shown, markup=False, highlight=False)
    rows = captured.get().splitlines()
    assert len(rows) > 1 and all(len(row) <= 80 for row in rows)
    assert [w for row in rows for w in row.split()] == shown.split()  # no group cut in two
    assert Invitation.decode(" ".join(rows).split(" ", 2)[2]) == Invitation.decode(invitation)


def test_esc_and_a_key_sent_together_are_the_two_keys(tmp_path) -> None:
    """A terminal sends Esc and a key right after it as alt+key (tmux's send-keys Escape w
    on the seat screen opened no chat): no screen binds alt keys, so it is Esc, then the
    key.  A binding that does take an alt key keeps it (the Input's alt+backspace)."""
    from cuttle_client.app import _escape_then
    from cuttle_client.played import PlayedScreen

    app = make_app(Settings(bot_delay=0, data_dir=tmp_path))

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("alt+r")  # Esc (nothing in the lobby), then r: the games played
        await until(pilot, lambda: isinstance(app.screen, PlayedScreen))

    run(app, body)
    assert _escape_then("alt+w", {}) == ("escape", "w")
    assert _escape_then("alt+b", {"alt+b": 1}) is None  # taken by a binding
    assert _escape_then("alt+left", {}) is None
    assert _escape_then("w", {}) is None


def test_escape_leaves_a_lobby_field_and_the_lobby_keys_work_again() -> None:
    """In tmux: after `j` or `w` with nothing typed the cursor is in the Join field, where
    Esc did nothing and the footer showed only ^q: `l` then typed "l" into the address."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        assert "Leave field" not in screen_text(app)  # no field focused: not offered
        await keys(pilot, "w")
        assert app.focused is lobby.query_one("#address")
        assert "esc Leave field" in screen_text(app)  # the way out is shown
        await keys(pilot, "escape")
        assert app.focused is lobby.query_one("#join")
        await keys(pilot, "l")  # a lobby key again, not a letter in the field
        assert lobby.query_one("#address", Input).value == ""
        assert "No game found on your network yet" in screen_text(app)

    run(app, body)


def test_the_name_field_shows_the_name_kept_after_a_refusal_or_esc(tmp_path) -> None:
    """In tmux: a name refused (empty, or over 32 characters) stayed in its field (or the
    field showed its placeholder "your name") while the games went on under the old one."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann", config_dir=tmp_path))

    async def body(pilot: Pilot) -> None:
        lobby = app.screen
        field = lobby.query_one("#name", Input)
        await keys(pilot, "n", "backspace", "backspace", "backspace", "enter")
        assert "Name not changed (still Ann)" in screen_text(app)
        assert field.value == "Ann"
        await keys(pilot, "n", *"W" * 40, "enter")
        assert "Name not changed (still Ann)" in screen_text(app)
        assert field.value == "Ann"
        await keys(pilot, "n", *"xyz", "escape")  # changed one's mind: nothing kept
        assert field.value == "Ann" and app.focused is lobby.query_one("#practice")
        await keys(pilot, "n", "backspace", "backspace", "backspace", *"Bea", "enter")
        await keys(pilot, "n", *"zz", "escape")
        assert field.value == "Bea"  # the name kept is the one last changed to

    run(app, body)


def test_a_port_in_use_says_what_to_do_instead(tmp_path) -> None:
    """In tmux, hosting while another program held 4454 ended on "Cannot listen on port
    4454: Address already in use" and Esc, so a new player was left with nothing to try: the
    words name another port, where to type it (the lobby's Host row) or give it."""
    from cuttle_client.app import NetworkLaunch
    from cuttle_client.progress import listen_words
    from cuttle_protocol.play import NetPlan

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        plan = NetPlan(
            "host", "Ann", port=port, bind="127.0.0.1", announce=False, config_dir=tmp_path
        )
        app = make_app(Settings(bot_delay=0, data_dir=tmp_path), network=NetworkLaunch(plan))

        async def body(pilot: Pilot) -> None:
            await until(pilot, lambda: "Cannot listen" in screen_text(app))
            text = " ".join(screen_text(app).split())
            assert f"Cannot listen on port {port}: Address already in use" in text
            assert f"host on another port, {port + 1} say: in the lobby's Host row (o)" in text
            assert f"or with: cuttle host --port {port + 1}" in text

        run(app, body)
    # Another failure has no such advice (the headless `cuttle host` says the same words).
    other = listen_words(80, PermissionError(13, "Permission denied"))
    assert other == "cannot listen on port 80: Permission denied"


def test_the_lobby_footer_keeps_the_keys_shown_nowhere_else_when_narrow() -> None:
    """In tmux at 60×20 the lobby's footer was cut at "r Playe": "? Rules" and "^q Quit",
    written nowhere else, were lost, while its first keys repeat the lobby's own rows."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    def footer() -> str:
        return screen_text(app).splitlines()[-1]

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "^q Quit" in footer())
        assert "g Game" in footer()  # 80 columns: every key
        await pilot.resize_terminal(60, 20)
        await until(pilot, lambda: "h Host" not in footer())
        # The last of the keys the lobby names on its rows left out, until the rest fit.
        assert footer().strip() == "g Game  p Practice  e Learn  r Played  ? Rules  ^q Quit"
        assert "Practice (p)" in screen_text(app) and "Host (h)" in screen_text(app)
        await keys(pilot, "h")  # a key left out of the footer still works
        assert isinstance(app.screen, ConnectScreen)
        await keys(pilot, "escape")
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: "h Host" in footer())

    run(app, body)


def test_no_game_found_is_withdrawn_when_a_game_is_found(monkeypatch) -> None:
    """In tmux: `l` pressed before the first announcement arrived left "No game found on
    your network yet" on screen just above the game then listed."""
    from contextlib import asynccontextmanager

    import trio
    from cuttle_protocol.shells import mdns as lan
    from cuttle_protocol.wire import Announcement

    game = lan.LanGame(
        "Alice._cuttle._tcp.local.", Announcement("Alice", 4454, Rules()), ("127.0.0.1",), 0.0
    )
    found = trio.Event()

    @asynccontextmanager
    async def fake_browse(**_):
        async def updates():
            yield []
            await found.wait()  # announced after the player pressed `l`
            yield [game]
            await trio.sleep_forever()

        yield updates()

    monkeypatch.setattr(lan, "browse", fake_browse)
    app = make_app(Settings(bot_delay=0, lan=True))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "l")
        assert "No game found on your network yet" in screen_text(app)
        app.trio.run_sync_soon(found.set)
        await until(pilot, lambda: "Alice · 127.0.0.1:4454" in screen_text(app))
        assert "No game found" not in screen_text(app)
        await keys(pilot, "l")  # now the list, its first game to join
        assert app.focused is app.lobby.query_one("#lan")

    run(app, body)
