"""AtariBench (Huo et al., 2026): vision-language models playing 20 Atari games through a fixed harness.

    from arcade_lab.agents.atari_bench import BenchConfig, OpenAIChatClient, run_bench
    recs = run_bench(OpenAIChatClient(endpoint, model), ["pong"...], range(10), BenchConfig(), store=store)

Records are ``EpisodeRecord(protocol="atari_bench", player="agent:vlm:<model>", seed=...)`` with the turn
log (prompts, raw replies, parsed actions, feedback) under ``extra["atari_bench"]``.
"""
from .clients import ModelClient, ModelError, OpenAIChatClient, RandomClient, ScriptedClient
from .games import GAME_IDS, GAMES, GameSpec, resolve
from .harness import PROTOCOL, BenchConfig, make_env, reseed, run_bench, run_episode, scores_table
from .prompt import APPEND_ONLY, MEMORY_MODES, STRUCTURED, Memory, PromptBuilder, normalize_action, parse_response

__all__ = ["ModelClient", "ModelError", "OpenAIChatClient", "RandomClient", "ScriptedClient", "GAME_IDS", "GAMES",
           "GameSpec", "resolve", "PROTOCOL", "BenchConfig", "make_env", "reseed", "run_bench", "run_episode",
           "scores_table", "APPEND_ONLY", "MEMORY_MODES", "STRUCTURED", "Memory", "PromptBuilder",
           "normalize_action", "parse_response"]
