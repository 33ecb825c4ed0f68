"""Property: however moves, draw offers, concessions and the network interleave, two honest
sessions never crash, end the same way, and keep records that verify (SPEC.md 4.2, 4.4)."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cuttle_net.games.cuttle.moves import OFFER_DRAW
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text

from .link import Link

# Weighted: mostly deliveries and moves, so that games get going before anyone concedes.
ACTIONS = ("deliver0", "deliver1", "move") * 6 + (
    "offer",
    "concede0",
    "concede1",
    "drop",
    "reconnect",
    "cut",
)


class DroppingLink(Link):
    """A link that can drop: what is sent meanwhile waits, and a reconnection delivers it in
    order, as the resume of SPEC 4.6 does (what was lost is re-sent; nothing twice)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.down = False
        self.held: list[list] = [[], []]

    def post(self, sender: int, out) -> None:
        if not self.down:
            return super().post(sender, out)
        self.events[sender].extend(out.events)
        self.held[1 - sender].extend(out.sends)

    def reconnect(self) -> None:
        self.down = False
        for seat in (0, 1):
            self.inbox[seat].extend(self.held[seat])
            self.held[seat].clear()


def ending(s) -> tuple:
    fault = (s.fault.kind, s.fault.culprit) if s.fault else None
    return s.outcome, fault, s.closed


@settings(
    max_examples=10,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a game is slow
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 2**16),
    rules=st.sampled_from(["classic", "standard+random-fours+joker"]),
    data=st.data(),
)
def test_any_interleaving_ends_alike_on_both_sides(seed: int, rules: str, data) -> None:
    link = DroppingLink(Rules.parse(rules), seed)
    a, b = link.sessions
    for s in (0, 1):
        link.post(s, link.sessions[s].start())
    cut = False
    in_flight_at_cut = False
    for _ in range(400):
        if a.finished and b.finished:
            break
        action = data.draw(st.sampled_from(ACTIONS), label="action")
        if action == "drop":
            link.down = True
        elif action == "reconnect":
            link.reconnect()
        elif action.startswith("deliver"):
            seat = int(action[-1])
            if link.inbox[seat]:
                link.deliver_one(seat)
        elif action in ("move", "offer"):
            mover = next((s for s in link.sessions if s.my_turn), None)
            if mover is None:
                continue
            if action == "offer" and mover.view.can_offer_draw:
                link.post(mover.seat, mover.play(OFFER_DRAW))
            else:
                link.post(
                    mover.seat, mover.play(link.bots[mover.seat].choose(mover.view, link.rng))
                )
        elif action.startswith("concede"):
            s = link.sessions[int(action[-1])]
            if not s.finished and s.outcome is None:
                link.post(s.seat, s.concede())
        elif data.draw(st.integers(0, 9), label="cut?") == 0:  # rarely: gone for good
            held = link.inbox[0] or link.inbox[1] or link.held[0] or link.held[1]
            cut, in_flight_at_cut = True, bool(held)
            for s in link.sessions:
                link.post(s.seat, s.connection_lost("the other player did not come back"))
            break
    if not cut:  # what is still in flight arrives; a long game is ended by a concession
        link.reconnect()
        link.pump()
        if not (a.finished and b.finished):
            s = link.sessions[data.draw(st.integers(0, 1), label="late concession")]
            if not s.finished and s.outcome is None:
                link.post(s.seat, s.concede())
            link.pump()
            link.play_on()  # the audit, if the game ended by the rules meanwhile
    assert a.finished and b.finished
    if not cut or not in_flight_at_cut:
        assert ending(a) == ending(b)
    if not cut:
        assert a.fault is None and b.fault is None
        assert [(r.seat, r.text) for r in a.records] == [(r.seat, r.text) for r in b.records]
    for s in link.sessions:
        report = verify_text(build_record(s, ("ann", "bob"), "2026-11-22T00:00:00Z"))
        assert report.verdict in (Verdict.VALID, Verdict.UNAUDITED), report.problem
