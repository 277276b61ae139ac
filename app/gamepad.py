"""Gamepads through SDL (pygame, an optional dependency): hot-plug, dead zone, remappable buttons.

Polled from the emulator thread once per frame; the state lands in ``InputState.pad_held`` (and the
paddle position for paddle games when an analog stick moves). Without pygame, or without a pad, nothing
happens and the status bar says so.
"""
from __future__ import annotations

import os

DEFAULT_BUTTONS = {"fire": [0, 1], "select": [6], "reset": [7]}
DEAD_ZONE = 0.35


class Gamepads:
    def __init__(self, input_state, buttons: dict[str, list[int]] | None = None, dead_zone: float = DEAD_ZONE):
        self.input = input_state
        self.buttons = {k: list(v) for k, v in (buttons or DEFAULT_BUTTONS).items()}
        self.dead_zone = dead_zone
        self.available = False
        self.reason = ""
        self._pg = None
        self._pads: dict[int, object] = {}
        try:
            os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            import pygame

            pygame.joystick.init()
            pygame.display.init()
            self._pg = pygame
            self.available = True
            self._rescan()
        except Exception as e:  # no pygame / no SDL: keyboard only
            self.reason = f"no gamepad support ({type(e).__name__}: {e})".split("\n")[0][:100]

    @property
    def state(self) -> str:
        if not self.available:
            return self.reason or "no gamepad support"
        return f"{len(self._pads)} gamepad(s)" if self._pads else "no gamepad connected"

    def _rescan(self) -> None:
        pg = self._pg
        self._pads = {}
        for i in range(pg.joystick.get_count()):
            j = pg.joystick.Joystick(i)
            j.init()
            self._pads[j.get_instance_id()] = j

    def poll(self) -> None:
        """Read every pad (call once per frame)."""
        if not self.available:
            return
        pg = self._pg
        for ev in pg.event.get([pg.JOYDEVICEADDED, pg.JOYDEVICEREMOVED]):
            self._rescan()
        held: set[str] = set()
        for j in self._pads.values():
            x = j.get_axis(0) if j.get_numaxes() > 0 else 0.0
            y = j.get_axis(1) if j.get_numaxes() > 1 else 0.0
            if j.get_numhats() > 0:
                hx, hy = j.get_hat(0)
                x = x or float(hx)
                y = y or float(-hy)
            if x < -self.dead_zone:
                held.add("left")
            elif x > self.dead_zone:
                held.add("right")
            if y < -self.dead_zone:
                held.add("up")
            elif y > self.dead_zone:
                held.add("down")
            for control, ids in self.buttons.items():
                if any(b < j.get_numbuttons() and j.get_button(b) for b in ids):
                    held.add(control)
        self.input.pad_held = held
