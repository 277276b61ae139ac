"""ale-py 0.12's XLA interface to the vector environment: ``handle, reset, step = envs.xla()``, where
``reset`` and ``step`` can be called inside ``jax.jit`` (and ``jax.lax.scan``) and thread the handle as
ale-py's do::

    handle, (obs, info) = reset(handle, seed=0)
    handle, (obs, reward, terminated, truncated, info) = step(handle, actions)

ale-py registers C++ custom calls; here each call is a ``jax.experimental.io_callback`` into the same
compiled lanes ``step``/``reset`` run, so results are the vector environment's, frame for frame. The
handle (8 bytes, as ale-py's) names the environment in a registry that holds it weakly: it carries no
state, and the data dependency on it is what orders the calls inside a compiled function. Outputs have
ale-py's dtypes (int32 rewards, lives and frame counters, bool terminations). Asynchronous batches
(``batch_size`` < ``num_envs``) work as ``send``/``recv`` do.

Differences from ale-py: a ``reset_mask`` may be a traced array (ale-py's needs a concrete one), and a
seed array of the wrong length is reported by the callback when it runs rather than when it is traced.
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

_ENVS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_KEYS = itertools.count(1)


def _register(env) -> np.ndarray:
    key = next(_KEYS)
    _ENVS[key] = env
    return np.frombuffer(np.uint64(key).tobytes(), dtype=np.uint8).copy()


def handle_of(env) -> np.ndarray:
    """``env``'s handle, the same bytes every time it is asked for."""
    key = getattr(env, "_xla_handle", None)
    if key is None or _ENVS.get(int(key.view(np.uint64)[0])) is not env:
        key = env._xla_handle = _register(env)
    return key.copy()


def _lookup(handle):
    key = int(np.asarray(handle, dtype=np.uint8).view(np.uint64)[0])
    env = _ENVS.get(key)
    if env is None:
        raise RuntimeError(f"no open vector environment has handle {key} (closed, or from another process)")
    return env


def _info_arrays(info) -> tuple[np.ndarray, ...]:
    return tuple(np.asarray(info[k], dtype=np.int32)
                 for k in ("env_id", "lives", "frame_number", "episode_frame_number"))


def _host_reset(handle, mask, seeds):
    env = _lookup(handle)
    mask = np.asarray(mask, dtype=np.bool_)
    seeds = np.asarray(seeds, dtype=np.int64)
    if mask.all():
        obs, info = env.ale.reset(np.arange(env.num_envs), seeds)
    else:
        (idx,) = np.where(mask)
        obs, info = env.ale.reset(idx, seeds[idx])
    return (np.asarray(handle, dtype=np.uint8), np.ascontiguousarray(obs, dtype=np.uint8), *_info_arrays(info))


def _host_step(handle, actions):
    env = _lookup(handle)
    actions = np.asarray(actions)
    env.send(actions if env.continuous else actions.astype(np.int64))
    obs, reward, term, trunc, info = env.recv()
    return (np.asarray(handle, dtype=np.uint8), np.ascontiguousarray(obs, dtype=np.uint8),
            np.asarray(reward, dtype=np.int32), np.asarray(term, dtype=np.bool_), np.asarray(trunc, dtype=np.bool_),
            *_info_arrays(info))


def _lane_seeds(jnp, seed, mask, n: int, wanted: int | None):
    """One seed per lane (-1: not reseeded), ale-py's rule for the lanes ``mask`` resets: an int gives
    consecutive seeds in lane order, an array one entry per lane reset."""
    if seed is None:
        return jnp.full((n,), -1, dtype=jnp.int32)
    rank = jnp.cumsum(mask.astype(jnp.int32)) - 1  # the position of each reset lane among those reset
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return jnp.where(mask, jnp.int32(seed) + rank, -1).astype(jnp.int32)
    seed = jnp.asarray(seed, dtype=jnp.int32).reshape(-1)
    if wanted is not None and seed.shape[0] != wanted:
        raise ValueError(f"`seed` must have one entry per sub-environment being reset, expected shape "
                         f"({wanted},), got {tuple(seed.shape)}")
    return jnp.where(mask, jnp.take(seed, jnp.clip(rank, 0, max(seed.shape[0] - 1, 0))), -1).astype(jnp.int32)


def xla_functions(env):
    """``(handle, reset, step)`` for ``env`` (an ``ArcadeLabVectorEnv``), as ale-py's ``xla()``."""
    from gymnasium import error
    from gymnasium.vector import AutoresetMode

    if env.autoreset_mode != AutoresetMode.NEXT_STEP:
        raise ValueError(f"xla() needs autoreset_mode NEXT_STEP (as ale-py's), this environment has "
                         f"{env.autoreset_mode}")
    try:
        import jax
        import jax.numpy as jnp
        from jax.experimental import io_callback
    except ImportError as e:
        raise error.DependencyNotInstalled(
            'xla() needs jax: pip install "arcade-lab[xla]" (or pip install jax)') from e

    n, b = env.num_envs, env.batch_size
    obs_struct = jax.ShapeDtypeStruct(env.observation_space.shape, jnp.uint8)
    ints = jax.ShapeDtypeStruct((b,), jnp.int32)
    flags = jax.ShapeDtypeStruct((b,), jnp.bool_)
    handle_struct = jax.ShapeDtypeStruct((8,), jnp.uint8)
    reset_shapes = (handle_struct, obs_struct, ints, ints, ints, ints)
    step_shapes = (handle_struct, obs_struct, ints, flags, flags, ints, ints, ints, ints)

    def _info(env_ids, lives, frames, episode_frames):
        return {"env_id": env_ids, "lives": lives, "frame_number": frames, "episode_frame_number": episode_frames}

    def xla_reset(handle, seed=None, reset_mask=None):
        if reset_mask is None:
            mask = jnp.ones((n,), dtype=jnp.bool_)
            wanted = n
        else:
            mask = jnp.asarray(reset_mask)
            if mask.shape != (n,) or mask.dtype != jnp.bool_:
                raise ValueError(f"`reset_mask` must be a boolean array of shape ({n},), got {mask.dtype} "
                                 f"{tuple(mask.shape)}")
            wanted = None if isinstance(mask, jax.core.Tracer) else int(np.asarray(mask).sum())
        seeds = _lane_seeds(jnp, seed, mask, n, wanted)
        new_handle, obs, *info = io_callback(_host_reset, reset_shapes, handle, mask, seeds)
        return new_handle, (obs, _info(*info))

    def xla_step(handle, actions):
        actions = jnp.asarray(actions)
        if env.continuous:
            actions = actions.astype(jnp.float32)
            if actions.shape != (b, 3):
                raise ValueError(f"continuous actions must have shape ({b}, 3), got {tuple(actions.shape)}")
        else:
            actions = actions.astype(jnp.int32)
            if actions.shape != (b,):
                raise ValueError(f"expected {b} actions, got shape {tuple(actions.shape)}")
        new_handle, obs, reward, term, trunc, *info = io_callback(_host_step, step_shapes, handle, actions)
        return new_handle, (obs, reward, term, trunc, _info(*info))

    return jnp.asarray(handle_of(env)), xla_reset, xla_step
