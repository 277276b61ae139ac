"""Desktop app (pytest-qt, offscreen): play, input, pause/step, game switching, errors, shutdown."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from arcade_lab.app.input import KeyMap  # noqa: E402
from arcade_lab.app.session import InputFrame, PlaySession, joystick_action  # noqa: E402
from arcade_lab.app.window import MainWindow  # noqa: E402

PADDLE_COLOUR = 200


@pytest.fixture
def window(open_window):
    return open_window("pong")


def _paddle_rows(frame: np.ndarray) -> np.ndarray:
    return np.nonzero(frame[34:194, 140] == PADDLE_COLOUR)[0]


def test_joystick_action_mapping():
    assert joystick_action(False, False, False, False, False) == 0
    assert joystick_action(True, False, False, True, True) == 14   # UPRIGHTFIRE
    assert joystick_action(True, True, True, True, False) == 0     # opposites cancel


def test_window_opens_on_a_game_and_paints(window, qtbot):
    qtbot.waitUntil(lambda: window.view.frames_painted > 3, timeout=10000)
    assert window.session.info.id == "pong"
    assert "Pong" in window.st_game.text()
    assert window.view.frame().shape == (210, 160)


def test_keys_move_pongs_paddle(window, qtbot):
    # Real-time pace and a short press: unthrottled, the paddle would run off the top of the field
    # before the release lands and the check could not see where it went.
    window.set_speed(1.0)
    qtbot.wait(300)
    before = _paddle_rows(window.worker.take_frame()[0])
    qtbot.keyPress(window.view, Qt.Key.Key_Right)
    start = window.worker.frames_emulated
    qtbot.waitUntil(lambda: window.worker.frames_emulated > start + 8, timeout=20000)
    qtbot.keyRelease(window.view, Qt.Key.Key_Right)
    qtbot.wait(100)
    after = _paddle_rows(window.worker.take_frame()[0])
    assert len(before)
    assert not np.array_equal(before, after)


def test_auto_repeat_ignored_and_focus_loss_releases(window):
    st = window.input
    code = int(Qt.Key.Key_Space.value)
    st.key_press(code)
    assert st.snapshot().fire
    st.key_release(code, auto_repeat=True)   # auto-repeat release: still held
    assert st.snapshot().fire
    st.release_all()
    assert not st.snapshot().fire


def test_pause_and_single_step_advance_exactly_one_frame(window, qtbot):
    window.pause_action.setChecked(True)
    window.toggle_pause()
    qtbot.waitUntil(lambda: window.worker.paused, timeout=5000)   # (the emulator thread takes the command)
    n0 = window.session.frame_number
    qtbot.wait(200)
    assert window.session.frame_number == n0
    window.step_frame()
    qtbot.waitUntil(lambda: window.session.frame_number == n0 + 1, timeout=5000)
    qtbot.wait(200)
    assert window.session.frame_number == n0 + 1


def test_switching_games_while_running(window, qtbot):
    window.set_speed(None)
    for g in ("breakout", "seaquest", "pong"):
        assert window.open_game(g)
        qtbot.waitUntil(lambda: window.session is not None and window.session.info.id == g, timeout=30000)
        f = window.session.frame_number
        qtbot.waitUntil(lambda: window.session.frame_number > f + 10, timeout=20000)


def test_bad_rom_shows_error_and_app_keeps_running(window, qtbot, tmp_path):
    bad = tmp_path / "broken.bin"
    bad.write_bytes(b"\x00" * 1000)
    assert not window.open_game(str(bad))
    assert "broken.bin" in window.last_error
    f = window.session.frame_number
    qtbot.waitUntil(lambda: window.session.frame_number > f + 5, timeout=10000)
    assert window.session.info.id == "pong"


def test_remapped_keys_work(window, tmp_path):
    km = window.input.keymap
    km.set("fire", ["X"])
    code_x = int(Qt.Key.Key_X.value)
    code_space = int(Qt.Key.Key_Space.value)
    window.input.key_press(code_space)
    assert not window.input.snapshot().fire
    window.input.key_press(code_x)
    assert window.input.snapshot().fire
    km.save(window.settings)
    again = KeyMap.load(window.settings)
    assert again.control_for(code_x) == "fire"


def test_worker_stops_cleanly_on_close(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(audio=False, settings=settings, thumbnails=False)
    qtbot.addWidget(win)
    win.open_game("breakout")
    win.show()
    qtbot.waitUntil(lambda: win.worker.frames_emulated > 3, timeout=60000)
    win.close()
    assert win.worker.wait(5000) and not win.worker.isRunning()


def test_start_up_work_waits_for_the_first_painted_frame(qtbot, tmp_path, monkeypatch):
    """The agent docks (~0.5 s to build) and the thumbnail thread start only once a game frame is on
    screen: queued before that paint, they ran ahead of it and delayed the first frame by ~0.7 s."""
    import arcade_lab.app.thumbnails as thumbs

    monkeypatch.setattr(thumbs, "cache_dir", lambda: tmp_path / "thumbs")
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    win = MainWindow(audio=False, settings=settings, thumbnails=True)
    qtbot.addWidget(win)
    assert win.open_game("pong")
    qtbot.waitUntil(lambda: win.worker.frames_emulated > 10, timeout=60000)  # frames arrive, none painted
    qtbot.wait(100)
    assert win.view.frames_painted == 0
    assert win._agent_ui is None and not win._thumbs.isRunning() and win._thumbs_pending
    win.show()
    qtbot.waitUntil(lambda: win.view.frames_painted > 0, timeout=10000)
    qtbot.waitUntil(lambda: win._agent_ui is not None and not win._thumbs_pending, timeout=60000)
    qtbot.waitUntil(lambda: any(p.suffix == ".png" for p in (tmp_path / "thumbs").glob("*")), timeout=60000)
    win.close()


def test_screenshot_is_the_true_screen(window, qtbot, tmp_path, monkeypatch):
    import arcade_lab.app.window as w

    monkeypatch.setattr(w, "screenshot_dir", lambda: tmp_path)
    qtbot.waitUntil(lambda: window.view.frames_painted > 1, timeout=10000)
    path = window.save_screenshot()
    from PySide6.QtGui import QImage

    img = QImage(str(path))
    assert img.width() == 160 and img.height() == 210


def test_session_console_switches_and_game_over():
    s = PlaySession("breakout")
    for _ in range(10):
        s.step(InputFrame())
    s.set_difficulty_bit(0, True)
    assert s.difficulty == 1
    s.step(InputFrame(reset=True))
    assert s.score == 0 and not s.game_over


class _FakeStick:
    def __init__(self, axes=(0.0, 0.0), buttons=(0,) * 8, iid=0):
        self.axes, self.buttons, self.iid = list(axes), list(buttons), iid

    def init(self):
        pass

    def get_instance_id(self):
        return self.iid

    def get_numaxes(self):
        return len(self.axes)

    def get_axis(self, i):
        return self.axes[i]

    def get_numhats(self):
        return 0

    def get_numbuttons(self):
        return len(self.buttons)

    def get_button(self, b):
        return self.buttons[b]


class _FakePygame:
    JOYDEVICEADDED, JOYDEVICEREMOVED = 1, 2

    def __init__(self, sticks):
        import types

        self.sticks = sticks
        self.pending = []
        fake = self
        self.joystick = types.SimpleNamespace(get_count=lambda: len(fake.sticks),
                                              Joystick=lambda i: fake.sticks[i])
        self.event = types.SimpleNamespace(get=lambda kinds: [fake.pending.pop() for _ in list(fake.pending)])


def test_gamepad_dead_zone_buttons_and_hotplug():
    from arcade_lab.app.gamepad import Gamepads
    from arcade_lab.app.input import InputState

    st = InputState()
    pads = Gamepads(st)
    fake = _FakePygame([_FakeStick(axes=(0.2, -0.9), buttons=(1, 0, 0, 0, 0, 0, 0, 0))])
    pads._pg, pads.available = fake, True
    pads._rescan()
    pads.poll()
    snap = st.snapshot()
    assert snap.up and snap.fire and not snap.left and not snap.right  # 0.2 is inside the dead zone
    fake.sticks.append(_FakeStick(axes=(0.9, 0.0), iid=1))
    fake.pending.append("added")
    pads.poll()
    assert st.snapshot().right and "2 gamepad" in pads.state
    fake.sticks.clear()
    fake.pending.append("removed")
    pads.poll()
    assert not st.snapshot().right and pads.state == "no gamepad connected"


def test_mouse_drives_paddles(window, qtbot):
    assert window.session.uses_paddles
    window.view.mouse_x.emit(0.75)
    assert window.input.paddle == 0.75
    code = int(Qt.Key.Key_Left.value)
    window.input.key_press(code)
    assert window.input.paddle is None  # keys take the paddle back
    window.input.key_release(code)


def test_palette_choice_is_saved(window):
    window.set_palette_choice("SECAM")
    assert window.settings.value("view/palette") == "SECAM"
    window.set_palette_choice("Auto")


def test_window_fits_a_laptop_screen_with_every_dock(window, qtbot):
    """All docks (library, states, sessions, agents, training, scores) together still fit 1366x768."""
    assert window.agent_ui is not None  # the agent docks are built (normally just after the first frame)
    qtbot.wait(50)
    hint = window.minimumSizeHint()
    assert hint.height() <= 720 and hint.width() <= 1366, hint


def test_startup_objects_are_frozen_out_of_full_collections(open_window, qtbot):
    """Once the first frame is up and the agent docks are built, the start-up objects (numba, Qt,
    pyqtgraph) are frozen: a full collection in the GUI thread no longer walks them (77 ms -> ~0)."""
    import gc

    gc.unfreeze()
    win = open_window("pong")
    qtbot.waitUntil(lambda: win._agent_ui is not None, timeout=60000)  # built just after the first frame
    assert gc.get_freeze_count() > 10_000


def test_bench_app_reports_pace_and_median_warm_start(qtbot):
    """`arcade-lab bench --app`: the window keeps the console's pace, and the warm start is the median of
    several fresh processes, reported with its range."""
    from arcade_lab.app import bench_app

    res = bench_app.run("pong", seconds=1.0, cold=False)
    assert res["target_rate"] == pytest.approx(60.0, abs=0.5) and res["frame_rate"] > 0
    assert res["frames_painted"] > 0
    assert res["dropped_per_minute"] == pytest.approx(res["dropped_frames"] * 60 / res["seconds"], rel=0.01, abs=0.1)
    assert res["full_collections"] >= 0 and res["longest_collection_ms"] >= 0
    lo, hi = (float(v) for v in res["startup_warm_range_s"].split("-"))
    assert 0 < lo <= res["startup_warm_s"] <= hi
