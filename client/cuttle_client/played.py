"""The games you played: the records in the data folder's ``games/``, newest first, to
replay, verify or export (the lobby's ``r``; the same as ``cuttle replay``, ``verify`` and
``export`` on one file)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cuttle_net.records.record import RecordError, parse_record, read_record_file, table_tags
from cuttle_net.records.verify import verify_text

from .footer import Footer
from .games import GAMES
from .peertext import plain
from .recordtext import as_json, verdict_words

MAX_LISTED = 200  # the newest records; older ones stay on disk, for the commands
LIST_MARGIN = 4  # the columns of the screen that the list's border and scroll bar take


@dataclass(frozen=True)
class Played:
    """One record of the folder, as the list shows it."""

    path: Path
    line: str  # "2026-11-21 12:00 · Cuttle · ann vs bob · ann won"


def summary(path: Path, tags: dict[str, str], width: int = 0) -> str:
    """A record in one line: when, which game, who played, and how it ended; within
    ``width`` characters if given (shortened first, then cut)."""
    tags = table_tags(tags)  # an old practice record leaves its game unsaid
    game = tags.get("Game", "?")
    title = GAMES[game].title if game in GAMES else game
    seats = int(tags.get("Players", "2")) if tags.get("Players", "2").isdigit() else 2
    names = [tags.get(f"Seat{s}", "?") for s in range(seats)]
    practice = " practice" if "Practice" in tags else ""
    date = tags.get("Date", "").replace("T", " ")[:16]
    end = _end(tags, names)
    # The line whole; else without the year; else the first players named and the others
    # counted ("Ann, Bob +4"), a long name cut: the result stays in sight.
    lines = []
    for when in (date, date[5:]):
        who = " vs ".join(names) if seats == 2 else ", ".join(names)
        lines.append(f"{when} · {title}{practice} · {who} · {end}")
    short = [n if len(n) <= 12 else n[:11].rstrip() + "…" for n in names]
    end = _end(tags, short)
    lines += [
        f"{date[5:]} · {title}{practice} · {', '.join(short[:k])} +{seats - k} · {end}"
        for k in range(seats - 1, 0, -1)
    ]
    line = next((x for x in lines if not width or len(x) <= width), lines[-1])
    return line if not width or len(line) <= width else line[: width - 1] + "…"


def _end(tags: dict[str, str], names: list[str]) -> str:
    """How the game ended, naming the winners: "ann won (concede)", "drawn"."""
    result = tags.get("Result", "*")
    if result == "*":
        end = "unfinished"
    elif result == "draw":
        end = "drawn"
    else:
        seats = len(names)
        won = [names[int(s)] for s in result.split(",") if s.isdigit() and int(s) < seats]
        end = f"{' and '.join(won)} won" if won else result
    if tags.get("Ending") in ("concede", "closed", "fault"):
        end += f" ({tags['Ending']})"
    return end


def played_games(folder: Path, width: int = 0) -> list[Played]:
    """The records in ``folder``, newest first (at most ``MAX_LISTED``), each in a line
    of at most ``width`` characters (if given)."""
    try:
        paths = [p for p in folder.glob("*.cuttle") if p.is_file()]
    except OSError:
        return []
    paths.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    out = []
    for path in paths[:MAX_LISTED]:
        try:
            tags = parse_record(read_record_file(path)).tags
            line = summary(path, tags, width)
        except (OSError, UnicodeDecodeError, RecordError, ValueError) as e:
            line = f"{path.name}: not a readable record ({e})"
        out.append(Played(path, line))
    return out


class TextScreen(ModalScreen[None]):
    """Words to read (a record's verification), closed with Esc."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,enter", "dismiss", "Close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help"):
            yield Static(plain(self.title_text, style="bold"))
            with VerticalScroll(id="help-text"):
                yield Static(plain(self.text))
            yield Static("Esc: close", classes="hint")
        yield Footer()  # its own keys, over the footer of the screen below (modals.py)


class PlayedScreen(Screen[None]):
    """The records in the games folder, newest first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "replay", "Replay"),
        Binding("v", "verify", "Verify"),
        Binding("e", "export", "Export JSON"),
        Binding("escape,q", "app.pop_screen", "Lobby"),
    ]

    def __init__(self, folder: Path, ascii: bool = False) -> None:
        super().__init__()
        self.folder, self.ascii = folder, ascii
        self.games: list[Played] = []

    def compose(self) -> ComposeResult:
        # One line each at the screen's width (the list's border and scroll bar aside).
        self.games = played_games(self.folder, self.app.size.width - LIST_MARGIN)
        yield Static(plain(f"cuttle · Games played · {self.folder}"), id="title")
        if self.games:
            yield OptionList(*(Option(plain(g.line)) for g in self.games), id="played")
        else:
            yield Static(
                plain(f"No game yet: every game you play is saved in {self.folder}."),
                id="played-none",
            )
        yield Static(id="notice")
        yield Footer()

    def on_mount(self) -> None:
        if self.games:
            self.query_one("#played", OptionList).focus()

    def _chosen(self) -> Played | None:
        if not self.games:
            self.notice("No game to choose.")
            return None
        index = self.query_one("#played", OptionList).highlighted
        return self.games[index or 0]

    def notice(self, text: str) -> None:
        self.query_one("#notice", Static).update(plain(text))  # a path, a record's words

    @on(OptionList.OptionSelected, "#played")
    def action_replay(self) -> None:
        game = self._chosen()
        if game is not None:
            self.notice(f"Checking {game.path.name}…")
            self._replay(game.path)

    @work(thread=True, exclusive=True)
    def _replay(self, path: Path) -> None:
        """Verify (seconds for a network game's proofs) off the screen's loop, then show."""
        from .replay import ReplayScreen, load

        try:
            p = load(read_record_file(path))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            self.app.call_from_thread(self.notice, f"Cannot replay {path.name}: {e}")
            return
        self.app.call_from_thread(self.notice, "")
        self.app.call_from_thread(self.app.push_screen, ReplayScreen(p, self.ascii))

    def action_verify(self) -> None:
        game = self._chosen()
        if game is not None:
            self.notice(f"Checking {game.path.name}…")
            self._verify(game.path)

    @work(thread=True, exclusive=True)
    def _verify(self, path: Path) -> None:
        try:
            report = verify_text(read_record_file(path))
        except (OSError, RecordError) as e:
            self.app.call_from_thread(self.notice, f"Cannot read {path.name}: {e}")
            return
        text = "\n".join([*report.lines, f"verdict: {verdict_words(report)}"])
        self.app.call_from_thread(self.notice, "")
        self.app.call_from_thread(self.app.push_screen, TextScreen(f"verify {path.name}", text))

    def action_export(self) -> None:
        """The record as JSON beside it (``cuttle export`` writes the same)."""
        game = self._chosen()
        if game is None:
            return
        out = game.path.with_suffix(".json")
        try:
            record = parse_record(read_record_file(game.path))
            out.write_text(json.dumps(as_json(record), indent=1) + "\n", encoding="utf-8")
        except (OSError, UnicodeDecodeError, RecordError) as e:
            self.notice(f"Cannot export {game.path.name}: {e}")
            return
        self.notice(f"Exported as JSON beside the record: {out.name}")
