"""What each player sees (UNISSON.md): hidden hands and stock, private draws, public motions,
and an engine that runs on a view as it runs on the truth."""

from __future__ import annotations

import pytest

from cuttle_net.games.unisson import (
    Drawn,
    Game,
    HandOut,
    IllegalMove,
    RevealError,
    Taken,
    Turned,
    face_text,
    parse_position,
    position_text,
)

from .helpers import cards, position


def test_a_view_hides_the_stock_and_the_other_hands() -> None:
    g = Game.deal(4, 1, dealer=0, order=list(range(32)))
    v = g.view(1)
    text = position_text(v)
    assert text.split()[10] == "?12"  # the stock: a count only
    assert text.split()[12:16] == ["?4", "JC,QC,KC,AC", "?4", "?4"]
    assert text.endswith("view:1")
    for s in (0, 2, 3):
        assert v.hand(s) == [] and v.hand_size(s) == 4
    spectator = g.view(None)
    assert all(spectator.hand(s) == [] for s in range(4))
    assert position_text(spectator).endswith("view:spectator")


def test_a_draw_is_seen_only_by_the_drawer() -> None:
    g = position(["8C", "8D", "9D", "TD"], top="AH")
    views = [g.view(s) for s in range(4)]
    assert g.motions("draw") == [Drawn(0, cards("AH")[0])]
    assert views[1].motions("draw") == [Drawn(0)]  # the others' motion hides the face
    assert views[0].reveals_needed("draw") == 1 and views[1].reveals_needed("draw") == 0
    with pytest.raises(RevealError, match="more card"):
        views[1].apply("draw", reveal=cards("AH"))
    with pytest.raises(RevealError, match="must be given"):
        views[0].apply("draw")
    g.apply("draw")
    views[0].apply("draw", reveal=cards("AH"))
    for s in (1, 2, 3):
        views[s].apply("draw")
    for s in range(4):
        assert position_text(views[s]) == position_text(g.view(s))
    assert views[1].hand_size(0) == 2 and views[1].hand(0) == []


def test_takes_discards_melds_and_extensions_are_public() -> None:
    g = position(["8C 9C TC JS", "8D", "9D", "TD"], "QS", top="KH", seqs=[["7H-9H"], [], [], []])
    v = g.view(2)
    assert g.motions("take QS") == [Taken(0, cards("QS")[0]), Turned(cards("KH")[0])]
    g.apply("take QS")
    v.apply("take QS", reveal=cards("KH"))  # the replacement is turned face up for all
    assert v.public_hand(0) == cards("QS") and v.hand(0) == cards("QS")
    assert position_text(v) == position_text(g.view(2))
    g.apply("meld 8C 9C TC")
    v.apply("meld 8C 9C TC")  # named from the hidden hand: the view places them
    assert v.sequences(0)[1] == tuple(cards("8C 9C TC"))
    assert position_text(v) == position_text(g.view(2))
    g2 = position(["TH JS", "8D", "9D", "TD"], seqs=[["7H-9H"], [], [], []])
    assert g2.motions("extend 1 TH") == [HandOut(0, cards("TH")[0], "extend")]
    assert g2.motions("discard JS") == [HandOut(0, cards("JS")[0], "range")]


def test_a_view_refuses_a_card_it_knows_is_elsewhere() -> None:
    g = position(["8C 9C", "8D", "9D", "TD"])
    v = g.view(1)
    with pytest.raises(IllegalMove, match="holds no 8♦"):
        v.apply("discard 8D")  # seat 1 holds the only 8♦
    v.apply("discard 9C")
    assert v.hand_size(0) == 1 and "9C" in position_text(v).split()[11]


def test_a_view_cannot_list_the_moves_of_a_hand_it_cannot_see() -> None:
    v = Game.deal(4, seed=5).view(2)
    with pytest.raises(ValueError, match="cannot see"):
        v.legal_moves()
    assert v.to_act == 1


def test_a_refused_reveal_leaves_the_view_unchanged() -> None:
    g = position(["8C", "8D", "9D", "TD"], top="AH")
    v = g.view(0)
    before = position_text(v)
    with pytest.raises(RevealError):
        v.apply("draw", reveal=cards("8C"))  # its own hand holds the only 8♣
    with pytest.raises(RevealError):
        v.apply("draw", reveal=cards("AH AS"))
    assert position_text(v) == before


def test_hands_shown_at_the_end_score_a_view_like_the_truth() -> None:
    g = position(["8C 9C TC", "8D", "9D TD JD", "TS"], stock="", last=0, used=1)
    v = g.view(3)
    with pytest.raises(ValueError, match="show the hidden"):
        v.scores()
    for s in (0, 1, 2):
        v.show_hand(s, g.hand(s))
    assert v.scores() == g.scores()
    with pytest.raises(RevealError):
        g.view(3).show_hand(0, cards("8C 9C TS"))  # TS is in seat 3's own hand


def test_a_dealt_view_is_the_view_of_the_deal() -> None:
    g = Game.deal(5, 2, dealer=4, seed=11)
    for s in range(5):
        v = Game.dealt_view(5, 2, 4, s, g.hand(s), g.range_cards())
        assert position_text(v) == position_text(g.view(s))
    spectator = Game.dealt_view(5, 2, 4, None, [], g.range_cards())
    assert position_text(spectator) == position_text(g.view(None))
    assert parse_position(position_text(spectator)).viewer == spectator.viewer
    with pytest.raises(ValueError, match="more than 2"):
        Game.dealt_view(5, 2, 4, 0, cards("9H 9H 9H 7C"), g.range_cards())
    assert face_text(g.range_cards()[0])


def test_faces_from_outside_must_be_faces() -> None:
    g = position(["8C", "8D", "9D", "TD"], top="AH")
    v = g.view(0)
    for bad in (32, -1, True, "AH"):
        with pytest.raises(RevealError, match="not a face"):
            v.apply("draw", reveal=[bad])
        with pytest.raises(ValueError, match="not a face"):
            Game.dealt_view(4, 1, 3, 0, [0, 1, 2, bad], [4, 5, 6, 7])
    end = position(["8C", "8D", "9D", "TD"], stock="", last=0, used=1).view(1)
    with pytest.raises(RevealError, match="not a face"):
        end.show_hand(0, [99])
    with pytest.raises(ValueError, match="not at a table"):
        Game.dealt_view(4, 1, 3, 4, [0, 1, 2, 3], [4, 5, 6, 7])
