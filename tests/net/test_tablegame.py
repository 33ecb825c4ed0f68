"""`play_at_table`'s hooks for a UI (SPEC 3.15): an async chooser (a person), `watch` of every
event and session step, `confirm` of the table code — L'Unisson at a table over loopback."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.cli_table import bot_for
from cuttle_client.progress import game_line
from cuttle_protocol.play import CodeToCompare, GameBegins, SeatKey, Step, play_at_table
from cuttle_protocol.shells import TableTimeouts, host_table, join_table, open_listener
from cuttle_protocol.table import Chat, CodeShown, Lobby, Started, TableSettings
from cuttle_protocol.wire import LocalPlayer, Post

from cuttle_net.games.unisson.bots import make_bot
from cuttle_net.records.record import parse_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import Dealt, GameOver, MovePlayed

# The real deadlines: every table here runs on the mock clock (`autojump_clock`).
FAST = TableTimeouts()
WAIT = 3 * 3600  # mock seconds: each test's bound (a hang is still caught)


async def table_of(
    tmp: Path,
    hooks: dict[int, dict],
    timeouts: TableTimeouts = FAST,
    game: str = "unisson",
    token: str = "one-deck",
    play: Callable[..., Awaitable[Any]] = play_at_table,
) -> dict[int, Any]:
    """A table of len(hooks) seats in this process (L'Unisson unless told), each with its
    hooks (or a function of its table giving them; a greedy bot chooses where none is
    given); each seat's game by seat (what `play` returned: a match's, say)."""
    seats = len(hooks)
    games: dict[int, Any] = {}
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def sit(seat: int, table, key) -> None:
            bot, rng = bot_for(game, "greedy"), random.Random(seat)
            given = hooks[seat]
            how = {"choose": lambda view: bot.choose(view, rng)}
            how.update(given(table) if callable(given) else given)
            games[seat] = await play(table, key, token, data_dir=tmp / f"p{seat}", **how)

        async def host() -> None:
            key = Ed25519PrivateKey.generate()
            settings = TableSettings(game, tuple(token.split("+")), seats)
            me = LocalPlayer("p0", key)
            async with host_table(listener, me, settings, timeouts=timeouts) as table:
                await sit(0, table, key)

        async def join(seat: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
            key = Ed25519PrivateKey.generate()
            async with join_table(address, LocalPlayer(f"p{seat}", key), timeouts=timeouts) as t:
                task_status.started()  # seated
                await sit(seat, t, key)

        with trio.fail_after(WAIT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                for seat in range(1, seats):  # seats in joining order
                    await nursery.start(join, seat)
    return games


@pytest.mark.trio
async def test_a_person_seat_watches_confirms_and_plays_to_a_verified_record(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    seen: list[object] = []
    bot, rng = make_bot("greedy"), random.Random(9)

    async def person(view):  # a person thinks: the table's events go on meanwhile
        await trio.sleep(0.01)
        return bot.choose(view.copy(), rng)

    async def compare(event: CodeShown) -> bool:
        await trio.sleep(0.05)
        return len(event.code) == 7  # "123 456"

    hooks = {0: {}, 1: {"choose": person, "watch": seen.append, "confirm": compare}, 2: {}}
    games = await table_of(tmp_path, hooks)
    lines = {game_line(g) for g in games.values()}
    assert len(lines) == 1 and lines.pop().endswith("; audit passed"), games
    assert all(g.clean for g in games.values())
    kinds = [type(x) for x in seen]
    assert kinds.index(Lobby) < kinds.index(CodeShown) < kinds.index(Started)
    events = [type(e) for x in seen if isinstance(x, Step) for e in x.output.events]
    assert events.count(Dealt) == 1 and events.count(GameOver) == 1
    played = [e for x in seen if isinstance(x, Step) for e in x.output.events]
    moves = [e for e in played if isinstance(e, MovePlayed)]
    assert len(moves) == len(games[1].session.played)  # type: ignore[union-attr]
    assert any(m.seat == 1 for m in moves) and any(m.seat != 1 for m in moves)
    record = games[1].record
    assert record is not None
    assert verify_text(record.read_text()).verdict == Verdict.VALID


@pytest.mark.trio
async def test_a_seat_tells_its_progress_as_data_not_words(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """`tell` hears who sits, each other key, the code and the deal as typed events (the
    client chooses the words): the same code at every seat, our own seat and its dealer."""
    told: dict[int, list[object]] = {0: [], 1: [], 2: []}
    games = await table_of(tmp_path, {s: {"tell": told[s].append} for s in told})
    for seat, events in told.items():
        assert not any(isinstance(e, str) for e in events), events
        lobbies = [e for e in events if isinstance(e, Lobby)]
        assert lobbies and len(lobbies[-1].players) == 3
        keys = [e for e in events if isinstance(e, SeatKey)]
        assert sorted(k.seat for k in keys) == sorted({0, 1, 2} - {seat})
        assert all(k.name == f"p{k.seat}" and k.fingerprint for k in keys)
        (code,) = [e for e in events if isinstance(e, CodeToCompare)]
        assert not code.verified  # three seats: every key is compared through the code
        (begins,) = [e for e in events if isinstance(e, GameBegins)]
        session = games[seat].session
        assert (begins.number, begins.seat, begins.dealer) == (
            1,
            session.seat,
            session.header.dealer,
        )
    codes = {e.code for events in told.values() for e in events if isinstance(e, CodeToCompare)}
    assert len(codes) == 1


@pytest.mark.trio
@pytest.mark.parametrize("token", ["classic", "standard+joker"])
async def test_cuttle_is_played_at_a_two_seat_table_to_verified_records(
    tmp_path: Path, token: str
) -> None:
    """The table serves two-player Cuttle too: both seats reach the same result, and both
    records verify (seat 1 deals, as Cuttle's module requires)."""
    games = await table_of(tmp_path, {0: {}, 1: {}}, game="cuttle", token=token)
    lines = {game_line(g) for g in games.values()}
    assert len(lines) == 1 and lines.pop().endswith("; audit passed"), games
    for g in games.values():
        assert g.clean and g.record is not None
        text = g.record.read_text()
        assert verify_text(text).verdict == Verdict.VALID
        assert parse_record(text).tags["Game"] == "cuttle"


@pytest.mark.trio
@pytest.mark.parametrize("seats", [3, 4])
async def test_a_seat_leaving_while_a_person_thinks_ends_the_game_naming_it(
    tmp_path: Path, memory_net, autojump_clock, seats: int
) -> None:
    """The people at seats 0 and 1 never decide (a bot plays seat 3, if any: a person there
    who never decided would be timed out first whenever the deal gave it the first turn);
    seat 2 leaves as soon as one of them has a decision pending: that seat hears it at once
    (its events are not held up by the move it awaits), and every seat's result names seat
    2, and its winners as a list ("p0, p1 and p3 win", not "p0 and p1 and p3 win")."""

    async def never(view):
        await trio.sleep_forever()

    def leave_when_a_person_thinks(table):
        def watch(item) -> None:
            if isinstance(item, Step) and item.session.to_act in (0, 1):
                table.leave("peer-quit", "gone for coffee")

        return {"watch": watch}

    hooks = {0: {"choose": never}, 1: {"choose": never}, 2: leave_when_a_person_thinks}
    if seats == 4:
        hooks[3] = {}
    games = await table_of(tmp_path, hooks)
    won = "p0 and p1 win" if seats == 3 else "p0, p1 and p3 win"
    for seat in set(hooks) - {2}:
        line = game_line(games[seat])
        assert f"{won}: p2 (seat 2) left the table: gone for coffee" in line, (seat, line)
    assert game_line(games[2]).endswith("unfinished: you left the table"), game_line(games[2])
    for game in games.values():  # everything checkable holds; the deal stays unproven
        assert game.record is not None
        assert verify_text(game.record.read_text()).verdict == Verdict.UNAUDITED


@pytest.mark.trio
async def test_a_code_that_differs_leaves_the_table_before_the_deal(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    async def differs(event: CodeShown) -> bool:
        return False

    games = await table_of(tmp_path, {0: {}, 1: {"confirm": differs}, 2: {}})
    for game in games.values():
        assert game.session is None and game.record is None
        assert game_line(game) == "result: no game: left: the table code differs from mine", game


@pytest.mark.trio
@pytest.mark.parametrize("hook", ["choose", "watch"])
async def test_a_seat_whose_own_hook_fails_leaves_saying_so_and_keeps_its_record(
    tmp_path: Path, hook: str, memory_net, autojump_clock
) -> None:
    """A bug in the UI's hooks (seat 1's) does not freeze its seat: it leaves the table at
    once (code internal-error), play_at_table returns, and every record verifies."""

    def broken(item) -> None:
        if hook == "choose" or isinstance(item, Step):
            raise RuntimeError("a bug in the screen")

    games = await table_of(tmp_path, {0: {}, 1: {hook: broken}, 2: {}})
    assert game_line(games[1]).endswith(
        f"unfinished: our program failed ({hook}: RuntimeError: a bug in the screen)"
    ), game_line(games[1])
    for seat in (0, 2):
        line = game_line(games[seat])
        assert "p1 (seat 1) left" in line and "the player's program failed" in line, line
    for game in games.values():
        assert game.record is not None
        assert verify_text(game.record.read_text()).verdict == Verdict.UNAUDITED


@pytest.mark.trio
@pytest.mark.parametrize("accused", [1, 0])  # another joiner, then the host
async def test_a_joiners_bare_accusation_convicts_nobody_and_every_honest_record_verifies(
    tmp_path: Path, accused: int, memory_net, autojump_clock
) -> None:
    """Seat 2 posts a `fault` entry naming a seat that did nothing wrong, once the game is
    under way: no seat's own session found it, so it is seat 2's claim (SPEC 3.15, the
    verdict rule). It ends the game as a two-player claim does: seat 2 stopped playing, and
    the accused loses nothing."""

    def accuse(table):
        def watch(item) -> None:
            played = isinstance(item, Step) and any(
                isinstance(e, MovePlayed) for e in item.output.events
            )
            if played and not table.ended.is_set():
                table.fault(accused, "illegal_move", "it played a card it never had")

        return {"watch": watch}

    games = await table_of(tmp_path, {0: {}, 1: {}, 2: accuse})
    claim = f'closed by seat 2: fault "illegal_move by seat {accused}: '
    for seat in (0, 1):
        game = games[seat]
        assert game.record is not None, game
        text = game.record.read_text()
        tags = parse_record(text).tags
        assert tags["Ending"].startswith(claim), (seat, tags["Ending"])
        assert tags["Result"] == "0,1"  # the accused is not convicted; its accuser forfeits
        report = verify_text(text)
        assert report.verdict == Verdict.UNAUDITED, (seat, report.problem)
        assert "p2 (seat 2) left" in game_line(game), game_line(game)


@pytest.mark.trio
async def test_a_relayed_replay_caught_by_the_host_leaves_every_honest_record_verifying(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """Seat 2 posts seat 1's last deck entry again, as its own: its signature does not fit
    seat 2, so only the host can tell who sent it. The host drops seat 2's connection and
    says so (`left`); no table kind reads as the deck's `bad_signature`, and both honest
    records verify."""

    def replay(table):
        def watch(item) -> None:
            log = table.core.log
            if table.ended.is_set() or not isinstance(item, Step) or log is None:
                return
            theirs = [e for e in log.entries if e.seat == 1 and b"deck" in e.body]
            if theirs:
                e = theirs[-1]
                table._link.queue_in.send_nowait(Post(e.seen, e.head, e.vouch, e.body, e.sig))

        return {"watch": watch}

    games = await table_of(tmp_path, {0: {}, 1: {}, 2: replay})
    for seat in (0, 1):
        game = games[seat]
        assert game.record is not None, game
        text = game.record.read_text()
        tags = parse_record(text).tags
        dropped = 'closed by seat 2: left "the host closed its connection'
        assert tags["Ending"].startswith(dropped), (seat, tags["Ending"])
        assert tags["Result"] == "0,1"
        report = verify_text(text)
        assert report.verdict == Verdict.UNAUDITED, (seat, report.problem)


@pytest.mark.trio
async def test_a_timeout_claimed_before_the_deadline_convicts_nobody(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """Seat 1's person is thinking (the step is its own, and due); seat 2 says at once that
    seat 1 timed out. Seat 1 owes the step, but its deadline has not passed on any other
    seat's clock: seat 2's word, which costs seat 2 (SPEC 3.15, the verdict rule)."""

    async def thinking(view):
        await trio.sleep_forever()

    def hurry(table):
        def watch(item) -> None:
            if not isinstance(item, Step) or table.ended.is_set():
                return
            if item.session.waiting_for == (1, "move"):
                table.fault(1, "timeout", "no move in time")

        return {"watch": watch}

    games = await table_of(tmp_path, {0: {}, 1: {"choose": thinking}, 2: hurry})
    for seat in (0, 1):
        text = games[seat].record.read_text()
        tags = parse_record(text).tags
        assert tags["Ending"].startswith('closed by seat 2: fault "timeout by seat 1'), (
            seat,
            tags["Ending"],
        )
        assert tags["Result"] == "0,1"
        assert verify_text(text).verdict == Verdict.UNAUDITED


@pytest.mark.trio
async def test_the_hosts_timeout_of_a_seat_past_its_deadline_convicts_it_everywhere(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """Seat 1's person never decides: the host names it once the move timeout passed, and
    every seat, seat 1 too, finds that deadline passed on its own clock: one verdict."""

    async def thinking(view):
        await trio.sleep_forever()

    games = await table_of(tmp_path, {0: {}, 1: {"choose": thinking}, 2: {}})
    for seat in (0, 1, 2):
        text = games[seat].record.read_text()
        tags = parse_record(text).tags
        assert tags["Ending"].startswith(f"fault timeout by seat 1: no move in {FAST.move:g} s"), (
            seat,
            tags["Ending"],
        )
        assert tags["Result"] == "0,2"
        assert verify_text(text).verdict == Verdict.UNAUDITED


@pytest.mark.parametrize("dealer", [0, 1])
def test_a_cuttle_table_seats_its_dealer_at_game_seat_one(dealer: int) -> None:
    """SPEC 4.1: Cuttle's dealer always sits at seat 1, whichever table seat the draw named;
    L'Unisson keeps the table's numbers."""
    from cuttle_protocol.play import SeatOrder

    from cuttle_net.games.interface import game_module

    order = SeatOrder.of(game_module("cuttle"), 2, dealer)
    assert order.game(dealer) == 1 and order.game(1 - dealer) == 0
    assert [order.table(order.game(t)) for t in (0, 1)] == [0, 1]
    same = SeatOrder.of(game_module("unisson"), 4, 3)
    assert [same.game(t) for t in range(4)] == [0, 1, 2, 3]


def test_a_renamed_seat_is_shown_with_the_name_it_was_known_by(tmp_path: Path) -> None:
    """A known key under a new name read only "renamed": the client shows the name it knew
    (SPEC 3.11), as the two-player title does ("known to you as Botb1")."""
    from types import SimpleNamespace

    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from cuttle_client.progress import seat_words
    from cuttle_protocol.play import seat_key
    from cuttle_protocol.store import KnownPeers
    from cuttle_protocol.table import SeatInfo

    key = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    peers = KnownPeers(tmp_path)
    peers.remember("Bob", key)
    table = SimpleNamespace(trust={key: peers.check("Robert", key)}, known_peers=peers)
    text = seat_words(seat_key(table, SeatInfo(2, "Robert", key)))  # type: ignore[arg-type]
    assert text.endswith(", renamed: known to you as Bob)"), text


@pytest.mark.trio
async def test_a_host_leaving_mid_game_is_heard_with_its_words_even_by_a_slow_writer(
    tmp_path: Path, memory_net, autojump_clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host leaves mid-game with words; its last entries (the `leave`) take longer to
    write than a second, as on a loaded machine: the joiners still read the `leave` before
    the connection's close, so they name the host with its words (a grace of one second
    let the close overtake it)."""
    from cuttle_protocol.shells import table_shell as trio_table

    real_write = trio_table._Link.write

    async def slow_write(link: trio_table._Link) -> None:
        send = link.peer.send

        async def slowly(message: object, *more: object) -> None:
            if leaving:
                await trio.sleep(3)  # the process starved of CPU
            await send(message, *more)

        link.peer.send = slowly  # type: ignore[method-assign]
        await real_write(link)

    monkeypatch.setattr(trio_table._Link, "write", slow_write)
    leaving: list[bool] = []

    def host(table):
        def watch(item: object) -> None:
            if isinstance(item, Step) and item.session.to_act == 1 and not leaving:
                leaving.append(True)
                table.leave("peer-quit", "gone for coffee")

        return {"watch": watch}

    games = await table_of(tmp_path, {0: host, 1: {}, 2: {}})
    for seat in (1, 2):
        tags = parse_record(games[seat].record.read_text()).tags
        assert tags["Ending"] == 'closed by seat 0: left "gone for coffee"', tags["Ending"]


@pytest.mark.trio
async def test_chat_reaches_every_seat_while_the_game_finishes_and_stays_out_of_records(
    tmp_path: Path,
) -> None:
    """Each seat talks as the game starts and as it moves: every line reaches every seat,
    in one order, the game ends by the rules at every seat and no record holds a word."""
    heard: dict[int, list[tuple[int, str]]] = {0: [], 1: [], 2: []}

    def talker(seat: int):
        def hooks(table):
            moves = 0

            def watch(item) -> None:
                nonlocal moves
                if isinstance(item, Started):
                    assert table.say(f"hello from {seat} [b]x[/b]")
                elif isinstance(item, Chat):
                    heard[seat].append((item.seat, item.text))
                elif isinstance(item, Step) and seat == 1:
                    moves += 1
                    if moves == 3:
                        table.say("one moment")

            return {"watch": watch}

        return hooks

    games = await table_of(tmp_path, {s: talker(s) for s in range(3)})
    lines = {game_line(g) for g in games.values()}
    assert len(lines) == 1 and lines.pop().endswith("; audit passed"), games
    assert heard[0] == heard[1] == heard[2]
    assert sorted(heard[0]) == [
        (0, "hello from 0 [b]x[/b]"),
        (1, "hello from 1 [b]x[/b]"),
        (1, "one moment"),
        (2, "hello from 2 [b]x[/b]"),
    ]
    for g in games.values():
        text = g.record.read_text()
        assert verify_text(text).verdict == Verdict.VALID
        assert "hello" not in text and "moment" not in text


@pytest.mark.trio
async def test_a_table_cancelled_whole_mid_game_unwinds_at_once(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """Every seat's task cancelled at once, shells and all (an app's trio run ending, a
    Ctrl+C in a process that holds them): no seat waits out its reply timeout for the
    relay of its `leave`, which its own cancelled connection can no longer carry. (A
    joiner once did, twice: a quitting client that held a bot seat outlasted its patience.)"""
    bot, rng = make_bot("greedy"), random.Random(3)
    cancelled: list[float] = []
    with trio.CancelScope() as everything:

        def choose_then_cancel(view):
            if not cancelled:
                cancelled.append(trio.current_time())
                everything.cancel()
            return bot.choose(view, rng)

        await table_of(tmp_path, {0: {}, 1: {"choose": choose_then_cancel}, 2: {}})
    assert cancelled and everything.cancelled_caught
    took = trio.current_time() - cancelled[0]
    assert took < FAST.reply / 2, f"{took:g} mock seconds to unwind"
