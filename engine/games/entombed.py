"""Entombed: $E3 (plain binary) is the score; the game ends when the low two bits of $C7 are 0
(ALE ``Entombed``). Starts with FIRE and 5 NOOPs."""
from __future__ import annotations

from .._jit import jit
from .base import ALL_ACTIONS, FIRE, G_TERMINAL, NOOP, Game, lives_default, ram, reset_common, set_reward_from_score

lives = lives_default


@jit
def step(s):
    set_reward_from_score(s, ram(s, 0xE3))
    s[G_TERMINAL] = 1 if (ram(s, 0xC7) & 0x03) == 0 else 0


@jit
def reset(s):
    reset_common(s)


GAME = Game(
    id="entombed", md5="6b683be69f92958abe0e2a9945157ad5", step=step, reset=reset, lives=lives, minimal_actions=ALL_ACTIONS,
    difficulties=(0, 2), starting_actions=(FIRE, NOOP, NOOP, NOOP, NOOP, NOOP),
)
