"""TIA sound synthesis: the period of each AUDC waveform for a given AUDF, and time-aligned writes."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.engine import sound
from arcade_lab.engine.tia_regs import AUDC0, AUDV0

# Known TIA waveform lengths (in divider pulses): pure tones /2 and /6, the 4-bit poly 15, the 5-bit
# poly 31, the 9-bit poly 511, div31 variants 31*k ...
PERIOD_IN_PULSES = {
    0x01: 15,    # 4-bit poly
    0x02: 465,   # div 31 -> 4-bit poly: 31 x 15
    0x04: 2,     # pure tone /2
    0x05: 2,
    0x06: 31,    # div 31 -> /2 (31-pulse cycle, asymmetric)
    0x07: 31,    # 5-bit poly -> /2
    0x08: 511,   # 9-bit poly
    0x09: 31,    # 5-bit poly
    0x0A: 31,    # div 31
    0x0C: 6,     # pure tone /6
    0x0D: 6,
    0x0E: 93,    # div 31 -> /6
    0x0F: 93,    # 5-bit poly -> /6
}


@pytest.mark.parametrize("audc,pulses", sorted(PERIOD_IN_PULSES.items()))
@pytest.mark.parametrize("audf", [0, 3, 9])
def test_waveform_period(audc, pulses, audf):
    assert sound.tone_period(audc, audf, samples=max(4000, 5 * pulses * (audf + 1))) == pulses * (audf + 1)


@pytest.mark.parametrize("audc", [0x00, 0x0B])
def test_constant_voices(audc):
    assert sound.tone_period(audc, 5) == 1


def test_writes_apply_at_their_cycle():
    from arcade_lab.engine import layout as L
    from arcade_lab.engine.machine import new_framebuffers, new_state

    s = new_state()
    fb = new_framebuffers()
    s[L.AUD_ON] = 1
    # AUDV0 = 15, AUDC0 = 0 (constant high) written at cycle 3800 (sample 100): silence before, level after
    for i, (cyc, reg, val) in enumerate([(0, AUDC0, 0x00), (3800, AUDV0, 0x0F)]):
        k = L.AUD_LOG_OFFSET + 5 * i
        fb[2, k:k + 5] = [cyc & 0xFF, (cyc >> 8) & 0xFF, cyc >> 16, reg, val]
    s[L.AUD_N] = 2
    s[L.CYC] = 262 * 76
    v = sound.new_voices()
    out = np.zeros(1024)
    n = sound.synth_frame(s, fb, v, out)
    assert n == 524 and s[L.AUD_N] == 0
    assert np.all(out[:100] == out[0]) and np.all(out[100:n] > out[0])
