"""The AtariBench protocol (Huo et al., 2026) on our engine.

Per (game, seed): a fixed horizon of 30 s of game time at 60 Hz (1800 frames), control at 10 Hz (each
chosen action held for 6 frames — the paper's "three frames at ALE's 30 FPS"), sticky actions off, and an
immediate reset when the game ends inside the horizon; the score is the reward summed over the horizon.
At each turn the model sees a prompt (instructions, memory, current frame, output schema), answers with a
thought and 1..10 actions, and the actions are played in order while the game stands still between turns
(headless play is turn-based by nature).

A turn whose reply cannot be parsed plays NOOP (the raw reply is kept). A model that cannot be reached is
also a NOOP turn, until ``max_consecutive_failures`` turns in a row fail: then the episode ends as
``failed`` with the reason — a dead endpoint must not silently produce a full run of NOOP scores.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Callable, Iterable

import numpy as np

from arcade_lab.agents.base import EpisodeRecord
from arcade_lab.agents.external.protocol import encode_png
from arcade_lab.engine.env import Env
from arcade_lab.engine.rng import new_rng

from .clients import ModelClient, ModelError
from .games import GAMES, resolve
from .prompt import (APPEND_ONLY, MEMORY_MODES, STRUCTURED, AppendOnlyTranscript, Clip, Memory, PromptBuilder,
                     feedback_lines, parse_response, redact_images)

PROTOCOL = "atari_bench"


@dataclass
class BenchConfig:
    horizon_seconds: float = 30.0
    frames_per_action: int = 6        # 10 Hz control at 60 Hz emulation
    fps: int = 60
    memory: str = STRUCTURED
    k_recent: int = 3                 # K: recent-history clips
    k_reward: int = 3                 # R: reward/life-loss clips
    max_actions: int = 10
    max_consecutive_failures: int = 3
    keep_prompts: str = "first"       # "all", "first" (the first prompt in full, later ones summarised), "none"

    def __post_init__(self):
        if self.memory not in MEMORY_MODES:
            raise ValueError(f"memory must be one of {MEMORY_MODES}, got {self.memory!r}")
        if self.keep_prompts not in ("all", "first", "none"):
            raise ValueError("keep_prompts must be 'all', 'first' or 'none'")
        if self.horizon_seconds <= 0 or self.frames_per_action < 1 or not 1 <= self.max_actions <= 64:
            raise ValueError("need horizon_seconds > 0, frames_per_action >= 1, 1 <= max_actions <= 64")

    @property
    def horizon_frames(self) -> int:
        return max(1, round(self.horizon_seconds * self.fps))


def make_env(game: str, cfg: BenchConfig) -> Env:
    """One Env per game, reused across seeds (see :func:`reseed`): no sticky actions, no frame cap (the
    harness owns the horizon), frame skip = the control period."""
    return Env(resolve(game), frameskip=cfg.frames_per_action, repeat_action_probability=0.0,
               max_num_frames_per_episode=0, seed=0)


def reseed(env: Env, seed: int) -> None:
    """Make a reused Env start like ``Env(game, seed=seed)`` would: same RNG stream, then ALE's reset."""
    env.seed = int(seed) & 0xFFFFFFFF
    env.rng[:] = new_rng(env.seed)
    env.reset()


def _summary(messages: list[dict]) -> dict:
    n_img = sum(1 for m in messages if isinstance(m["content"], list) for p in m["content"] if p.get("type") == "image_url")
    chars = sum(len(p.get("text", "")) for m in messages if isinstance(m["content"], list) for p in m["content"])
    return {"messages": len(messages), "images": n_img, "text_chars": chars}


def run_episode(env: Env, client: ModelClient, seed: int, cfg: BenchConfig | None = None,
                on_decision: Callable[[dict], None] | None = None) -> EpisodeRecord:
    """One AtariBench run of ``env``'s game with ``client`` under ``seed``."""
    cfg = cfg or BenchConfig()
    spec = GAMES[resolve(env.info.id)]
    action_set, meanings = env.action_set(), env.action_meanings()
    builder = PromptBuilder(spec, meanings, max_actions=cfg.max_actions, horizon_seconds=cfg.horizon_seconds,
                            frames_per_action=cfg.frames_per_action, fps=cfg.fps)
    memory = Memory(cfg.k_recent, cfg.k_reward)
    transcript = AppendOnlyTranscript(builder) if cfg.memory == APPEND_ONLY else None

    reseed(env, seed)
    start_state = env.clone_state(include_rng=True).to_bytes()
    horizon = cfg.horizon_frames
    frame_png = lambda: encode_png(env.screen_rgb())  # noqa: E731 — one PNG per frame, shared by all prompts
    t_wall = time.perf_counter()
    frames = 0
    score = 0.0
    trace: list[int] = []
    decisions: list[dict] = []
    first_prompt = None
    lives_lost = resets = invalid = model_errors = consecutive = 0
    failure = ""
    last_clip: Clip | None = None
    last_reply: str | None = None
    current = frame_png()

    while frames < horizon:
        t_game = frames / cfg.fps
        if transcript is not None:
            messages = transcript.prompt(last_clip, last_reply, current, t_game)
        else:
            messages = builder.structured(memory, current, t_game)
        t0 = time.perf_counter()
        error = ""
        try:
            raw = client.complete(messages)
            consecutive = 0
        except ModelError as e:
            raw, error = None, str(e)
            model_errors += 1
            consecutive += 1
        latency = time.perf_counter() - t0
        entry: dict = {"turn": len(decisions), "t": round(t_game, 3), "frame": frames, "raw": raw,
                       "latency": round(latency, 3), "prompt": _summary(messages)}
        if cfg.keep_prompts == "all" or (cfg.keep_prompts == "first" and first_prompt is None):
            entry["prompt"]["content"] = redact_images(messages if transcript is None else messages[-1:])
        if first_prompt is None:
            first_prompt = redact_images(messages)
        usage = getattr(client, "last_usage", None)
        if usage:
            entry["usage"] = dict(usage)
        if error:
            entry["error"] = error
            if consecutive >= cfg.max_consecutive_failures:
                failure = f"model failed {consecutive} turns in a row: {error}"
                decisions.append(entry)
                break
        parsed = parse_response(raw, meanings, cfg.max_actions)
        if not parsed.valid:
            invalid += 1
        clip = Clip(decision=len(decisions), time_s=t_game, start_png=current, actions=parsed.actions)
        executed: list[int] = []
        for name in parsed.actions:
            if frames >= horizon:
                break
            a = action_set[meanings.index(name)]
            n = min(cfg.frames_per_action, horizon - frames)  # the horizon may end inside a hold
            lives0 = env.lives()
            r = env.act(a) if n == cfg.frames_per_action else env.act_frames(a, n)
            frames += n
            score += r
            trace.append(a)
            executed.append(a)
            life_lost = env.lives() < lives0
            reset = env.game_over()
            if reset:  # the paper's immediate reset: the horizon keeps running
                resets += 1
                env.reset()
            lives_lost += int(life_lost)
            clip.frames.append(frame_png())
            clip.feedback.append(feedback_lines(r, life_lost, reset))
            clip.reward += r
            clip.life_lost |= life_lost
            clip.reset |= reset
            if reset:
                break  # the rest of the plan was for a game that no longer exists
        memory.add(clip)
        last_clip, last_reply = clip, raw
        if clip.frames:
            current = clip.frames[-1]
        entry.update(parsed.to_dict())
        entry.update({"action_ids": executed, "reward": clip.reward, "life_lost": clip.life_lost, "reset": clip.reset})
        decisions.append(entry)
        if on_decision is not None:
            on_decision(entry)

    extra = {PROTOCOL: {
        "config": asdict(cfg), "model": client.describe(), "horizon_frames": horizon,
        "control_hz": cfg.fps / cfg.frames_per_action, "turns": len(decisions), "resets": resets,
        "invalid_replies": invalid, "model_errors": model_errors, "first_prompt": first_prompt,
        "decisions": decisions}}
    return EpisodeRecord(
        player=f"agent:vlm:{client.name}", game=env.info.id, md5=env.info.md5, mode=env.mode,
        difficulty=env.difficulty, protocol=PROTOCOL, seed=int(seed), score=float(score), frames=frames,
        steps=len(trace), lives_lost=lives_lost, wall_time=time.perf_counter() - t_wall,
        ended_by="failed" if failure else "truncated", frameskip=cfg.frames_per_action,
        repeat_action_probability=0.0, max_frames=horizon, actions=np.asarray(trace, dtype=np.uint8),
        start_state=start_state, extra=extra, notes=failure)


def task_key(game: str, seed: int) -> str:
    return f"{game}/seed{seed}"


def run_bench(client: ModelClient, games: Iterable[str], seeds: Iterable[int], cfg: BenchConfig | None = None, *,
              store=None, run_name: str | None = None,
              progress: Callable[[EpisodeRecord], None] | None = None) -> list[EpisodeRecord]:
    """Every (game, seed) for one model. With a store, the run is resumable: tasks already done under
    ``run_name`` are skipped, and each finished episode is committed with its task mark at once."""
    cfg = cfg or BenchConfig()
    games = [resolve(g) for g in games]
    seeds = [int(s) for s in seeds]
    run_id, done = None, set()
    if store is not None:
        run_name = run_name or default_run_name(client, cfg)
        run_id = store.create_run(run_name, PROTOCOL, {"games": games, "seeds": seeds, "model": client.describe(),
                                                       "config": asdict(cfg)})
        done = store.done_tasks(run_id)
    records: list[EpisodeRecord] = []
    for game in games:
        todo = [s for s in seeds if task_key(game, s) not in done]
        if not todo:
            continue
        env = make_env(game, cfg)  # one Env per game: construction is the slow part, reset is cheap
        for seed in todo:
            rec = run_episode(env, client, seed, cfg)
            records.append(rec)
            if store is not None:
                store.complete_task(run_id, task_key(game, seed), [rec], error=rec.notes if rec.ended_by == "failed" else "")
            if progress is not None:
                progress(rec)
    if store is not None:
        store.finish_run(run_id)
    return records


def default_run_name(client: ModelClient, cfg: BenchConfig) -> str:
    return f"{PROTOCOL}:{client.name}:{cfg.memory}:{cfg.horizon_seconds:g}s"


def scores_table(records: Iterable[EpisodeRecord]) -> dict[str, dict[str, dict[int, float]]]:
    """{game: {player: {seed: score}}} — the shape separability analysis consumes (per game, model, seed)."""
    out: dict = {}
    for r in records:
        out.setdefault(r.game, {}).setdefault(r.player, {})[r.seed] = r.score
    return out
