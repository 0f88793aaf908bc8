"""research.diagnostics.losses: how an agent's lost hands end, counted per seating."""

from agents.base import HandRecord
from research import diagnostics


def _record(scores, went_out, reason="went out"):
    return HandRecord(
        seed=0,
        seats=[],
        team_scores=scores,
        seat_rewards=[],
        steps=1,
        end_reason=reason,
        went_out=went_out,
    )


def test_losses_classifies_each_lost_hand_by_who_ended_it(monkeypatch):
    # Seating 0: the agent holds seats 0 and 2 (team 0); seating 1: seats 1 and 3 (team 1).
    hands = {
        0: [
            _record([500, 300], went_out=0),  # won
            _record([200, 900], went_out=1),  # lost, a random seat went out
            _record([200, 900], went_out=2),  # lost, the agent's partner went out
            _record([400, 400], went_out=3),  # a tie is no loss
        ],
        1: [
            _record([900, 100], went_out=3),  # lost although the agent went out
            _record([900, 100], went_out=None, reason="stock exhausted"),  # lost, no one out
            _record([100, 900], went_out=0),  # won
        ],
    }
    calls = []

    def fake_play_hands(agents, num_hands, variant, seed):
        calls.append([a.name for a in agents])
        return hands[len(calls) - 1]

    monkeypatch.setattr(diagnostics, "play_hands", fake_play_hands)
    counts = diagnostics.losses("greedy", players=4, hands=3)
    assert calls == [
        ["greedy", "random", "greedy", "random"],
        ["random", "greedy", "random", "greedy"],
    ]
    assert counts == {
        "hands": 7,
        "lost": 4,
        "opponent went out": 1,
        "agent went out": 2,
        "stock": 1,
    }


def test_play_hands_records_who_went_out():
    from agents.base import play_hands
    from agents.registry import make_agent

    records = play_hands([make_agent("greedy", seed=s) for s in range(2)], 3, seed=5)
    for record in records:
        if record.end_reason == "went out":
            assert record.went_out in (0, 1)
        else:
            assert record.went_out is None
    assert any(r.went_out is not None for r in records)
