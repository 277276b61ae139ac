"""The Gymnasium ids (``ArcadeLab/<Game>-v5`` and the legacy ``-v0``/``-v4``/``NoFrameskip`` ones), registered
without importing the emulator: the entry points name the classes, which load when an id is first made.
``import arcade_lab`` registers them, as ``import ale_py`` does for ``ALE/*``."""
from __future__ import annotations

import gymnasium

LEGACY_GAMES = (
    "adventure air_raid alien amidar assault asterix asteroids atlantis bank_heist battle_zone beam_rider "
    "berzerk bowling boxing breakout carnival centipede chopper_command crazy_climber defender demon_attack "
    "double_dunk elevator_action enduro fishing_derby freeway frostbite gopher gravitar hero ice_hockey "
    "jamesbond journey_escape kangaroo krull kung_fu_master montezuma_revenge ms_pacman name_this_game "
    "phoenix pitfall pong pooyan private_eye qbert riverraid road_runner robotank seaquest skiing solaris "
    "space_invaders star_gunner tennis time_pilot tutankham up_n_down venture video_pinball wizard_of_wor "
    "yars_revenge zaxxon").split()

NAMESPACE = "ArcadeLab"


def game_name(game_id: str) -> str:
    """``montezuma_revenge`` -> ``MontezumaRevenge`` (ale-py's naming)."""
    return game_id.title().replace("_", "")


def register() -> None:
    """Register every id (idempotent)."""
    from . import list_games

    for g in list_games():
        env_id = f"{NAMESPACE}/{game_name(g)}-v5"
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id, entry_point="arcade_lab.engine.gym:ArcadeLabEnv",
            vector_entry_point="arcade_lab.engine.vector:ArcadeLabVectorEnv",
            kwargs=dict(game=g, repeat_action_probability=0.25, full_action_space=False, frameskip=4,
                        max_num_frames_per_episode=108_000))
    for g in LEGACY_GAMES:
        for suffix, frameskip in (("", (2, 5)), ("NoFrameskip", 1)):
            for version, p in (("v0", 0.25), ("v4", 0.0)):
                env_id = f"{NAMESPACE}/{game_name(g)}{suffix}-{version}"
                if env_id in gymnasium.registry:
                    continue
                gymnasium.register(
                    id=env_id, entry_point="arcade_lab.engine.gym:ArcadeLabEnv",
                    kwargs=dict(game=g, repeat_action_probability=p, full_action_space=False,
                                frameskip=frameskip, max_num_frames_per_episode=108_000))
