"""``cuttle lan``: its output for games found, none found, and no usable LAN."""

from __future__ import annotations

import time

import cuttle_protocol.shells as shells
import pytest
from cuttle_client.cli import main
from cuttle_protocol.shells import Browser, LanGame, LanUnavailable
from cuttle_protocol.wire import Announcement, parse_address

from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.interface import game_module

ONE_DECK = game_module("unisson").parse_rules("one-deck", 4)


class Finished(Browser):
    def __init__(self, games: list[LanGame], rejected: dict[str, str]) -> None:
        super().__init__()
        self._games = {g.service: g for g in games}
        self._rejected = rejected


def fake_browse(
    monkeypatch: pytest.MonkeyPatch, games: list[LanGame], rejected: dict[str, str] | None = None
) -> list[float]:
    calls: list[float] = []

    def browse_once(seconds: float, *, interfaces: object = None) -> Browser:
        calls.append(seconds)
        return Finished(games, rejected or {})

    # `cuttle lan` takes browse_once from the shells' API: patch it there
    monkeypatch.setattr(shells, "browse_once", browse_once)
    return calls


def game(name: str, address: str, port: int, rules: str, free: bool, ago: float) -> LanGame:
    return found(Announcement(name, port, Rules.parse(rules), 1 if free else 2), address, ago)


def found(announcement: Announcement, address: str, ago: float) -> LanGame:
    service = f"{announcement.name}._cuttle._tcp.local."
    return LanGame(service, announcement, (address,), time.monotonic() - ago)


def test_lists_each_game_on_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = fake_browse(
        monkeypatch,
        [
            game("Alice", "192.0.2.7", 4000, "classic+joker", True, 2.2),
            game("Bob", "192.0.2.10", 51234, "standard", False, 0),
            found(Announcement("Cy", 4454, ONE_DECK, 2, game="unisson", seats=4), "192.0.2.3", 1),
        ],
        {"m._cuttle._tcp.local.": "protocol version 2 (this program speaks version 1)"},
    )
    assert main(["lan", "--timeout", "1.5"]) == 0
    out, err = capsys.readouterr()
    assert calls == [1.5]
    assert out.splitlines() == [
        "Alice  192.0.2.7:4000    cuttle   classic+joker  seat free           seen 2s ago",
        "Bob    192.0.2.10:51234  cuttle   standard       seat taken          seen 0s ago",
        "Cy     192.0.2.3:4454    unisson  one-deck       2 of 4 seats taken  seen 1s ago",
    ]
    assert "ignored 'm._cuttle._tcp.local.': protocol version 2" in err


def test_says_so_when_nothing_is_found(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_browse(monkeypatch, [])
    assert main(["lan"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no games found") and "cuttle join HOST:PORT" in out


def test_no_lan_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def unavailable(seconds: float, *, interfaces: object = None) -> Browser:
        raise LanUnavailable("no network interface has an IPv4 address besides loopback")

    monkeypatch.setattr(shells, "browse_once", unavailable)
    assert main(["lan"]) == 1
    err = capsys.readouterr().err
    assert "LAN discovery is unavailable" in err and "cuttle join HOST:PORT" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("timeout", ["0", "-1", "1e9", "nan", "soon"])
def test_timeout_must_be_reasonable(timeout: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal says what is allowed: 0 itself is not (issue 26, defect 13: the old
    message said 'between 0 and 600' and refused 0)."""
    with pytest.raises(SystemExit) as exited:
        main(["lan", "--timeout", timeout])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--timeout: seconds to listen, more than 0 and at most 600" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("interface", ["nonsense", "300.1.1.1", "0.0.0.0", "ff02::fb"])
def test_interface_must_be_an_address_or_a_name(
    interface: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped interface is the user's to fix, said on one line, not zeroconf's
    ValueError traceback (issue 26, defect 4)."""
    with pytest.raises(SystemExit) as exited:
        main(["lan", "--timeout", "0.1", "--interface", interface])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--interface: an interface's address or name, such as 192.168.1.20, fd00::2" in err
    assert f"not {interface!r}" in err


def test_an_ipv6_game_is_listed_as_cuttle_join_takes_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In brackets, a link-local address with its zone: what is listed can be pasted
    after `cuttle join`."""
    fake_browse(
        monkeypatch,
        [
            game("Alice", "fe80::7%eth0", 4000, "classic", True, 0),
            game("Bob", "2001:db8::7", 4001, "classic", True, 0),
        ],
    )
    assert main(["lan"]) == 0
    listed = [line.split()[1] for line in capsys.readouterr().out.splitlines()]
    assert listed == ["[fe80::7%eth0]:4000", "[2001:db8::7]:4001"]
    assert [parse_address(a) for a in listed] == [("fe80::7%eth0", 4000), ("2001:db8::7", 4001)]


@pytest.mark.parametrize("interface", ["192.0.2.7", "2001:db8::7", "fe80::7%lo", "lo"])
def test_interface_takes_an_ipv4_or_ipv6_address_or_a_name(
    interface: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[object] = []

    def browse_once(seconds: float, *, interfaces: object = None) -> Browser:
        asked.append(interfaces)
        return Finished([], {})

    monkeypatch.setattr(shells, "browse_once", browse_once)
    assert main(["lan", "--interface", interface]) == 0
    assert asked == [[interface]]
