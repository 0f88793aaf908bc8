"""The slot search's state (engine/opening.py ``_SlotState``): its copy and its memo key
are written field by field for speed, so these tests hold them to the declared fields (a
field added to ``__slots__`` and forgotten in either fails here)."""

from canasta_env.engine.opening import _new_slot_state, _SlotState

FIELDS = tuple(_SlotState.__slots__)


def _state_of_distinct_values() -> _SlotState:
    state = _new_slot_state(_SlotState)
    for value, name in enumerate(FIELDS):
        setattr(state, name, value)
    return state


def test_every_field_is_documented_with_its_core_name():
    for name, doc in _SlotState.__slots__.items():
        assert doc.endswith(")") and "(" in doc, f"{name}: say what it holds and its C++ name"


def test_copy_copies_every_field():
    state = _state_of_distinct_values()
    twin = state.copy()
    assert twin is not state
    assert [getattr(twin, name) for name in FIELDS] == list(range(len(FIELDS)))


def test_memo_key_is_the_suffix_id_then_every_field_but_the_position():
    state = _state_of_distinct_values()
    rest = [getattr(state, name) for name in FIELDS if name != "position"]
    assert state.memo_key(-1) == (-1, *rest)
