"""The words for a seat's progress at a table (`cuttle_protocol.play.events`) and for how
its games and matches end (SPEC 4.5's result line, the match totals): the one place that
says them, for the terminal client and the headless ``cuttle host``/``join`` alike (the
protocol hands up data, never sentences)."""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from pathlib import Path

from cuttle_protocol.play import (
    CodeToCompare,
    Dialling,
    GameBegins,
    GameResult,
    GameStopped,
    GameUnsettled,
    HostMet,
    MatchEnd,
    MatchTotals,
    PortMapped,
    Progress,
    SeatKey,
    TableClosed,
    TableGame,
    Tell,
)
from cuttle_protocol.shells import (
    Announced,
    CannotAccept,
    ConnectionLost,
    Flooded,
    HostBack,
    HostBusy,
    HostLost,
    MappingRemoved,
    NotAnnounced,
    NotMapped,
    NotSeated,
    PlayerArrived,
    SeatTakenOver,
    TurnedAway,
    WatcherClosed,
    WatchingAgain,
)
from cuttle_protocol.store import RecordNotSaved, Trust
from cuttle_protocol.table import Lobby, SeatInfo, Watching
from cuttle_protocol.wire import Alarm, CodeAlarm

from .gametitles import ending_words, game_title


def lobby_words(lobby: Lobby) -> str:
    """Who sits at the table so far, and how many seats are free."""
    seats = lobby.settings.seats
    who = ", ".join(p.name for p in lobby.players)
    free = seats - len(lobby.players)
    wait = f"waiting for {free} more player{'s' * (free > 1)}" if free else "every seat is taken"
    return f"at the table ({game_title(lobby.settings.game)}, {seats} seats): {who}; {wait}"


def watching_words(event: Watching) -> str:
    """Who watches the table (the host's `watch` entry: SPEC 3.15 *Watchers*)."""
    return "watching: " + (", ".join(n for n, _ in event.watchers) or "nobody")


def seat_words(key: SeatKey) -> str:
    """A seated player as the others see it: name, key, and what trust on first use says."""
    trust = key.trust
    mark = f", {trust.value}" if trust is not None else ""
    if trust is not None and trust.value == "changed":
        mark += ": WARNING, this name had another key before: an impostor?"
    if key.known_as:
        mark += f": known to you as {key.known_as}"  # the same key, proven (SPEC 3.11)
    return f"{key.name} (key {key.fingerprint}{mark})"


def host_lines(met: HostMet) -> list[str]:
    """Who answered a joiner, and what its key proves (or a warning that it proves less)."""
    trust = f", {met.trust}" if met.trust is not None else ""
    where = f" at {met.remote}" if met.remote else ""
    lines = [f"connected to {met.name}{where} (key {met.fingerprint}{trust})"]
    if met.verified:
        lines.append(
            "verified: the host proved the key named by the invitation (no need to compare codes)"
        )
    elif met.trust == Trust.CHANGED:
        lines.append(
            f"WARNING: {met.name}'s identity key CHANGED since your last game (it was "
            f"{met.known_fingerprint}): someone may be impersonating them. "
            "Compare the table's code with every other player's before you trust it."
        )
    elif met.trust == Trust.RENAMED:
        lines.append(
            f"note: this is the key of the player you know as {met.known_as}, now calling "
            f"themselves {met.name}"
        )
    return lines


_ARRIVED = {
    "joined": "joined",
    "back": "is back",
    "replaced": "took its place over",
    "takeover": "is on a new connection: it takes its seat over if it resumes",
    "watcher": "watches the table",
}


def seated_words(seat: SeatInfo | None) -> str:
    """A seated player as a table's news names it: "Bob (seat 1)"."""
    return f"{seat.name} (seat {seat.seat})" if seat is not None else "a player"


def news_line(news: object) -> str | None:
    """A table connection's news (`shells.ConnectionNews`) in words; None for other events."""
    if isinstance(news, PlayerArrived):
        return f"{news.name} (key {news.fingerprint}) {_ARRIVED.get(news.how, news.how)}"
    if isinstance(news, SeatTakenOver):
        return f"{seated_words(news.seat)} took its seat over from its last connection"
    if isinstance(news, WatcherClosed):
        return f"closed a watcher's connection: {news.reason}"
    if isinstance(news, ConnectionLost):
        who = seated_words(news.seat)
        return f"lost the connection to {who} ({news.why}): waiting {news.window:g} s for it"
    if isinstance(news, HostBusy):
        why = f" ({news.message})" if news.message else ""
        return f"the host is busy{why}: trying again"
    if isinstance(news, HostLost):
        return f"lost the connection to the host ({news.message}): dialling again"
    if isinstance(news, HostBack):
        return "the connection to the host is back"
    if isinstance(news, WatchingAgain):
        return "watching again"
    return None


def _claimed(name: str, fingerprint: str) -> str:
    """A handshaken peer, by what it claims: its name and key."""
    return f"{name} (key {fingerprint})"


def listener_line(news: object) -> str | None:
    """What a host's listener tells (`shells.ListenerNews`: a connection refused or lost
    before it took a seat, tries at the code piling up) in words; None for other events."""
    if isinstance(news, CannotAccept):
        return f"cannot accept a connection for now: {news.reason}"
    if isinstance(news, Flooded):
        return f"{news.where}: too many connections from {news.key}: refusing them for now"
    if isinstance(news, TurnedAway):
        who = f" {_claimed(news.name, news.fingerprint)}" if news.name else ""
        return f"{news.where}: refused{who} ({news.code}: {news.reason})"
    if isinstance(news, NotSeated):
        tried = ""
        if news.attempt is not None:
            number, limit = news.attempt
            tried = f"; it saw our hello: try {number} of {limit} at this game's code"
        why = f"{news.message} ({news.code}){tried}"
        if not news.name:
            return f"{news.where}: no handshake: {why}"
        who = _claimed(news.name, news.fingerprint)
        return f"{news.where}: {who} left before taking the seat: {why}"
    if isinstance(news, CodeAlarm):
        return alarm_words(news)
    return None


def listen_words(port: int, e: OSError) -> str:
    """Why the host could not listen on ``port``, and, when the port is taken, the way on
    (the lobby's port, or ``cuttle host --port``)."""
    words = f"cannot listen on port {port}: {e.strerror or e}"
    if e.errno == errno.EADDRINUSE:
        other = port + 1 if 0 < port < 65535 else 4455
        words += (
            " (another program holds it, perhaps another cuttle hosting): stop it, or host"
            f" on another port, {other} say: in the lobby's Host row (o), or with: cuttle host"
            f" --port {other}"
        )
    return words


def alarm_words(alarm: CodeAlarm) -> str:
    """Tries at our code pile up (SPEC 3.11, *Code attempts*): the warning, with the odds."""
    limits, tries = alarm.limits, alarm.tries
    odds = f"{tries} chance{'s' if tries != 1 else ''} in a million"
    if alarm.kind is Alarm.SLOWED:
        return (
            f"WARNING: more than {limits.burst} connections tried this game's code at once "
            f"(someone may be guessing it: {odds} so far); the next ones wait "
            f"{1 / limits.per_second:g} s each, {limits.per_wait} in all"
        )
    if alarm.kind is Alarm.HALF:
        return (
            f"WARNING: this game's code has had {tries} of its {limits.per_wait} "
            f"tries (someone may be guessing it: {odds}); compare the code with care"
        )
    return (
        f"WARNING: this game's code has had all its {limits.per_wait} tries ({odds}): "
        "nobody else can join this wait. Someone may be guessing it: stop and host "
        "again for a new code"
    )


def progress_lines(event: Progress) -> list[str]:
    """The lines a seat's progress is told in (none for what it does not tell)."""
    news = news_line(event)
    if news is None:
        news = listener_line(event)
    if news is not None:
        return [news]
    if isinstance(event, Dialling):
        return [f"connecting to {event.address}… (giving up after {event.give_up_after:g} s)"]
    if isinstance(event, HostMet):
        return host_lines(event)
    if isinstance(event, PortMapped):
        return [
            f"port mapped by the router ({event.method}): from the internet, "
            f"cuttle join {event.address}",
            "or the invitation with that address:",
            f"  cuttle join {event.invitation}",
        ]
    if isinstance(event, NotMapped):
        return [
            f"no port mapping ({event.reason}): from outside your network, forward TCP port "
            f"{event.port} to this machine by hand (see the README)"
        ]
    if isinstance(event, MappingRemoved):
        return [f"port mapping of {event.port} removed from the router ({event.method})"]
    if isinstance(event, Announced):
        return ["announced on the LAN while a seat is free: 'cuttle lan' lists it"]
    if isinstance(event, NotAnnounced):
        return [event.reason if event.multicast else f"not announced on the LAN: {event.reason}"]
    if isinstance(event, Lobby):
        return [lobby_words(event)]
    if isinstance(event, Watching):
        return [watching_words(event)]
    if isinstance(event, SeatKey):
        return [f"seat {event.seat}: {seat_words(event)}"]
    if isinstance(event, CodeToCompare):
        if event.verified:
            return [f"verified: the host proved the invitation's key (code {event.code})"]
        return [f"compare this code with every other player's: {event.code}"]
    if isinstance(event, GameBegins):
        return [f"game {event.number}: you are seat {event.seat}; seat {event.dealer} deals"]
    if isinstance(event, GameStopped):
        saved = record_words(event.record or event.unsaved)
        return [result_line(event.result), *([saved] if saved else [])]
    return []


def record_words(saved: Path | RecordNotSaved | None) -> str:
    """Where a game's record went: saved (its path), or not saved (`unsaved_words`), or ""."""
    if isinstance(saved, Path):
        return f"record saved: {saved}"
    return unsaved_words(saved) if saved is not None else ""


def unsaved_words(unsaved: RecordNotSaved) -> str:
    """One line for a record that could not be written: which, where, the system's reason,
    and what the player can do (a journal that keeps the game: start the seat again)."""
    u = unsaved
    game = "this game" if u.number is None else f"game {u.number}"
    what = f"the record of {game} could not be saved in {u.folder}: {u.reason}"
    if u.journal is None:
        return f"{what} (make room there or fix that folder for the next records)"
    return (
        f"{what}; the game is kept in its journal {u.journal}: make room or fix that folder, "
        "then run the same cuttle host or cuttle join again to save it"
    )


def kept_words(unsaved: Sequence[RecordNotSaved]) -> str:
    """A seat's table ended and records of its games still cannot be saved (`JournalKept`)."""
    return "; ".join(unsaved_words(u).replace("could not", "still cannot", 1) for u in unsaved)


def and_list(words: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``: the winners of a table read as a list."""
    return " and ".join(filter(None, [", ".join(words[:-1]), *words[-1:]]))


def result_line(result: GameResult) -> str:
    """SPEC 4.5's result line: ``result: game N: NAME0 (seat 0), …:`` then who won and how,
    and whether the audit passed (the same at every seat but for the words of a fault)."""
    names, ending = result.names, result.ending
    seats = ", ".join(f"{n} (seat {i})" for i, n in enumerate(names))
    head = f"result: game {result.number}: {seats}:"
    who = f"{names[ending.seat]} (seat {ending.seat})" if ending.seat is not None else "nobody"
    winners = result.winners
    win = f"{and_list([names[s] for s in winners])} {'win' if len(winners) > 1 else 'wins'}"
    if ending.form == "fault":
        verdict = f"{win}: {who} forfeits, {ending.code}: {ending.text}"
    elif ending.form == "closed" and ending.code == "left":  # a table: its one way to close
        why = f": {ending.text}" if ending.text else ""
        verdict = f"{win}: {who} left the table{why}"
    elif ending.form == "closed":
        said = f' "{ending.text}"' if ending.text else ""
        verdict = f"{win}: {who} left, closing with {ending.code}{said}"
    elif ending.form == "concede":
        verdict = f"{win}: {who} conceded"
    elif ending.by_rules:
        how = ending_words(result.game, ending.form)
        verdict = f"drawn ({how})" if not winners else f"{win} ({how})"
        if result.scores:
            verdict += "; scores " + ", ".join(str(s) for s in result.scores)
    else:
        return f"{head} unfinished: {ending.text}"
    if result.audited:
        return f"{head} {verdict}; audit passed"
    return f"{head} {verdict}; not audited: the cards never shown stay unproven"


def no_game_words(game: TableGame) -> str:
    """Why no game was dealt at the table (`game.result` is None)."""
    ended = game.ended
    if game.note:
        return game.note
    return f"{ended.kind}: {ended.detail}" if ended is not None else "the table never started"


def game_line(game: TableGame) -> str:
    """The line a game at a table ends with: its result line, or why no game was dealt."""
    if game.result is None:
        return f"result: no game: {no_game_words(game)}"
    return result_line(game.result)


def totals_line(totals: MatchTotals) -> str:
    """`match after N games: NAME (seat 0) 2 wins, 57 points; ...` (table seats)."""
    parts = []
    for s in totals.seats:
        wins = totals.wins[s.seat]
        part = f"{s.name} (seat {s.seat}) {wins} win{'s' * (wins != 1)}"
        if totals.points is not None:
            part += f", {totals.points[s.seat]} points"
        parts.append(part)
    games = totals.games
    return f"match after {games} game{'s' * (games != 1)}: {'; '.join(parts)}"


def match_end_words(end: MatchEnd) -> str:
    """Why a match ended, naming the seat that ended it (the host's words for a fault)."""
    if isinstance(end, GameUnsettled):
        return end.note or "the game did not end by the rules"
    if isinstance(end, TableClosed):
        ended = end.ended
        if ended.culprit is None:
            return ended.detail
        seat = end.seat
        who = f"{seat.name} (seat {seat.seat})" if seat else f"seat {ended.culprit}"
        who = "you" if end.ours else who
        if ended.kind == "left":
            return f"{who} left: {ended.detail}"
        return f"{who} {ended.kind}: {ended.detail}"
    return "no more games"


def told(say: Callable[[str], None]) -> Tell:
    """A ``tell`` hook that says each event's lines through `say` (the headless commands)."""

    def tell(event: Progress) -> None:
        for line in progress_lines(event):
            say(line)

    return tell
