"""Rule sets and variant switches, fixed for a game before the deal."""

from __future__ import annotations

from dataclasses import dataclass, field

RULE_SETS = ("classic", "standard")
VARIANTS = (
    "eight-one-off",
    "joker",
    "nine-frozen",
    "nine-to-deck",
    "queens-protect-queens",
    "random-fours",
    "ten-blocks-scuttle",
)
# Both change what a 9 does to the card it returns.
_EXCLUSIVE = (frozenset({"nine-frozen", "nine-to-deck"}),)


@dataclass(frozen=True)
class Rules:
    """A rule set (classic is the default) and its variant switches.

    The flags below are derived once so that the engine's hot paths read plain
    attributes instead of testing set membership.
    """

    standard: bool = False
    variants: frozenset[str] = frozenset()

    hand_limit: int = field(init=False, repr=False, compare=False)
    goals: tuple[int, ...] = field(init=False, repr=False, compare=False)
    seven_reveals: int = field(init=False, repr=False, compare=False)
    four_needs_cards: bool = field(init=False, repr=False, compare=False)
    nine_freezes: bool = field(init=False, repr=False, compare=False)
    nine_opponent_only: bool = field(init=False, repr=False, compare=False)
    nine_to_deck: bool = field(init=False, repr=False, compare=False)
    random_fours: bool = field(init=False, repr=False, compare=False)
    eight_one_off: bool = field(init=False, repr=False, compare=False)
    ten_blocks: bool = field(init=False, repr=False, compare=False)
    queens_protect_queens: bool = field(init=False, repr=False, compare=False)
    joker: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        v = frozenset(self.variants)
        unknown = v.difference(VARIANTS)
        if unknown:
            raise ValueError(
                f"unknown variant {sorted(unknown)[0]!r}; variants are {', '.join(VARIANTS)}"
            )
        for group in _EXCLUSIVE:
            if group <= v:
                raise ValueError(f"variants {' and '.join(sorted(group))} cannot be combined")
        s = self.standard
        derived = {
            "variants": v,
            "hand_limit": 8 if s else 10**6,
            "goals": (21, 14, 10, 5, 0) if s else (21, 14, 10, 7, 5),
            "seven_reveals": 2 if s else 1,
            "four_needs_cards": not s,
            "nine_freezes": (s or "nine-frozen" in v) and "nine-to-deck" not in v,
            "nine_opponent_only": "nine-frozen" in v,
            "nine_to_deck": "nine-to-deck" in v,
            "random_fours": "random-fours" in v,
            "eight_one_off": "eight-one-off" in v,
            "ten_blocks": "ten-blocks-scuttle" in v,
            "queens_protect_queens": "queens-protect-queens" in v,
            "joker": "joker" in v,
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @property
    def deck_size(self) -> int:
        return 53 if self.joker else 52

    @property
    def name(self) -> str:
        """``classic``, or e.g. ``standard+joker+random-fours`` (variants sorted)."""
        return "+".join(["standard" if self.standard else "classic", *sorted(self.variants)])

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read ``classic``, ``standard+joker`` and the like."""
        base, *variants = text.strip().lower().split("+")
        if base not in RULE_SETS:
            raise ValueError(f"unknown rule set {base!r}: choose classic or standard")
        if len(set(variants)) != len(variants):
            raise ValueError(f"a variant is named twice in {text!r}")
        return cls(standard=base == "standard", variants=frozenset(variants))


CLASSIC = Rules()
STANDARD = Rules(standard=True)
