"""A watcher's word to the table (SPEC 3.15 *Watchers*, *A word to the table*), without I/O:
when the host takes its watchers' chat, a watcher's signed line is relayed in the host's
`watcher-chat` entry, which every seat and watcher checks against the watcher's key; when it
does not, or the line is forged, malformed or one of a flood, the watcher's connection is
closed (the host's reason) and the game is not touched."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.watch import talk_refused
from cuttle_protocol.shells.watch import WatcherShell
from cuttle_protocol.table import Chat, Delivered, Stage, TableEnded, TableWatcher
from cuttle_protocol.table.core import CHAT_FLOOD, CHAT_HOST_BURST
from cuttle_protocol.wire import LocalPlayer, Post, codec

from tests.wire.test_table import Table


class Talking(Table):
    """A table whose watchers' posts reach the host's `hear_watcher`; `closed` keeps the
    reason each watcher's connection would be closed with."""

    def __init__(self, seats: int, *, allowed: bool) -> None:
        super().__init__(seats)
        self.host.watcher_chat = allowed
        self.watchers: list[TableWatcher] = []
        self.heard: dict[bytes, list] = {}
        self.closed: dict[bytes, str] = {}

    def watch(self, name: str, *, chat: bool = True) -> TableWatcher:
        me = LocalPlayer(name, Ed25519PrivateKey.generate())
        watcher = TableWatcher(me, self.host.identity, chat=chat)
        assert self.host.add_watcher(name, watcher.identity) is None
        self.watchers.append(watcher)
        self.by_key[watcher.identity] = watcher
        self.heard[watcher.identity] = []
        self.pump()
        return watcher

    def pump(self) -> None:
        super().pump()
        moved = True
        while moved:
            moved = False
            for watcher in self.watchers:
                for post in watcher.take_outgoing():
                    moved = True
                    if watcher.identity in self.closed:
                        continue
                    why = self.host.hear_watcher(watcher.identity, post)
                    if why is not None:
                        self.closed[watcher.identity] = why
                        self.host.remove_watcher(watcher.identity)
                super().pump()
            for watcher in self.watchers:
                self.heard[watcher.identity] += watcher.take_events()


def _chats(events: list) -> list[tuple[str, str]]:
    return [(c.who(lambda seat: f"seat {seat}"), c.text) for c in events if isinstance(c, Chat)]


def _watched(allowed: bool = True) -> tuple[Talking, TableWatcher]:
    table = Talking(3, allowed=allowed)
    watcher = table.watch("Wes")
    table.start()
    table.pump()
    return table, watcher


def test_a_watchers_line_reaches_every_seat_and_watcher_marked_as_a_watchers() -> None:
    table, wes = _watched()
    other = table.watch("Olga")
    steps = [side.steps for side in table.sides]
    assert wes.may_say and wes.say("gg [b]x[/b]")
    table.guests[0].post({"t": "say", "n": 1})
    table.pump()
    expected = [("Wes (watching)", "gg [b]x[/b]")]
    for i in range(3):
        assert _chats(table.events[i]) == expected
        assert [d.body for d in table.of(i, Delivered)] == [{"t": "say", "n": 1}]
        assert table.sides[i].stage is Stage.GAME
    assert _chats(table.heard[wes.identity]) == expected
    assert _chats(table.heard[other.identity]) == expected
    assert len({side.log.head for side in [*table.sides, wes, other]}) == 1
    assert [side.steps for side in table.sides] == [s + 1 for s in steps]  # the move only
    assert table.closed == {}


def test_a_late_watcher_checks_every_watchers_line_from_entry_0() -> None:
    """The log with a watcher's lines verifies for a third party that reads it whole."""
    table, wes = _watched()
    assert wes.say("one") and wes.say("two")
    table.pump()
    late = table.watch("Late")
    assert late.stage is Stage.GAME and late.log.head == table.host.log.head
    assert _chats(table.heard[late.identity]) == [
        ("Wes (watching)", "one"),
        ("Wes (watching)", "two"),
    ]


def test_a_watchers_line_is_refused_with_a_reason_when_the_host_takes_none() -> None:
    table, wes = _watched(allowed=False)
    assert not TableWatcher(wes._player, table.host.identity).chat  # not announced: off
    length = len(table.host.log)
    assert wes.say("hello?")  # a watcher that believes otherwise is told why, and closed
    table.pump()
    assert "seats only" in table.closed[wes.identity]
    assert len(table.host.log) == length + 1  # only the host's `watch`: it left
    assert all(not _chats(table.events[i]) for i in range(3))
    assert all(side.stage is Stage.GAME for side in table.sides)


def test_a_watcher_says_nothing_before_it_is_named() -> None:
    table = Talking(3, allowed=True)
    wes = table.watch("Wes")
    table.join_all()  # seated, the code not yet confirmed: no `watch` entry yet
    assert wes.stage is not Stage.GAME and not wes.say("early")
    assert wes.take_outgoing() == []


def test_a_flooding_watcher_is_closed_and_the_game_goes_on() -> None:
    table, wes = _watched()  # the clock stands still: past the burst every line is dropped
    for n in range(CHAT_HOST_BURST + CHAT_FLOOD + 3):
        wes._post({"t": "chat", "n": n, "text": f"{n}"})  # past its own rate, on purpose
    table.pump()
    assert "flooded" in table.closed[wes.identity]
    for i in range(3):
        assert len(_chats(table.events[i])) == CHAT_HOST_BURST
        assert table.sides[i].stage is Stage.GAME and not table.sides[i].muted
    table.guests[1].post({"t": "say", "n": 7})
    table.pump()
    assert [d.body["n"] for d in table.of(0, Delivered)] == [7]


def _post_as(watcher: TableWatcher, **changes: object) -> Post:
    """The watcher's next chat line, with `changes` made after it signed it."""
    watcher._post({"t": "chat", "n": 0, "text": "hi"})
    (post,) = watcher.take_outgoing()
    return Post(**{**post.__dict__, **changes})


def test_a_forged_or_malformed_watchers_post_closes_it_and_is_never_relayed() -> None:
    table, wes = _watched()
    length = len(table.host.log)
    forged = _post_as(wes, sig=bytes(64))
    assert "did not sign" in (table.host.hear_watcher(wes.identity, forged) or "")
    stale = _post_as(wes, head=bytes(32))
    assert "never showed" in (table.host.hear_watcher(wes.identity, stale) or "")
    wes._post = lambda body, force=False: TableWatcher._post(wes, {**body, "t": "chat"})
    move = {"t": "chat", "n": 0, "text": "hi", "move": 1}
    wes._post(move)
    (odd,) = wes.take_outgoing()
    assert "no chat line" in (table.host.hear_watcher(wes.identity, odd) or "")
    assert len(table.host.log) == length
    assert all(side.stage is Stage.GAME for side in table.sides)


def test_a_host_that_relays_a_line_its_watcher_did_not_sign_is_named() -> None:
    table, wes = _watched()
    line = codec.pack({"t": "chat", "n": 0, "text": "I resign"})
    seen = len(table.host.log)
    forged = {"t": "watcher-chat", "key": wes.identity, "seen": seen, "body": line}
    table.host._post({**forged, "sig": bytes(64)}, force=True)  # past the host's own check
    table.pump()
    for side in [*table.guests, wes]:
        assert side.ended is not None
        assert (side.ended.culprit, side.ended.kind) == (0, "bad-entry")
        assert "did not sign" in side.ended.detail
    assert _chats(table.heard[wes.identity]) == []


def test_a_host_that_relays_a_watchers_line_twice_is_named() -> None:
    table, wes = _watched()
    assert wes.say("once")
    table.pump()
    entry = table.host.log.entries[-1]
    table.host._post(codec.unpack(entry.body), force=True)
    table.pump()
    ended = [e for e in table.events[1] if isinstance(e, TableEnded)]
    assert ended and (ended[0].culprit, ended[0].kind) == (0, "bad-entry")
    assert "twice" in ended[0].detail


def test_before_it_is_named_a_watchers_lines_are_dropped_and_a_flood_closes_it() -> None:
    table = Talking(3, allowed=True)
    wes = table.watch("Wes")
    table.join_all()  # seated, no game yet: the watcher is not named
    length = len(table.host.log)
    post = _post_as(wes)
    for _ in range(CHAT_FLOOD - 1):
        assert table.host.hear_watcher(wes.identity, post) is None  # dropped
    assert "flooded" in (table.host.hear_watcher(wes.identity, post) or "")
    table.host.watcher_chat = False  # off: refused at once, whatever the stage
    assert "seats only" in (table.host.hear_watcher(wes.identity, post) or "")
    assert len(table.host.log) == length and table.host.stage is Stage.CONFIRM


def test_a_seat_that_posts_a_watchers_line_itself_is_named() -> None:
    """Only the host relays a watcher's line (its `watcher-chat` entry, by seat 0): a seat
    that posts one itself, however well the watcher signed it, gets round the host's rate
    and its watcher list, and every side names that seat."""
    table, wes = _watched()
    post = _post_as(wes)  # a line the watcher signed, never given to the host
    table.guests[0]._post(
        {
            "t": "watcher-chat",
            "key": wes.identity,
            "seen": post.seen,
            "body": post.body,
            "sig": post.sig,
        },
        force=True,
    )
    table.pump()
    for side in [table.host, *table.guests, wes]:
        assert side.ended is not None
        assert (side.ended.culprit, side.ended.kind) == (1, "bad-entry")
        assert "only the host" in side.ended.detail
    assert all(not _chats(table.events[i]) for i in range(3))


@pytest.mark.trio
async def test_a_watcher_away_from_its_host_says_nothing_rather_than_lose_the_line() -> None:
    """The host killed and not yet back: the watcher still holds the log that names it, but
    no connection carries a line; it is refused (the screen says why), never dropped."""
    _, wes = _watched()
    shell = WatcherShell(wes, lambda news: None)
    assert wes.may_say and not shell.connected
    assert not shell.say("anyone there?")
    assert wes.take_outgoing() == []
    assert "connection to the host is lost" in talk_refused(shell.connected, wes.may_say)
    assert "named" in talk_refused(True, False)
