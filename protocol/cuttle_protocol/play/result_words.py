"""The words of a result line (SPEC 4.5) after its head: who won and how, and whether the
audit passed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cuttle_net.session import GameSession


def and_list(words: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``: the winners of a table read as a list."""
    return " and ".join(filter(None, [", ".join(words[:-1]), *words[-1:]]))


def verdict_line(
    head: str,
    session: GameSession,
    names: Sequence[str],
    winners: Sequence[int],
    rules_words: Mapping[str, str],
    note: str = "",
) -> tuple[str, bool]:
    """`head` and the verdict of `session`'s ending, won by `winners` (by seat): the line,
    and whether the game ended by the rules with its audit passed. `rules_words` names each
    end by the rules; `note` says why an unfinished game stopped."""
    ending = session.ending(note)

    def who(seat: int | None) -> str:
        return f"{names[seat]} (seat {seat})" if seat is not None else "nobody"

    won = and_list([names[s] for s in winners])
    win = f"{won} {'win' if len(winners) > 1 else 'wins'}"
    if ending.form == "fault":
        verdict = f"{win}: {who(ending.seat)} forfeits, {ending.code}: {ending.text}"
    elif ending.form == "closed" and ending.code == "left":  # a table: its one way to close
        why = f": {ending.text}" if ending.text else ""
        verdict = f"{win}: {who(ending.seat)} left the table{why}"
    elif ending.form == "closed":
        said = f' "{ending.text}"' if ending.text else ""
        verdict = f"{win}: {who(ending.seat)} left, closing with {ending.code}{said}"
    elif ending.form == "concede":
        verdict = f"{win}: {who(session.conceded)} conceded"
    elif ending.by_rules:
        how = rules_words.get(ending.form, ending.form)
        verdict = f"drawn ({how})" if not winners else f"{win} ({how})"
        outcome = session.outcome
        if outcome is not None and outcome.scores:
            verdict += "; scores " + ", ".join(str(s) for s in outcome.scores)
    else:
        return f"{head} unfinished: {ending.text}", False
    if session.audit is not None:
        return f"{head} {verdict}; audit passed", ending.by_rules
    return f"{head} {verdict}; not audited: the cards never shown stay unproven", False
