"""The generated docs (issue 3) must match the rules object, the source and docs/rules.md;
docs/rules.md must keep every rule id of the rules contract; docs/observation.md must say
where each field lies (issue 10); docs/env.md must give the env's real spaces, action ids
and arguments (issue 47)."""

import random
import re
from pathlib import Path

import numpy as np
import pytest

import canasta_env
from canasta_env import docs, docs_env, docs_observation
from canasta_env.actions import MOVE_KINDS, NUM_ACTIONS, action_to_str
from canasta_env.observation import COUNTS, FLAG, FLAGS, HIGHS, LAYOUT, LOWS, ONE_HOT, decode_view

ROOT = Path(__file__).resolve().parent.parent
SHARED_RULES = ROOT.parent / "shared" / "RULES.md"
AMBIGUITY_MENTION = re.compile(r"ambiguit(?:y|ies)[ _]?(\d+)", re.IGNORECASE)


def test_generated_docs_are_current():
    """docs/presets.md, docs/rules_<preset>.md and docs/observation.md equal what the
    generator writes now (it reads only this checkout)."""
    pages = docs.generate()
    assert set(pages) >= {
        "docs/presets.md",
        "docs/observation.md",
        "docs/rules_spanish.md",
        "docs/env.md",
    }
    stale = [p for p, text in pages.items() if (ROOT / p).read_text(encoding="utf-8") != text]
    assert not stale, f"regenerate with `python -m canasta_env.docs`: {stale}"


def test_presets_table_lists_every_field_and_preset():
    table = docs.presets_table()
    for name in ("classic", "canastone", "spanish", "italian"):
        assert f"`{name}`" in table
    assert "| `meld_closes_at` | 0 | 0 | 7 | 0 |" in table
    assert "| `target_score` | 5000 | 15000 | 7000 | 15000 |" in table


# ------------------------------------------------------------------ docs/rules.md
def _ambiguities(text: str) -> list[int]:
    """The numbers of the list under the "Resolved ambiguities" heading."""
    section = text.split("## Resolved ambiguities", 1)[1].split("\n## ", 1)[0]
    return [int(n) for n in re.findall(r"^(\d+)\. ", section, re.MULTILINE)]


def _ids_named_in(directory: str) -> set[str]:
    return set(docs._scan(directory))


def test_rule_ids_match_the_rules_contract():
    """docs/rules.md has a heading for exactly the rule ids of RULES.md (beside this
    checkout as ../shared/RULES.md) and the same resolved ambiguities."""
    if not SHARED_RULES.exists():
        pytest.skip("../shared/RULES.md is not beside this checkout")
    contract = SHARED_RULES.read_text(encoding="utf-8")
    contract_ids = set(re.findall(r"^- ([GCKSI]-\d+) ", contract, re.MULTILINE))
    assert len(contract_ids) == 66  # 9 G + 18 C + 4 K + 19 S + 16 I
    assert set(docs.rule_titles()) == contract_ids
    page = (ROOT / docs.RULES_PAGE).read_text(encoding="utf-8")
    assert _ambiguities(page) == _ambiguities(contract) == list(range(1, 16))


def test_every_rule_id_named_in_code_and_tests_is_in_the_rules_page():
    named = _ids_named_in("canasta_env") | _ids_named_in("tests")
    assert {"S-15", "C-7", "K-3", "I-12", "G-8"} <= named  # the scan finds real mentions
    missing = sorted(named - set(docs.rule_titles()), key=docs._sort_key)
    assert not missing, f"rule ids named in code or tests but not in docs/rules.md: {missing}"


def test_every_rule_of_the_engine_is_mirrored_in_the_core():
    """A rule id the Python engine names where it implements rules (engine/, the
    observation) is named in the compiled core's C++ too (csrc/, beside the code that
    mirrors it), and the core names no rule the rules page lacks: a rule cannot land in
    one engine only, and the rule index lists the core's site of each."""
    engine = docs.engine_rule_ids()
    core = docs.core_sites()
    assert {"C-9", "S-19", "I-3", "G-6"} <= engine  # the scans find real mentions
    assert {"C-9", "S-19", "I-3", "G-6"} <= set(core)
    missing = sorted(engine - set(core), key=docs._sort_key)
    assert not missing, f"rules the engine implements that csrc/ never names: {missing}"
    unknown = sorted(set(core) - set(docs.rule_titles()), key=docs._sort_key)
    assert not unknown, f"rule ids named in csrc/ but not in docs/rules.md: {unknown}"
    page = (ROOT / "docs/rules_classic.md").read_text(encoding="utf-8")
    assert "| core |" in page and "`csrc/game.cpp`" in page


def test_every_ambiguity_named_in_code_and_tests_is_in_the_rules_page():
    named = set()
    for directory in ("canasta_env", "tests"):
        for path in (ROOT / directory).rglob("*.py"):
            named |= {int(n) for n in AMBIGUITY_MENTION.findall(path.read_text("utf-8"))}
    assert {3, 4, 13} <= named
    listed = set(_ambiguities((ROOT / docs.RULES_PAGE).read_text(encoding="utf-8")))
    assert named <= listed, f"ambiguities named but not listed: {sorted(named - listed)}"


def test_rule_headings_are_read_once_each():
    text = "### G-1 Cards\ntext\n### C-12 Blocked pile and the take\n- C-13 is prose\n"
    assert docs.rule_titles(text) == {"G-1": "Cards", "C-12": "Blocked pile and the take"}
    with pytest.raises(ValueError, match="G-1 has two headings"):
        docs.rule_titles(text + "### G-1 Cards again\n")


def test_rule_links_of_the_generated_pages_reach_a_heading():
    """Every ``rules.md#...`` link of the preset pages is the anchor of a heading there."""
    assert docs.anchor("C-12 Blocked pile, and the take") == "c-12-blocked-pile-and-the-take"
    page = (ROOT / docs.RULES_PAGE).read_text(encoding="utf-8")
    anchors = {docs.anchor(h) for h in re.findall(r"^#+ (.+)$", page, re.MULTILINE)}
    links = set()
    for name, text in docs.generate().items():
        if name.startswith("docs/rules_"):
            links |= set(re.findall(r"\]\(rules\.md#([^)]+)\)", text))
    assert len(links) == 66
    assert links <= anchors, sorted(links - anchors)


# ------------------------------------------------------------------ docs/observation.md
def test_every_observation_field_has_a_meaning():
    assert list(docs_observation.MEANINGS) == docs_observation.declared_names()


def _mid_game(num_players: int, seed: int):
    """A classic game some random turns in, and the observation of the player to act."""
    env = canasta_env.raw_env(variant="classic", num_players=num_players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(60):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
        if env.game.hand_over:
            break
    return env, env.observe(env.agent_selection)["observation"]


def test_page_example_reads_what_the_game_holds():
    """The page's example runs, and its numbers are the game's."""
    namespace: dict = {}
    exec(docs_observation.example_code(), namespace)
    game = namespace["env"].unwrapped.game
    seat = game.current
    assert namespace["aces"] == game.hands[seat][10]
    assert namespace["top"] == game.pot[-1]
    assert namespace["their_score"] == game.scores[(game.team_of[seat] + 1) % game.num_teams]


ROW = re.compile(r"^\| (\d+)(?: \+ (\d+)k)? \| (\d+)(?: \+ \d+k)? \| (\d+) \| `([\w.]+)` \|")


def _page_rows():
    """(start, stride, end, size, name, 1/scale) of each field row of docs/observation.md."""
    page = (ROOT / "docs/observation.md").read_text(encoding="utf-8")
    for line in page.splitlines():
        match = ROW.match(line)
        if match:
            start, stride, stop, size, name = match.groups()
            scale = line.split(" | ")[5]
            numerator, _, denominator = scale.partition("/")
            assert numerator == "1", line
            yield int(start), int(stride or 0), int(stop), int(size), name, int(denominator or 1)


def _declared_fields() -> dict:
    """Field name (``group.field`` in groups) -> its declaration."""
    found = {}
    for block in LAYOUT.blocks:
        for item in block.items:
            if hasattr(item, "fields"):
                found.update({f"{item.name}.{f.name}": f for f in item.fields})
            else:
                found[item.name] = item
    return found


def _read(entries: np.ndarray, kind: str, values: tuple):
    ints = [int(v) for v in np.rint(entries)]
    if kind == COUNTS:
        return ints
    if kind == FLAGS:
        return [bool(v) for v in ints]
    if kind == ONE_HOT:
        return values[ints.index(1)] if 1 in ints else -1
    return bool(ints[0]) if kind == FLAG else ints[0]


@pytest.mark.parametrize("num_players, seed", [(4, 3), (3, 11)])
def test_page_offsets_and_scales_read_the_observation(num_players, seed):
    """Reading each field by the page's own numbers (start, end, scale; copy 1 of each
    group) gives what decode_view gives: the table is right, not just current."""
    _, obs = _mid_game(num_players, seed)
    view = decode_view(obs)
    rows = list(_page_rows())
    assert len(rows) == len(docs_observation.declared_names())
    fields = _declared_fields()
    checked_nonzero = 0
    for start, stride, stop, size, name, per in rows:
        assert stop - start == size
        field = fields[name]
        group, _, field_name = name.rpartition(".")
        copy = 1 if group else 0
        entries = obs[start + copy * stride : stop + copy * stride] * per
        got = _read(entries, field.kind, field.values)
        expected = getattr(getattr(view, group)[copy], field_name) if group else getattr(view, name)
        assert got == expected, name
        checked_nonzero += bool(np.any(entries))
    assert checked_nonzero >= 15  # a position with content, not an empty table


def test_the_generator_reads_its_options_and_help_writes_nothing(capsys, monkeypatch):
    """`python -m canasta_env.docs --help` prints its usage and writes no page (it used to
    ignore --help and rewrite every page); --check reports fresh pages with status 0."""
    written = []
    monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: written.append(self))
    with pytest.raises(SystemExit) as raised:
        docs.main(["--help"])
    assert raised.value.code == 0 and "--check" in capsys.readouterr().out
    assert docs.main(["--check"]) == 0 and not written
    with pytest.raises(SystemExit):
        docs.main(["--chek"])  # a mistyped option is refused, not taken as "write"
    assert not written


# ------------------------------------------------------------------ docs/env.md
def _env_page() -> str:
    return (ROOT / "docs/env.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "cls, meanings",
    [
        (docs_env.AEC_CLASS, docs_env.AEC_MEANINGS),
        (docs_env.GYM_CLASS, docs_env.GYM_MEANINGS),
    ],
)
def test_env_page_has_a_meaning_for_each_argument(cls, meanings):
    """The page's argument tables come from the constructors' signatures; each argument has
    its meaning written, and no meaning names an argument that is gone."""
    names = [parameter.name for parameter in docs_env.arguments(cls)]
    assert "variant" in names and "reward_scale" in names
    assert list(meanings) == names


def test_env_page_action_ranges_cover_the_layout():
    """The ranges start at 0, follow each other and end at the last id; each is one kind of
    move; every observation block has its line."""
    ranges = docs_env.action_ranges()
    assert ranges[0][1] == 0 and ranges[-1][2] == NUM_ACTIONS - 1
    for (_, _, last), (_, first, _) in zip(ranges, ranges[1:]):
        assert first == last + 1
    for name, first, last in ranges:
        assert len(set(MOVE_KINDS[first : last + 1])) == 1, name
    assert list(docs_env.BLOCK_MEANINGS) == [block.name for block in LAYOUT.blocks]


def test_env_page_ids_by_card_are_the_actions():
    """Each id of the page's card table is the action its column says (action_to_str)."""
    section = _env_page().split("### Ids by card", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert len(rows) == 15
    prefixes = ("discard {}", "add {}", "add 2 to {}", "add JK to {}", "meld ")
    checked = 0
    for row in rows:
        card, *cells = [cell.strip() for cell in row.strip("|").split("|")]
        card = card.strip("`")
        for prefix, cell in zip(prefixes, cells):
            if cell == "-":
                continue
            first, _, last = cell.partition("-")
            for action in range(int(first), int(last or first) + 1):
                text = action_to_str(action)
                assert text.startswith(prefix.format(card)), (card, action, text)
                if prefix == "meld " and card != "wild":
                    assert text.split()[1] == card, (card, action, text)
                checked += 1
    assert checked == NUM_ACTIONS - 6 - 24  # all but draw, the takes, pass and the runs


def test_env_page_gives_the_live_spaces_and_defaults():
    """The spaces on the page are those of the envs users make, and each default is the
    constructor's."""
    import gymnasium as gym

    page = _env_page()
    aec = canasta_env.env(num_players=2)
    gym_env = gym.make("canasta_env/Canasta-v0")
    for space in (aec.observation_space("player_0"), gym_env.observation_space):
        box = space["observation"]
        assert np.array_equal(box.low, LOWS) and np.array_equal(box.high, HIGHS)
        named = repr(space).replace(
            f"Box({box.low}, {box.high}, {box.shape}, {box.dtype})",
            "Box(LOWS, HIGHS, (686,), float32)",
        )
        assert f"# {named}" in page
    assert f"| Action Values | `{aec.action_space('player_0')!r}` |" in page
    assert "| `num_players` | `4` |" in page and "| `num_players` | `2` |" in page
    assert '| `illegal_action` | `"raise"` |' in page
    assert '| `illegal_action` | `"terminate"` |' in page
    gym_env.close()
