"""How a game ended, as a record's ``Ending`` tag states it (SPEC.md §5.2.1).

    WORD                                    the game ended by the rules: one of the game's
                                            endings (Cuttle: goal, passes, agreed)
    concede                                 a player conceded (the signed move says who)
    fault KIND by seat S: DETAIL            seat S broke the rules or the protocol; S forfeits
    closed by seat S: CODE "REASON"         seat S left, closing the connection (its claim,
                                            quoted); S forfeits
    unfinished: DETAIL                      stopped with nobody to blame

``Ending.result`` is the ``Result`` each form implies once the winners by the rules (or the
conceding seat) are known: a forfeit gives the win to every other seat.  The words after
``:`` are the signer's description, never a fact ``cuttle verify`` relies on.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

OTHER_FORMS = ("concede", "fault", "closed", "unfinished")
TABLE_PREFIX = "table_"
"""Fault kinds the N-player table finds (SPEC 3.15): never a deck cheat kind of the same name."""
WIRE_PREFIX = "wire_"
"""Fault kinds of part 3's wire (a close code, ``-`` written ``_``)."""
MAX_TEXT = 200  # characters of a detail or a quoted reason

_RULES = re.compile(r"[a-z][a-z-]*[a-z]")
_FAULT = re.compile(r"fault ([a-z][a-z0-9_]*) by seat ([0-9]): (.*)", re.S)
_CLOSED = re.compile(r'closed by seat ([0-9]): ([a-z][a-z0-9-]*) "(.*)"', re.S)
_UNFINISHED = re.compile(r"unfinished: (.*)", re.S)


class EndingError(ValueError):
    """The text is not an ``Ending`` of SPEC.md §5.2; the message says why."""


@dataclass(frozen=True)
class Ending:
    """``form`` is concede, fault, closed, unfinished, or the game's word for an end by the
    rules (goal, passes, agreed…).

    ``seat``: the culprit of a fault, the seat that closed; ``code``: the fault kind or the
    close code; ``text``: the detail, or the closing seat's reason.
    """

    form: str
    seat: int | None = None
    code: str = ""
    text: str = ""

    def __str__(self) -> str:
        if self.form == "fault":
            return f"fault {self.code} by seat {self.seat}: {self.text}"
        if self.form == "closed":
            return f'closed by seat {self.seat}: {self.code} "{self.text}"'
        if self.form == "unfinished":
            return f"unfinished: {self.text}"
        return self.form

    @property
    def by_rules(self) -> bool:
        return self.form not in OTHER_FORMS

    def result(self, winners: tuple[int, ...] | None = None, seats: int = 2) -> str:
        """The ``Result`` this ending implies at a table of ``seats``: ``winners`` are the
        winning seats by the rules (empty for a draw), or every seat but the conceder's."""
        if self.form in ("fault", "closed"):  # the culprit, or the seat that left, forfeits
            return result_text(tuple(s for s in range(seats) if s != self.seat))
        if self.form == "unfinished" or winners is None:
            return "*"
        return result_text(winners) if winners else "draw"


def result_text(winners: tuple[int, ...]) -> str:
    """A ``Result`` naming winning seats: ``2``, or ``0,1,3`` when they share the win."""
    return ",".join(str(s) for s in sorted(winners))


def clean_text(text: str) -> str:
    """Words from a player (a detail, a peer's reason) made safe to write and show: control
    characters become spaces, runs of spaces one, at most ``MAX_TEXT`` characters."""
    chars = [" " if unicodedata.category(c).startswith("C") else c for c in text]
    return re.sub(r" +", " ", "".join(chars)).strip()[:MAX_TEXT]


def table_fault_kind(kind: str) -> str:
    """The ``Ending`` kind of a fault the N-player table found (SPEC 3.15, 5.2.1): ``table_``
    and the table's kind with ``_`` for ``-`` (``bad-signature`` → ``table_bad_signature``),
    so that it never reads as the deck protocol's cheat of the same name, whose evidence is
    the transcript. A ``timeout`` and a wire fault (``wire_…``) keep their kinds."""
    if kind == "timeout" or kind.startswith(WIRE_PREFIX):
        return kind
    return TABLE_PREFIX + kind.replace("-", "_")


def fault_ending(kind: str, culprit: int, detail: str) -> Ending:
    return _checked(Ending("fault", culprit, kind, clean_text(detail)))


def closed_ending(seat: int, code: str, reason: str) -> Ending:
    """The peer at ``seat`` closed the connection with ``code`` and ``reason`` (its claim)."""
    code = re.sub(r"[^a-z0-9-]", "", code.lower()) or "unknown"
    if not code[0].isalpha():
        code = "x" + code
    return _checked(Ending("closed", seat, code, clean_text(reason)))


def unfinished_ending(detail: str) -> Ending:
    return _checked(Ending("unfinished", text=clean_text(detail)))


def parse_ending(text: str) -> Ending:
    """Read an ``Ending`` tag's value; raise ``EndingError`` unless it is well formed."""
    if _RULES.fullmatch(text) and text not in ("fault", "closed", "unfinished"):
        return Ending(text)
    if m := _FAULT.fullmatch(text):
        return _checked(Ending("fault", int(m[2]), m[1], m[3]))
    if m := _CLOSED.fullmatch(text):
        return _checked(Ending("closed", int(m[1]), m[2], m[3]))
    if m := _UNFINISHED.fullmatch(text):
        return _checked(Ending("unfinished", text=m[1]))
    raise EndingError(
        f"{text!r} is not an ending: a word (goal, passes…), concede, "
        "'fault KIND by seat S: …', 'closed by seat S: CODE \"…\"' or 'unfinished: …'"
    )


def _checked(ending: Ending) -> Ending:
    if ending.text != clean_text(ending.text):
        raise EndingError(
            f"the words of an ending are at most {MAX_TEXT} printable characters, "
            "without control characters, leading, trailing or repeated spaces"
        )
    return ending


__all__ = [
    "MAX_TEXT",
    "OTHER_FORMS",
    "TABLE_PREFIX",
    "WIRE_PREFIX",
    "Ending",
    "EndingError",
    "clean_text",
    "closed_ending",
    "fault_ending",
    "parse_ending",
    "result_text",
    "table_fault_kind",
    "unfinished_ending",
]
