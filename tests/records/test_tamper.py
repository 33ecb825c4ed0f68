"""The tamper matrix: every change to a record, made by hand or re-signed by the player who
saved it, is rejected with its reason, on an audited and on an unaudited record; CRLF line
ends and a missing final newline are the only harmless changes (SPEC.md §5.1)."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.header import GameHeader
from cuttle_net.records.record import build_record, parse_record, record_digest
from cuttle_net.records.verify import Verdict, verify_text
from tests.session.link import Link

DATE = "2026-11-21T12:00:00Z"
OTHER_KEY = Ed25519PrivateKey.generate().public_key().public_bytes_raw().hex()
SMALL_ORDER_KEY = "01" + "00" * 31
EXTRA_OP = "op " + base64.b64encode(msgpack.packb(["reveal_deck", 1])).decode()


@dataclass
class Game:
    link: Link
    text: str
    verdict: Verdict

    def resign(self, text: str) -> str:
        """What a dishonest saver does after a change: sign the record again."""
        signer = int(parse_record(self.text).tags["Signer"])
        sig = self.link.sessions[signer].sign(record_digest(text)).hex()
        return re.sub(r'\[Signature "[0-9a-f]*"\]', f'[Signature "{sig}"]', text)


def _audited() -> Game:
    for seed in range(5, 60):
        link = Link(Rules.parse("standard"), seed, bots=("greedy", "random"))
        link.play()
        text = build_record(link.sessions[0], ("ann", "bob"), DATE)
        record = parse_record(text)
        if any(seen for _, _, seen in record.moves) and len(record.moves) > 8:
            return Game(link, text, Verdict.VALID)
    raise AssertionError("no game showed a card")


def _unaudited() -> Game:
    """Seat 1 concedes after a dozen moves; seat 0 saves the record."""
    for seed in range(11, 60):
        link = Link(Rules.parse("standard"), seed, bots=("greedy", "random"))
        for s in (0, 1):
            link.post(s, link.sessions[s].start())
        link.pump()
        while len(link.sessions[0].played) < 12:
            movers = [s for s in link.sessions if s.my_turn]
            if not movers:
                break
            m = movers[0]
            link.post(m.seat, m.play(link.bots[m.seat].choose(m.view, link.rng)))
            link.pump()
        if link.sessions[1].my_turn or link.sessions[0].my_turn:
            link.post(1, link.sessions[1].concede())
            link.pump()
            text = build_record(link.sessions[0], ("ann", "bob"), DATE)
            return Game(link, text, Verdict.UNAUDITED)
    raise AssertionError("no game lasted a dozen moves")


# ------------------------------------------------------------------ the changes


def tag(name: str, value: str) -> Callable[[str], str]:
    new = f'[{name} "{value}"]'
    return lambda t: re.sub(rf'\[{name} "[^"]*"\]', lambda _: new, t, count=1)


def with_session(change: Callable[[str], str]) -> Callable[[str], str]:
    """Change the header and write the Session tag its hash would give, as a forger would."""

    def changed(t: str) -> str:
        t = change(t)
        tags = parse_record_tags(t)
        header = GameHeader(
            bytes.fromhex(tags["Connection"]),
            int(tags["Number"]),
            tags["Game"],
            Rules.parse(tags["Rules"]),
            int(tags["Dealer"]),
            (bytes.fromhex(tags["Seat0Key"]), bytes.fromhex(tags["Seat1Key"])),
        )
        return tag("Session", header.session_id.hex())(t)

    return changed


def parse_record_tags(t: str) -> dict[str, str]:
    return dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', t, re.M))


def lines(t: str) -> list[str]:
    return t.split("\n")


def edit_line(pick: Callable[[list[str]], int], new: Callable[[str], str]):
    def changed(t: str) -> str:
        ls = lines(t)
        i = pick(ls)
        ls[i] = new(ls[i])
        return "\n".join(ls)

    return changed


def first(prefix: str, nth: int = 0) -> Callable[[list[str]], int]:
    return lambda ls: [i for i, line in enumerate(ls) if line.startswith(prefix)][nth]


def drop(pick: Callable[[list[str]], int]):
    def changed(t: str) -> str:
        ls = lines(t)
        del ls[pick(ls)]
        return "\n".join(ls)

    return changed


def swap(a: Callable[[list[str]], int], b: Callable[[list[str]], int]):
    def changed(t: str) -> str:
        ls = lines(t)
        i, j = a(ls), b(ls)
        ls[i], ls[j] = ls[j], ls[i]
        return "\n".join(ls)

    return changed


def insert_after(pick: Callable[[list[str]], int], line: str):
    def changed(t: str) -> str:
        ls = lines(t)
        ls.insert(pick(ls) + 1, line)
        return "\n".join(ls)

    return changed


def other_result(t: str) -> str:
    result = parse_record_tags(t)["Result"]
    return tag("Result", "1" if result == "0" else "0")(t)


def move_line(t: str) -> Callable[[list[str]], int]:
    return first("3. ")


def renumbered_without_move_3(t: str) -> str:
    ls = lines(t)
    out, n = [], 0
    for line in ls:
        m = re.match(r"(\d+)\. (.*)", line)
        if m:
            n += 1
            if n == 3:
                continue
            line = f"{len([x for x in out if re.match(r'[0-9]+[.] ', x)]) + 1}. {m[2]}"
        out.append(line)
    return "\n".join(out)


def cut_transcript(fraction: float) -> Callable[[str], str]:
    def changed(t: str) -> str:
        ls = lines(t)
        start = ls.index("[Transcript]") + 1
        end = len(ls) - 1  # the final empty string after the last newline
        keep = start + int((end - start) * fraction)
        return "\n".join([*ls[:keep], ""])

    return changed


def every_move_conceded(t: str) -> str:
    return re.sub(r"^(move [01] \S+) .*$", r"\1 concede", t, flags=re.M)


def last_move_line(ls: list[str]) -> int:
    return max(i for i, line in enumerate(ls) if re.match(r"\d+\. ", line))


def other_seen_card(line: str) -> str:
    """The first card of a move's seen-note replaced by the next card of the same rank."""
    move, note = line.split(" | ")
    seat, cards = note.split(" ")[0].split(":")
    first, *rest = cards.split(",")
    suits = "CDHS"
    other = first[0] + suits[(suits.index(first[1]) + 1) % 4]
    return f"{move} | {seat}:{','.join([other, *rest])}" + note[len(note.split(" ")[0]) :]


# name, change, applies to ("audited", "unaudited" or both), a word of the reason when re-signed
CHANGES: list[tuple[str, Callable[[str], str], str, str]] = [
    ("rules: standard to classic", tag("Rules", "classic"), "both", "Session"),
    ("rules: + nine-frozen", tag("Rules", "standard+nine-frozen"), "both", "Session"),
    (
        "rules: + queens-protect-queens",
        tag("Rules", "standard+queens-protect-queens"),
        "both",
        "Session",
    ),
    ("rules: + eight-one-off", tag("Rules", "standard+eight-one-off"), "both", "Session"),
    ("rules: + nine-to-deck", tag("Rules", "standard+nine-to-deck"), "both", "Session"),
    ("rules: + random-fours", tag("Rules", "standard+random-fours"), "both", "Session"),
    ("rules: unknown", tag("Rules", "poker"), "both", "Rules"),
    (
        "rules changed, Session rehashed",
        with_session(tag("Rules", "classic")),
        "both",
        "another session",
    ),
    (
        "variant added, Session rehashed",
        with_session(tag("Rules", "standard+nine-frozen")),
        "both",
        "another session",
    ),
    ("game number, Session rehashed", with_session(tag("Number", "2")), "both", "another session"),
    (
        "connection, Session rehashed",
        with_session(tag("Connection", "ab" * 32)),
        "both",
        "another session",
    ),
    ("game number 0", tag("Number", "0"), "both", "Number"),
    ("an unknown game", tag("Game", "chess"), "both", "Game"),
    ("session id", tag("Session", "cd" * 32), "both", "Session"),
    ("dealer 0", tag("Dealer", "0"), "both", "seat 1 deals"),
    ("signer -1", tag("Signer", "-1"), "both", "Signer"),
    ("signer: the other seat", tag("Signer", "1"), "both", "signature"),
    ("seat 0's key: another", with_session(tag("Seat0Key", OTHER_KEY)), "both", "signature"),
    ("seat 1's key: small order", tag("Seat1Key", SMALL_ORDER_KEY), "both", "Seat1Key"),
    ("keys swapped", lambda t: swap_keys(t), "both", "Session"),
    ("audit: none", tag("Audit", "none"), "audited", "Audit"),
    ("audit: other digest", tag("Audit", "ef" * 32), "audited", "Audit"),
    ("audit: a digest on an unaudited game", tag("Audit", "ef" * 32), "unaudited", "Audit"),
    ("result: the other seat", other_result, "both", "Result"),
    ("result: *", tag("Result", "*"), "both", "Result"),
    ("result: draw", tag("Result", "draw"), "both", "Result"),
    ("ending: concede", tag("Ending", "concede"), "audited", "concede"),
    (
        "ending: goal (a forged win)",
        lambda t: tag("Result", "0")(tag("Ending", "goal")(t)),
        "unaudited",
        "audit",
    ),
    ("ending: passes", tag("Ending", "passes"), "both", "Ending"),
    (
        "ending: timeout of seat 1",
        lambda t: tag("Result", "0")(tag("Ending", "fault timeout by seat 1: late")(t)),
        "both",
        "transcript stops",
    ),
    (
        "ending: a forged cheat",
        lambda t: tag("Result", "0")(tag("Ending", "fault bad_shuffle_proof by seat 1: bad")(t)),
        "both",
        "transcript stops",
    ),
    (
        "ending: unfinished",
        lambda t: tag("Result", "*")(tag("Ending", "unfinished: lost")(t)),
        "both",
        "transcript stops",
    ),
    (
        "ending: closed by the peer",
        lambda t: tag("Result", "*")(tag("Ending", 'closed by seat 1: peer-quit \\"bye\\"')(t)),
        "both",
        "transcript stops",
    ),
    ("ending: not an ending", tag("Ending", "disconnected: reset"), "both", "Ending"),
    ("format 1", tag("Format", "cuttle-record/1"), "both", "cuttle-record/1"),
    ("date malformed", tag("Date", "yesterday"), "both", "Date"),
    ("name with a control character", tag("Seat1", "bo\x1bb"), "both", "control"),
    ("an unknown tag", insert_after(first("[Date "), '[Extra "x"]'), "both", "unknown tag"),
    ("a tag twice", insert_after(first("[Date "), f'[Date "{DATE}"]'), "both", "twice"),
    ("tags out of order", swap(first("[Date "), first("[Rules ")), "both", "out of order"),
    ("the signature line removed", drop(first("[Signature ")), "both", "tags end"),
    ("a blank line added", insert_after(first("[Signature "), ""), "both", "line"),
    ("a trailing space", edit_line(first("1. "), lambda s: s + " "), "both", "line"),
    (
        "a move's seat",
        edit_line(first("3. "), lambda s: re.sub(r"^3\. (\d)", lambda m: f"3. {1 - int(m[1])}", s)),
        "both",
        "moves section",
    ),
    (
        "a move's text",
        edit_line(first("1. "), lambda s: "1. 0 draw" if "draw" not in s else "1. 0 pass"),
        "both",
        "moves section",
    ),
    ("a move removed", renumbered_without_move_3, "both", "moves section"),
    ("a move added", insert_after(last_move_line, "999. 0 draw"), "both", "move"),
    (
        "a seen card changed",
        edit_line(lambda ls: next(i for i, s in enumerate(ls) if " | " in s), other_seen_card),
        "audited",
        "saw",
    ),
    (
        "a seen note removed",
        edit_line(
            lambda ls: next(i for i, s in enumerate(ls) if " | " in s), lambda s: s.split(" | ")[0]
        ),
        "audited",
        "saw",
    ),
    (
        "a seen note on an unaudited game",
        edit_line(first("2. "), lambda s: s + " | 0:AS"),
        "unaudited",
        "seen",
    ),
    ("a deck message removed", drop(first("msg ", 3)), "both", "transcript entry"),
    (
        "two deck messages swapped",
        swap(first("msg ", 3), first("msg ", 4)),
        "both",
        "transcript entry",
    ),
    ("a signed move removed", drop(first("move ", 1)), "both", "transcript entry"),
    ("an operation added", insert_after(first("move ", 0), EXTRA_OP), "both", "transcript entry"),
    ("every move replaced by concede", every_move_conceded, "both", "signature of move"),
    ("the transcript truncated", cut_transcript(0.5), "both", ""),
    ("the last transcript line cut", cut_transcript(0.999), "both", ""),
    ("the transcript deleted", cut_transcript(0.0), "both", "cut"),
]


def swap_keys(t: str) -> str:
    tags = parse_record_tags(t)
    t = tag("Seat0Key", tags["Seat1Key"])(t)
    return tag("Seat1Key", tags["Seat0Key"])(t)


def cases():
    for which in ("audited", "unaudited"):
        for name, change, applies, reason in CHANGES:
            if applies in ("both", which):
                yield pytest.param(which, change, reason, id=f"{which}: {name}")


@pytest.fixture(scope="module")
def games() -> dict[str, Game]:
    return {"audited": _audited(), "unaudited": _unaudited()}


def test_the_matrix_is_large_enough_and_starts_from_good_records(games) -> None:
    assert len(CHANGES) >= 40
    for game in games.values():
        assert verify_text(game.text).verdict == game.verdict


@pytest.mark.parametrize(("which", "change", "reason"), list(cases()))
def test_a_change_is_rejected_plain_and_resigned(games, which, change, reason) -> None:
    game = games[which]
    changed = change(game.text)
    assert changed != game.text
    plain = verify_text(changed)
    assert plain.verdict in (Verdict.INVALID, Verdict.UNREADABLE), plain.problem
    assert plain.problem
    if "[Signature " not in changed:
        return
    resigned = verify_text(game.resign(changed))
    assert resigned.verdict in (Verdict.INVALID, Verdict.UNREADABLE), resigned.lines
    assert reason in resigned.problem, resigned.problem


@pytest.mark.parametrize("which", ["audited", "unaudited"])
@pytest.mark.parametrize(
    "harmless",
    [
        lambda t: t.replace("\n", "\r\n"),
        lambda t: t.rstrip("\n"),
        lambda t: t.replace("\n", "\r\n").rstrip("\r\n"),
    ],
    ids=["CRLF", "no final newline", "CRLF, no final newline"],
)
def test_harmless_changes_are_accepted(games, which, harmless) -> None:
    game = games[which]
    changed = harmless(game.text)
    assert changed != game.text
    report = verify_text(changed)
    assert report.verdict == game.verdict, report.problem
