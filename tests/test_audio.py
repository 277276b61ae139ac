"""Audio path: ring buffer, resampler phase continuity, drift correction and the null sink."""
from __future__ import annotations

import types

import numpy as np

from arcade_lab.app.audio import NullAudio, Resampler, RingBuffer, SoundDeviceAudio, open_audio


def test_ring_buffer_wraps_and_reports_underrun():
    rb = RingBuffer(8)
    rb.put(np.arange(5, dtype=np.float32))
    out = np.zeros(3, dtype=np.float32)
    assert rb.get(out) == 3 and list(out) == [0, 1, 2]
    rb.put(np.arange(10, 15, dtype=np.float32))  # wraps
    out = np.zeros(9, dtype=np.float32)
    assert rb.get(out) == 7 and list(out[:7]) == [3, 4, 10, 11, 12, 13, 14] and not out[7:].any()


def test_resampler_keeps_phase_across_frames():
    x = np.sin(np.arange(3000) / 20.0)
    whole = Resampler().run(x, 48000 / 31440)
    r = Resampler()
    parts = np.concatenate([r.run(x[i:i + 524], 48000 / 31440) for i in range(0, 3000, 524)])
    n = min(len(whole), len(parts))
    assert abs(len(whole) - len(parts)) <= 1
    assert np.allclose(whole[:n], parts[:n], atol=1e-6)
    assert abs(len(whole) - 3000 * 48000 / 31440) < 2


class _FakeStream:
    def __init__(self, callback, **kw):
        self.callback = callback
        self.started = False

    def start(self):
        self.started = True

    def stop(self):
        pass

    def close(self):
        pass


def test_sounddevice_output_fills_and_counts_underruns():
    sd = types.SimpleNamespace(OutputStream=lambda **kw: _FakeStream(**kw))
    audio = SoundDeviceAudio(sd, rate=48000)
    for _ in range(4):
        audio.push(np.full(524, 0.5), 31440.0)
    assert audio.stream.started
    out = np.zeros((256, 1), dtype=np.float32)
    audio.stream.callback(out, 256, None, None)
    assert np.allclose(out[4:], 0.5 * audio.volume)  # after the first interpolation ramp from silence
    big = np.zeros((audio.ring.fill() + 100, 1), dtype=np.float32)
    audio.stream.callback(big, len(big), None, None)
    assert audio.underruns == 1
    audio.muted = True
    audio.push(np.full(524, 0.5), 31440.0)
    audio.stream.callback(out, 256, None, None)
    assert not out.any()


def test_drift_correction_slows_a_full_buffer():
    sd = types.SimpleNamespace(OutputStream=lambda **kw: _FakeStream(**kw))
    audio = SoundDeviceAudio(sd, rate=48000)
    audio.push(np.zeros(524), 31440.0)
    n_low = audio.ring.fill()
    audio.ring.put(np.zeros(audio.target * 3, dtype=np.float32))
    before = audio.ring.fill()
    audio.push(np.zeros(524), 31440.0)
    n_high = audio.ring.fill() - before
    assert n_high < n_low


def test_null_sink_and_disabled_audio():
    a = open_audio(enabled=False)
    assert isinstance(a, NullAudio) and "disabled" in a.state
    a.push(np.zeros(100), 31440.0)
    assert a.pushed == 100 and a.underruns == 0
