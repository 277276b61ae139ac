"""TIA audio synthesis: two voices of AUDC (waveform), AUDF (divider) and AUDV (volume).

The TIA clocks its audio twice per scanline (every 38 CPU cycles, ~31.4 kHz NTSC). We run the same
clock over each emulated frame and apply every logged register write at the cycle it happened, so sound
is time-aligned with the picture. Each divider pulse clocks a 4-bit and a 5-bit polynomial counter as
the voice's AUDC selects (the Stella 2.x/ALE model); the voice outputs bit 3 of its
4-bit register. Audio never influences emulation.
"""
from __future__ import annotations

import numpy as np

from ._jit import jit
from .layout import AUD_LOG_MAX, AUD_LOG_OFFSET, AUD_N, CYC, T_AUDC0, T_AUDF0, T_AUDV0
from .tia_regs import AUDC0, AUDC1, AUDF0, AUDF1, AUDV0, AUDV1

CYCLES_PER_SAMPLE = 38
SAMPLE_RATE_NTSC = 31440.0  # 2 samples x 262 lines x ~60 frames/s
SAMPLE_RATE_PAL = 31200.0   # 2 x 312 x 50

# voice state: [AUDC0, AUDC1, AUDF0, AUDF1, AUDV0, AUDV1, P4_0, P4_1, P5_0, P5_1, DIV_0, DIV_1]
V_AUDC, V_AUDF, V_AUDV, V_P4, V_P5, V_DIV = 0, 2, 4, 6, 8, 10
N_VOICE = 12


def new_voices() -> np.ndarray:
    v = np.zeros(N_VOICE, dtype=np.int64)
    v[V_P4] = v[V_P4 + 1] = 1
    v[V_P5] = v[V_P5 + 1] = 1
    return v


@jit(inline="always")
def _poly4(p4):
    return ((p4 << 1) | (((p4 >> 3) ^ (p4 >> 2)) & 1)) & 0xFF if (p4 & 0x0F) else 1


@jit(inline="always")
def _poly5(p5):
    return ((p5 << 1) | (((p5 >> 4) ^ (p5 >> 2)) & 1)) & 0xFF if (p5 & 0x1F) else 1


@jit(inline="always")
def _div2(p4):
    return ((p4 << 1) | (0 if p4 & 1 else 1)) & 0xFF


@jit(inline="always")
def _div6_bits(p4):
    """Shift in a bit that yields the 000111 pattern (period 6)."""
    low = 1 if ((p4 & 4) == 0 and (p4 & 7) != 0) else 0
    return ((~p4) << 1) | low


@jit
def clock_voice(v, c):
    """One divider pulse of voice ``c``: advance its polynomial counters as AUDC selects."""
    audc = v[V_AUDC + c]
    p4 = v[V_P4 + c]
    p5 = v[V_P5 + c]
    if audc == 0x00 or audc == 0x0B:
        p4 = ((p4 << 1) | 1) & 0xFF
    elif audc == 0x01:
        p4 = _poly4(p4)
    elif audc == 0x02:
        p5 = _poly5(p5)
        if (p5 & 0x0F) == 0x08:
            p4 = _poly4(p4)
    elif audc == 0x03:
        p5 = _poly5(p5)
        if p5 & 0x10:
            p4 = _poly4(p4)
    elif audc == 0x04 or audc == 0x05:
        p4 = _div2(p4)
    elif audc == 0x06:
        p5 = _poly5(p5)
        if (p5 & 0x0F) == 0x08:
            p4 = _div2(p4)
    elif audc == 0x07:
        p5 = _poly5(p5)
        if p5 & 0x10:
            p4 = _div2(p4)
    elif audc == 0x08:
        if (p5 & 0x1F) or (p4 & 0x0F):
            p5 = ((p5 << 1) | (((p4 >> 3) ^ (p5 >> 4)) & 1)) & 0xFF
        else:
            p5 = 1
        p4 = ((p4 << 1) | (1 if p5 & 0x20 else 0)) & 0xFF
    elif audc == 0x09:
        p5 = _poly5(p5)
        p4 = ((p4 << 1) | (1 if p5 & 0x20 else 0)) & 0xFF
    elif audc == 0x0A:
        p5 = _poly5(p5)
        if (p5 & 0x0F) == 0x08:
            p4 = ((p4 << 1) | (1 if p5 & 0x10 else 0)) & 0xFF
    elif audc == 0x0C or audc == 0x0D:
        p4 = _div6_bits(p4) & 0xFF
    elif audc == 0x0E:
        p5 = _poly5(p5)
        if (p5 & 0x0F) == 0x08:
            p4 = _div6_bits(p4) & 0xFF
    else:  # 0x0F
        p5 = _poly5(p5)
        if p5 & 0x10:
            p4 = _div6_bits(p4) & 0xFF
    v[V_P4 + c] = p4
    v[V_P5 + c] = p5


@jit
def _set_register(v, addr, value):
    if addr == AUDC0:
        v[V_AUDC] = value & 0x0F
    elif addr == AUDC1:
        v[V_AUDC + 1] = value & 0x0F
    elif addr == AUDF0:
        v[V_AUDF] = value & 0x1F
    elif addr == AUDF1:
        v[V_AUDF + 1] = value & 0x1F
    elif addr == AUDV0:
        v[V_AUDV] = value & 0x0F
    elif addr == AUDV1:
        v[V_AUDV + 1] = value & 0x0F


@jit
def sample(v, out, k):
    """Produce one sample (float in [-1, 1)) after clocking both voices once."""
    for c in range(2):
        d = v[V_DIV + c] + 1
        if d > v[V_AUDF + c]:
            d = 0
            clock_voice(v, c)
        v[V_DIV + c] = d
    level = 0
    if v[V_P4] & 8:
        level += v[V_AUDV]
    if v[V_P4 + 1] & 8:
        level += v[V_AUDV + 1]
    out[k] = level / 30.0 - 0.5


@jit
def synth_frame(s, fb, v, out):
    """Synthesise the samples of the frame just emulated from the logged writes; clears the log.
    Returns the number of samples written into ``out``."""
    log = fb[2]
    n_writes = s[AUD_N]
    end_cycle = s[CYC]
    n = end_cycle // CYCLES_PER_SAMPLE
    if n > out.shape[0]:
        n = out.shape[0]
    w = 0
    for k in range(n):
        t = k * CYCLES_PER_SAMPLE
        while w < n_writes:
            base = AUD_LOG_OFFSET + 5 * w
            c = log[base] | (log[base + 1] << 8) | (log[base + 2] << 16)
            if c > t:
                break
            _set_register(v, log[base + 3], log[base + 4])
            w += 1
        sample(v, out, k)
    while w < n_writes:  # writes after the last sample of this frame
        base = AUD_LOG_OFFSET + 5 * w
        _set_register(v, log[base + 3], log[base + 4])
        w += 1
    s[AUD_N] = 0
    return n


@jit
def sync_registers(s, v):
    """Take the TIA's current audio registers (after a state load or reset)."""
    for c in range(2):
        v[V_AUDC + c] = s[T_AUDC0 + c]
        v[V_AUDF + c] = s[T_AUDF0 + c]
        v[V_AUDV + c] = s[T_AUDV0 + c]


def tone_period(audc: int, audf: int, samples: int = 4000) -> int:
    """Measured period (in output samples) of a voice held at AUDC/AUDF with full volume (tests/docs)."""
    v = new_voices()
    v[V_AUDC] = audc
    v[V_AUDF] = audf
    v[V_AUDV] = 15
    out = np.zeros(samples, dtype=np.float64)
    for k in range(samples):
        sample(v, out, k)
    bits = (out > -0.5).astype(np.int8)
    tail = bits[samples // 2:]
    for p in range(1, len(tail) // 2):
        if np.array_equal(tail[p:], tail[:-p]):
            return p
    return 0


__all__ = ["new_voices", "synth_frame", "sync_registers", "tone_period", "CYCLES_PER_SAMPLE",
           "SAMPLE_RATE_NTSC", "SAMPLE_RATE_PAL", "AUD_LOG_MAX"]
