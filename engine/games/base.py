"""What a game's rules are made of, and the helpers they share.

Each supported game is a module in ``engine/games/`` defining compiled ``step(s)``, ``reset(s)`` and
``lives(s)`` over the machine state (ALE's RomSettings ``step``/``reset``/``lives``), an optional compiled
``set_mode(s, rom, fb, erng, mode)`` (ALE's ``setMode``, driven by the ``ale_core`` primitives), and a
``GAME`` record with its metadata. Rules read RAM after every frame inside compiled code; the fields ALE
keeps in its RomSettings object live in the state array at ``G_*``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .._jit import jit
from ..layout import G0, RAM0, XRAM0

G_REWARD = G0
G_SCORE = G0 + 1
G_TERMINAL = G0 + 2
G_LIVES = G0 + 3
G_X = G0 + 4          # first game-specific field
G_LAST = G0 + 48      # one past the last field a game may use

# ALE action ids.
NOOP, FIRE, UP, RIGHT, LEFT, DOWN, UPRIGHT, UPLEFT, DOWNRIGHT, DOWNLEFT, UPFIRE, RIGHTFIRE, LEFTFIRE, \
    DOWNFIRE, UPRIGHTFIRE, UPLEFTFIRE, DOWNRIGHTFIRE, DOWNLEFTFIRE = range(18)
PLAYER_B_NOOP = 18
RESET = 40
ALL_ACTIONS = tuple(range(18))
ACTION_MEANINGS = ("NOOP", "FIRE", "UP", "RIGHT", "LEFT", "DOWN", "UPRIGHT", "UPLEFT", "DOWNRIGHT",
                   "DOWNLEFT", "UPFIRE", "RIGHTFIRE", "LEFTFIRE", "DOWNFIRE", "UPRIGHTFIRE", "UPLEFTFIRE",
                   "DOWNRIGHTFIRE", "DOWNLEFTFIRE")


@jit(inline="always")
def ram(s, addr):
    """ALE ``readRam``: RIOT RAM byte at $80 + (addr & $7F)."""
    return s[RAM0 + (addr & 0x7F)]


@jit(inline="always")
def cart_ram(s, addr):
    """Superchip RAM as its read port ($1080-$10FF mirrors) shows it."""
    return s[XRAM0 + (addr & 0x7F)]


@jit(inline="always")
def bcd(v):
    """One packed-BCD byte as ALE decodes it (nibbles above 9 are not rejected)."""
    return 10 * (v >> 4) + (v & 0x0F)


@jit(inline="always")
def decimal_score2(s, lo, hi):
    """ALE ``getDecimalScore(lo, hi)``: 4 BCD digits."""
    return bcd(ram(s, lo)) + 100 * bcd(ram(s, hi))


@jit(inline="always")
def decimal_score3(s, lo, mid, hi):
    """ALE ``getDecimalScore(lo, mid, hi)``: 6 BCD digits."""
    return bcd(ram(s, lo)) + 100 * bcd(ram(s, mid)) + 10000 * bcd(ram(s, hi))


@jit(inline="always")
def set_reward_from_score(s, score):
    s[G_REWARD] = score - s[G_SCORE]
    s[G_SCORE] = score


@jit
def reset_common(s):
    """reward = score = 0, not terminal (what almost every RomSettings::reset starts with)."""
    s[G_REWARD] = 0
    s[G_SCORE] = 0
    s[G_TERMINAL] = 0


@jit
def lives_default(s):
    """RomSettings::lives() default and the common override ``isTerminal() ? 0 : 1``."""
    return 0 if s[G_TERMINAL] else 1


@jit
def lives_unless_terminal(s):
    """The common override ``isTerminal() ? 0 : m_lives``."""
    return 0 if s[G_TERMINAL] else s[G_LIVES]


@jit
def lives_field(s):
    return s[G_LIVES]


@jit
def lives_zero(s):
    return 0


@dataclass(frozen=True)
class Game:
    """Metadata of one game's rules (ALE's RomSettings facts)."""

    id: str
    md5: str
    step: Callable
    reset: Callable
    lives: Callable = lives_default
    minimal_actions: tuple[int, ...] = ALL_ACTIONS
    illegal_actions: tuple[int, ...] = ()
    modes: tuple[int, ...] = (0,)          # first one is the default
    difficulties: tuple[int, ...] = (0,)
    starting_actions: tuple[int, ...] = ()
    set_mode: Callable | None = None       # None: ALE's base setMode (mode 0 only, runs no frames)
    paddle_max: int | None = None          # modifyEnvironmentSettings (Backgammon, Blackjack)
    notes: str = field(default="", compare=False)

    @property
    def default_mode(self) -> int:
        return self.modes[0]

    def legal_actions(self) -> tuple[int, ...]:
        return tuple(a for a in ALL_ACTIONS if a not in self.illegal_actions)

    def minimal_action_set(self) -> tuple[int, ...]:
        """ALE ``getMinimalActionSet``: minimal ∩ legal, ascending."""
        return tuple(a for a in ALL_ACTIONS if a in self.minimal_actions and a not in self.illegal_actions)
