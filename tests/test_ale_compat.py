"""arcade_lab.ale_compat against ale-py 0.12.1 itself: the same calls on both, the same results (values,
screens, RAM, sound, states) or the same exception types and messages."""
from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import zlib
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from tests.conftest import requires_ale

pytestmark = requires_ale

import ale_py  # noqa: E402  (the oracle first: the module under test then takes over the ALE ids)
from ale_py.env import AtariEnv as RealAtariEnv  # noqa: E402

import arcade_lab.ale_compat as compat  # noqa: E402

ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
ROMS = Path(ale_py.__file__).parent / "roms"
ROOT = Path(__file__).resolve().parent.parent


def _outcome(fn):
    """A call's value, or its exception's type and first line."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  (the type is what is compared)
        return (type(e).__name__, str(e).splitlines()[0] if str(e) else "")


def _pair(rom: str, **settings):
    """The real interface and ours, set alike and loaded with ``rom``."""
    out = []
    for module in (ale_py, compat):
        ale = module.ALEInterface()
        for key, value in settings.items():
            {bool: ale.setBool, int: ale.setInt, float: ale.setFloat, str: ale.setString}[type(value)](key, value)
        ale.loadROM(str(ROMS / f"{rom}.bin"))
        out.append(ale)
    return out


# -- enums and settings --------------------------------------------------------------------------------------
def test_action_and_logger_mode_are_plain_enums_like_ale_py():
    assert [(a.name, a.value) for a in compat.Action] == [(a.name, a.value) for a in ale_py.Action]
    assert [(m.name, m.value) for m in compat.LoggerMode] == [(m.name, m.value) for m in ale_py.LoggerMode]
    for real, ours in ((ale_py.Action.UPLEFTFIRE, compat.Action.UPLEFTFIRE),
                       (ale_py.LoggerMode.Warning, compat.LoggerMode.Warning)):
        assert (repr(ours), str(ours), ours == ours.value) == (repr(real), str(real), real == real.value)
    assert compat.Action(3) is compat.Action.RIGHT
    with pytest.raises(ValueError):
        compat.Action(18)


SETTING_CALLS = [
    ("getInt", "random_seed"), ("getInt", "frame_skip"), ("getInt", "repeat_action_probability"),
    ("getFloat", "repeat_action_probability"), ("getBool", "sound"), ("getString", "sound"),
    ("getString", "cpu"), ("getInt", "reward_min"), ("getInt", "fragsize"), ("getInt", "no_such_key"),
    ("getFloat", "no_such_key"), ("getBool", "no_such_key"), ("getString", "no_such_key"),
    ("setInt", "frame_skip", 7), ("setInt", "frame_skip", -5), ("setInt", "frame_skip", np.uint8(3)),
    ("setInt", "frame_skip", True), ("setInt", "frame_skip", 2.5), ("setInt", "frame_skip", 2 ** 31),
    ("setInt", "random_seed", -2 ** 31), ("setInt", "repeat_action_probability", 1),
    ("setInt", "no_such_key", 1), ("setFloat", "frame_skip", 1.0), ("setString", "frame_skip", "7"),
    ("setFloat", "repeat_action_probability", 0.123456789), ("setFloat", "repeat_action_probability", 1),
    ("setFloat", "repeat_action_probability", 1e40), ("setFloat", "repeat_action_probability", "0.5"),
    ("setBool", "sound_obs", True), ("setBool", "sound_obs", 1), ("setBool", "sound_obs", np.bool_(True)),
    ("setBool", "sound", False), ("setString", "sound", "True"), ("setString", "record_screen_dir", 5),
    ("setInt", "freq", 50000), ("setInt", "volume", 50), ("setFloat", "freq", 1.5),
    ("setBool", "palette", True), ("setString", "palette", "z26"),
]


def test_settings_read_and_refuse_as_ale_py():
    real, ours = ale_py.ALEInterface(), compat.ALEInterface()
    for call in SETTING_CALLS:
        name, args = call[0], call[1:]
        got = [_outcome(lambda a=a: getattr(a, name)(*args)) for a in (real, ours)]
        assert got[1] == got[0], call
        key = args[0]  # after each call every typed reading of the key agrees too
        for getter in ("getInt", "getFloat", "getBool", "getString"):
            assert getattr(ours, getter)(key) == getattr(real, getter)(key), (call, getter)


def test_settings_are_read_at_load():
    ours = compat.ALEInterface()
    ours.setInt("frame_skip", 3)
    ours.loadROM(str(ROMS / "pong.bin"))
    ours.setInt("frame_skip", 5)  # the next load's
    ours.act(0)
    assert ours.getEpisodeFrameNumber() == 3
    ours.loadROM(str(ROMS / "pong.bin"))
    ours.act(0)
    assert ours.getEpisodeFrameNumber() == 5


def test_settings_a_load_cannot_honour_are_refused():
    for key, value in (("color_averaging", True), ("record_screen_dir", "/tmp"), ("paddle_max", 5)):
        ale = compat.ALEInterface()
        {bool: ale.setBool, str: ale.setString, int: ale.setInt}[type(value)](key, value)
        with pytest.raises(RuntimeError, match=key):
            ale.loadROM(str(ROMS / "pong.bin"))
    ale = compat.ALEInterface()
    ale.setBool("sound_obs", True)
    ale.setInt("volume", 50)
    with pytest.raises(RuntimeError, match="volume"):
        ale.loadROM(str(ROMS / "pong.bin"))


# -- playing --------------------------------------------------------------------------------------------------
def _same_observations(real, ours):
    assert ours.getScreenDims() == real.getScreenDims()
    assert np.array_equal(ours.getScreen(), real.getScreen())
    assert np.array_equal(ours.getScreenRGB(), real.getScreenRGB())
    assert np.array_equal(ours.getScreenGrayscale(), real.getScreenGrayscale())
    assert np.array_equal(ours.getRAM(), real.getRAM())
    assert (ours.lives(), ours.getFrameNumber(), ours.getEpisodeFrameNumber(), ours.game_over(),
            ours.game_over(with_truncation=False), ours.game_truncated()) == \
           (real.lives(), real.getFrameNumber(), real.getEpisodeFrameNumber(), real.game_over(),
            real.game_over(with_truncation=False), real.game_truncated())


@pytest.mark.parametrize("rom, settings", [
    ("breakout", dict(random_seed=3, frame_skip=3, repeat_action_probability=0.25)),
    ("pong", dict(random_seed=11, max_num_frames_per_episode=300, reward_max=0)),
    ("kaboom", dict(random_seed=5, repeat_action_probability=0.5)),  # paddles, with their strength
])
def test_a_session_plays_as_ale_py(rom, settings):
    real, ours = _pair(rom, **settings)
    assert ours.getMinimalActionSet() == [compat.Action(a.value) for a in real.getMinimalActionSet()]
    assert ours.getLegalActionSet() == list(compat.Action)
    assert (ours.getAvailableModes(), ours.getAvailableDifficulties()) == \
           (real.getAvailableModes(), real.getAvailableDifficulties())
    _same_observations(real, ours)
    rng = np.random.default_rng(0)
    actions = real.getMinimalActionSet()
    for t in range(150):
        a = actions[rng.integers(len(actions))]
        strength = float(rng.uniform(-1, 1))
        # ints on one side, enum members on the other: both are ale-py's act
        assert ours.act(a.value, strength) == real.act(a, strength), t
        _same_observations(real, ours)
        if real.game_over():
            real.reset_game()
            ours.reset_game()


def test_set_ram_mode_and_difficulty_as_ale_py():
    real, ours = _pair("space_invaders", random_seed=1)
    for ale in (real, ours):
        ale.setRAM(10, 200)
        ale.setMode(2)
        ale.setDifficulty(1)
        ale.reset_game()
        for _ in range(20):
            ale.act(1)
    _same_observations(real, ours)
    for call in (lambda a: a.setMode(100), lambda a: a.setDifficulty(7), lambda a: a.setMode(-1),
                 lambda a: a.setRAM(128, 1), lambda a: a.setRAM(1, 256), lambda a: a.setRAM(-1, 0),
                 lambda a: a.act(-1), lambda a: a.act(1.0), lambda a: a.act(0, "x"), lambda a: a.act(2 ** 32)):
        assert _outcome(lambda: call(ours)) == _outcome(lambda: call(real))


def test_an_action_id_above_17_is_refused():
    ours = compat.ALEInterface()
    ours.loadROM(str(ROMS / "pong.bin"))
    with pytest.raises(RuntimeError, match="Invalid Player A Action: 18"):
        ours.act(18)


def test_before_a_rom_is_loaded():
    ours = compat.ALEInterface()
    for call in (ours.lives, ours.getMinimalActionSet, lambda: ours.act(0), ours.getScreen):
        with pytest.raises(RuntimeError, match="ROM not set"):
            call()
    with pytest.raises(RuntimeError, match="not found"):
        ours.loadROM("/no/such/rom.bin")


BUFFERS = [
    ("getRAM", np.empty(128, np.uint8)), ("getRAM", np.empty(128, np.int32)), ("getRAM", np.empty(1, np.uint8)),
    ("getRAM", np.empty((2, 128), np.uint8)[:, 0]), ("getRAM", [0] * 128), ("getAudio", np.empty(500, np.uint8)),
    ("getScreen", np.empty((210, 160), np.uint8)), ("getScreen", np.empty((200, 160), np.uint8)),
    ("getScreen", np.empty(210 * 160, np.uint8)), ("getScreen", np.empty((210, 160), np.int8)),
    ("getScreen", np.empty((210, 320), np.uint8)[:, ::2]), ("getScreenRGB", np.empty((210, 160), np.uint8)),
    ("getScreenRGB", np.empty((210, 160, 4), np.uint8)), ("getScreenRGB", np.empty((3, 160, 210), np.uint8).T),
    ("getScreenGrayscale", np.empty((210, 160, 1), np.uint8)),
]


def test_caller_buffers_are_checked_as_ale_py():
    real, ours = _pair("pong", random_seed=0)
    for name, buf in BUFFERS:
        r = _outcome(lambda: getattr(real, name)(buf))
        o = _outcome(lambda: getattr(ours, name)(buf))
        assert o[0] == r[0], name
        if r[0] != "TypeError":  # nanobind's signature listing differs in the names of types
            assert o == r, name
    for ale in (real, ours):
        for _ in range(5):
            ale.act(0)
    bufs = [(np.zeros((210, 160), np.uint8), np.zeros((210, 160, 3), np.uint8), np.zeros((210, 160), np.uint8),
             np.zeros(128, np.uint8)) for _ in range(2)]
    for ale, (screen, rgb, gray, ram) in zip((real, ours), bufs):
        assert ale.getScreen(screen) is None and ale.getScreenRGB(rgb) is None
        assert ale.getScreenGrayscale(gray) is None and ale.getRAM(ram) is None
    for a, b in zip(*bufs):
        assert np.array_equal(a, b) and a.any()


def test_is_supported_rom_as_ale_py(tmp_path):
    files = sorted(ROMS.glob("*.bin")) + [tmp_path]
    (tmp_path / "random.bin").write_bytes(np.random.default_rng(0).integers(0, 256, 2000, np.uint8).tobytes())
    files.append(tmp_path / "random.bin")
    for f in files + [tmp_path / "missing.bin"]:
        r, o = _outcome(lambda: ale_py.ALEInterface.isSupportedROM(str(f))), \
            _outcome(lambda: compat.ALEInterface.isSupportedROM(str(f)))
        assert o[0] == r[0] and (r[0] != "ok" or o == r), f


def _png_pixels(path: Path) -> np.ndarray:
    """RGB pixels of an 8-bit, non-interlaced PNG (filters None and Sub, Up, Average, Paeth)."""
    data = path.read_bytes()
    w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    idat, pos = b"", 8
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        if data[pos + 4:pos + 8] == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    out = np.zeros((h, 3 * w), np.int64)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        up = out[y - 1] if y else np.zeros(3 * w, np.int64)
        for x in range(3 * w):
            left = out[y, x - 3] if x >= 3 else 0
            ul = up[x - 3] if x >= 3 else 0
            p = left + up[x] - ul
            paeth = min((abs(p - left), 0, left), (abs(p - up[x]), 1, up[x]), (abs(p - ul), 2, ul))[2]
            pred = (0, left, up[x], (left + up[x]) // 2, paeth)[f]
            out[y, x] = (line[x] + pred) & 0xFF
    return out.reshape(h, w, 3).astype(np.uint8)


def test_save_screen_png_as_ale_py(tmp_path):
    real, ours = _pair("seaquest", random_seed=0)
    for ale in (real, ours):
        for _ in range(60):
            ale.act(3)
    real.saveScreenPNG(str(tmp_path / "real.png"))
    ours.saveScreenPNG(str(tmp_path / "ours.png"))
    assert np.array_equal(_png_pixels(tmp_path / "ours.png"), _png_pixels(tmp_path / "real.png"))


# -- sound -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rom, frame_skip", [("ms_pacman", 1), ("seaquest", 4), ("pong", 2)])
def test_sound_obs_as_ale_py(rom, frame_skip):
    real, ours = _pair(rom, sound_obs=True, random_seed=2, frame_skip=frame_skip)
    assert np.array_equal(ours.getAudio(), real.getAudio())
    rng = np.random.default_rng(1)
    actions = real.getMinimalActionSet()
    heard = 0
    for t in range(400 // frame_skip):
        a = actions[rng.integers(len(actions))]
        real.act(a)
        ours.act(compat.Action(a.value))
        assert np.array_equal(ours.getAudio(), real.getAudio()), t
        heard += int((real.getAudio() != 128).any())
        if t == 40:  # a reset empties ALE's sound queue and resets the voices
            real.reset_game()
            ours.reset_game()
    assert heard > 10  # the comparison covered actual sound
    buf = np.zeros(512, np.uint8)
    assert ours.getAudio(buf) is None and np.array_equal(buf, real.getAudio())


def test_sound_runs_on_through_resets_and_restores():
    """ale-py's voices never restart: neither a reset nor a restored state touches them, and the writes a
    reset's frames make are heard at the next act even after a restore."""
    real, ours = _pair("ms_pacman", sound_obs=True, random_seed=4)
    states = [ale.cloneState() for ale in (real, ours)]
    for t in range(150):
        for ale in (real, ours):
            if t == 30:
                ale.reset_game()
                ale.restoreState(states[ale is ours])
            elif t in (60, 100):
                ale.reset_game()
            ale.act(0)
        assert np.array_equal(ours.getAudio(), real.getAudio()), t


def test_without_sound_obs_audio_is_silent_zeros():
    real, ours = _pair("ms_pacman")
    real.act(0)
    ours.act(0)
    assert ours.getAudioSize() == real.getAudioSize() == 512
    assert np.array_equal(ours.getAudio(), real.getAudio()) and not ours.getAudio().any()


# -- states ------------------------------------------------------------------------------------------------------
def _trajectory(ale, actions):
    out = []
    for a in actions:
        out.append((ale.act(a), ale.getScreen().tobytes(), ale.getRAM().tobytes()))
    return out


@pytest.mark.parametrize("clone, restore", [("cloneState", "restoreState"),
                                            ("cloneSystemState", "restoreSystemState")])
def test_clone_and_restore_continue_as_ale_py(clone, restore):
    real, ours = _pair("breakout", random_seed=7, repeat_action_probability=0.25)
    rng = np.random.default_rng(3)
    first, excursion, after = (rng.integers(0, 4, n).tolist() for n in (40, 25, 40))
    for ale in (real, ours):
        _trajectory(ale, first)
    states = [getattr(ale, clone)() for ale in (real, ours)]
    assert (states[1].getFrameNumber(), states[1].getEpisodeFrameNumber(), states[1].getCurrentMode(),
            states[1].getDifficulty()) == (states[0].getFrameNumber(), states[0].getEpisodeFrameNumber(),
                                           states[0].getCurrentMode(), states[0].getDifficulty())
    for ale in (real, ours):
        _trajectory(ale, excursion)
    for ale, state in zip((real, ours), states):
        getattr(ale, restore)(state)
    if clone == "cloneState":
        assert ours.cloneState() == states[1]
    assert _trajectory(ours, after) == _trajectory(real, after)


def test_state_bytes_pickles_and_equality():
    ours = compat.ALEInterface()
    ours.loadROM(str(ROMS / "pong.bin"))
    for _ in range(10):
        ours.act(0)
    state = ours.cloneState(include_rng=True)
    blob = state.serialize()
    assert isinstance(blob, bytes)
    assert compat.ALEState(blob) == state and compat.ALEState(state, blob) == state
    assert pickle.loads(pickle.dumps(state)) == state
    assert compat.ALEState() == compat.ALEState() and not (compat.ALEState() == state)
    assert ours.cloneState() != state  # without the RNG
    assert hash(state) != hash(compat.ALEState(blob))  # by identity, as ale-py's
    with pytest.raises(TypeError):
        state == 1  # noqa: B015  (ale-py refuses to compare a state with anything else)
    with pytest.raises(ValueError):
        compat.ALEState(b"not a state")
    with pytest.raises(RuntimeError):
        ours.restoreState(compat.ALEState())
    other = compat.ALEInterface()
    other.loadROM(str(ROMS / "breakout.bin"))
    with pytest.raises(RuntimeError, match="another ROM"):
        other.restoreState(state)
    # a state taken with sound_obs restores where there is none, and back
    loud = compat.ALEInterface()
    loud.setBool("sound_obs", True)
    loud.loadROM(str(ROMS / "pong.bin"))
    loud.restoreState(state)
    assert loud.cloneState(include_rng=True) == state


def test_interfaces_do_not_pickle():
    with pytest.raises(TypeError, match="cannot pickle"):
        pickle.dumps(compat.ALEInterface())


# -- the Gymnasium environment -------------------------------------------------------------------------------
def _envs(game, **kwargs):
    return RealAtariEnv(game, **kwargs), compat.AtariEnv(game, **kwargs)


def _same_step(a, b):
    (oa, ra, ta, ua, ia), (ob, rb, tb, ub, ib) = a, b
    if isinstance(oa, dict):
        assert oa.keys() == ob.keys() and all(np.array_equal(oa[k], ob[k]) for k in oa)
    else:
        assert np.array_equal(oa, ob)
    assert (ra, ta, ua, ia) == (rb, tb, ub, ib)


@pytest.mark.parametrize("game, kwargs", [
    ("ms_pacman", dict(sound_obs=True)),
    ("breakout", dict(obs_type="grayscale", frameskip=(2, 5), full_action_space=True)),
    ("kaboom", dict(obs_type="ram", continuous=True, repeat_action_probability=0.0)),
])
def test_atari_env_steps_as_ale_py(game, kwargs):
    real, ours = _envs(game, **kwargs)
    assert ours.observation_space == real.observation_space and ours.action_space == real.action_space
    assert ours._action_set == [compat.Action(a.value) for a in real._action_set]
    assert ours.get_action_meanings() == real.get_action_meanings()
    ra, oa = real.reset(seed=5), ours.reset(seed=5)
    assert ra[1].keys() == oa[1].keys()
    real.action_space.seed(0)
    for t in range(120):
        action = real.action_space.sample()
        _same_step(real.step(action), ours.step(action))
    real.close()
    ours.close()


def test_keys_to_action_as_ale_py():
    for kwargs in (dict(), dict(full_action_space=True)):
        real, ours = _envs("ms_pacman", **kwargs)
        assert ours.get_keys_to_action() == real.get_keys_to_action()
    real, ours = _envs("ms_pacman", continuous=True)
    with pytest.raises(AttributeError, match="continuous=True"):
        ours.get_keys_to_action()


def test_ale_ids_as_ale_py():
    from ale_py.registration import register_v0_v4_envs, register_v5_envs

    def ids():
        return {i: (s.kwargs, s.vector_entry_point is not None) for i, s in gym.registry.items()
                if s.entry_point == "ale_py.env:AtariEnv"}

    saved = dict(gym.registry)
    try:
        for i in [i for i, s in gym.registry.items() if str(s.entry_point).endswith(".env:AtariEnv")]:
            del gym.registry[i]
        register_v0_v4_envs()
        register_v5_envs()
        theirs = ids()
        compat.register_v0_v4_envs()
        compat.register_v5_envs()
        ours = {i: (s.kwargs, s.vector_entry_point is not None) for i, s in gym.registry.items()
                if s.entry_point == "arcade_lab.ale_compat.env:AtariEnv"}
    finally:
        gym.registry.clear()
        gym.registry.update(saved)
    assert len(theirs) == 352 and ours == theirs


def test_gym_make_gives_ours():
    env = gym.make("ALE/Pong-v5", frameskip=1)
    assert isinstance(env.unwrapped, compat.AtariEnv) and isinstance(env.unwrapped.ale, compat.ALEInterface)
    env.reset(seed=0)
    state = env.unwrapped.clone_state()
    assert isinstance(state, compat.ALEState)
    env.close()


def test_copies_continue_as_the_original():
    env = compat.AtariEnv("seaquest", sound_obs=True, frameskip=(2, 5))
    env.reset(seed=3)
    for _ in range(30):
        env.step(env.action_space.sample())
    twins = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    rng = np.random.default_rng(0)
    for _ in range(60):
        action = int(rng.integers(env.action_space.n))
        step = env.step(action)
        for twin in twins:
            _same_step(step, twin.step(action))


def test_human_render_opens_a_window(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    import pygame

    env = compat.AtariEnv("pong", render_mode="human", frameskip=4)
    assert env.ale.getBool("display_screen") and env.render() is None
    env.reset(seed=0)
    env.step(0)
    assert pygame.display.get_surface().get_size() == (320, 420)
    env.close()
    assert pygame.display.get_surface() is None


def test_a_human_render_window_leaves_the_program_its_sigterm():
    """SDL takes SIGTERM while it is at its default; a researcher's script showing the game must still stop
    on ``kill``, as before the window opened (run in a child: the signal ends it)."""
    import signal

    child = ("import os, signal, time\n"
             "import arcade_lab.ale_compat as ale_py\n"
             "env = ale_py.AtariEnv('pong', render_mode='human', frameskip=4)\n"
             "env.reset(seed=0)\n"
             "env.step(0)\n"
             "import pygame\n"
             "assert pygame.display.get_surface() is not None\n"
             "os.kill(os.getpid(), signal.SIGTERM)\n"
             "time.sleep(5)\n"
             "print('still running')\n")
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert out.returncode == -signal.SIGTERM and "still running" not in out.stdout, out.stderr


def test_display_screen_of_the_interface(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    import pygame

    ale = compat.ALEInterface()
    ale.setBool("display_screen", True)
    ale.loadROM(str(ROMS / "pong.bin"))
    for _ in range(3):
        ale.act(0)
    assert pygame.display.get_surface().get_size() == (320, 420)
    ale._close_window()


def test_rom_paths_as_ale_py(tmp_path, monkeypatch):
    assert compat.roms.get_all_rom_ids() == ale_py.roms.get_all_rom_ids()
    assert compat.roms.get_rom_path("pong").read_bytes() == ale_py.roms.get_rom_path("pong").read_bytes()
    with pytest.warns(UserWarning, match="Rom no_such_game not supported"):
        assert compat.roms.get_rom_path("no_such_game") is None
    (tmp_path / "pong.bin").write_bytes(b"\0" * 2048)
    monkeypatch.setenv("ALE_ROMS_DIR", str(tmp_path))
    with pytest.raises(OSError, match="does not match"):
        compat.roms.get_rom_path("pong")


def test_under_the_name_ale_py(tmp_path):
    """The module itself, under ale-py's name (a link on the path): ale-py's own imports and ids work."""
    (tmp_path / "ale_py.py").symlink_to(ROOT / "arcade_lab" / "ale_compat.py")
    code = ("import gymnasium as gym, ale_py\n"
            "from ale_py.env import AtariEnv\n"
            "from ale_py.roms import get_rom_path\n"
            "spec = gym.spec('ALE/Pong-v5')\n"
            "env = gym.make('ALE/Pong-v5')\n"
            "env.reset(seed=0)\n"
            "print(spec.entry_point, spec.vector_entry_point, type(env.unwrapped) is AtariEnv,\n"
            "      type(env.unwrapped.ale) is ale_py.ALEInterface, get_rom_path('pong').name)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["ale_py.env:AtariEnv", "ale_py.vector_env:AtariVectorEnv", "True", "True",
                                "pong.bin"]


def test_the_engine_imports_neither_this_module_nor_pygame():
    code = ("import sys, arcade_lab.engine.gym, arcade_lab.engine.vector\n"
            "print(sorted(m for m in sys.modules if m.startswith(('arcade_lab.ale_compat', 'pygame'))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "[]"


@pytest.mark.parametrize("env_id", ["ALE/Breakout-v5", "ArcadeLab/Breakout-v5"])
def test_unwrapping_by_env_attributes_stops_at_the_atari_env(env_id):
    """``while hasattr(e, "env"): e = e.env`` (a common idiom) ends at the Atari environment, as with
    ale-py, not inside it: the environment keeps its machine under another name."""
    import arcade_lab.ale_compat  # noqa: F401  (registers the ALE/ ids on ours)

    env = gym.wrappers.AtariPreprocessing(gym.make(env_id, frameskip=1), noop_max=0)
    e = env
    while hasattr(e, "env"):
        e = e.env
    assert e is env.unwrapped
    env.reset(seed=0)
    assert e.ale.lives() == 5 and e.get_action_meanings()[:2] == ["NOOP", "FIRE"]
    env.close()


def test_a_wrong_keyword_is_named_for_atari_env_as_ale_py_names_it():
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    messages = []
    for make in (lambda **kw: gym.make("ALE/Pong-v5", **kw), lambda **kw: compat.AtariEnv("pong", **kw)):
        with pytest.raises(TypeError) as raised:
            make(bogus=1)
        messages.append(str(raised.value))
    assert messages[0].startswith("AtariEnv.__init__() got an unexpected keyword argument 'bogus'"), messages
    assert messages[1] == "AtariEnv.__init__() got an unexpected keyword argument 'bogus'"
    with pytest.raises(TypeError, match=r"^AtariEnv.__init__\(\) got multiple values for argument 'game'"):
        compat.AtariEnv("pong", game="breakout")
