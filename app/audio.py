"""Sound output: TIA samples resampled to the device rate and played from a ring buffer.

The emulator thread pushes each frame's samples; the sounddevice callback pulls, zero-fills on underrun
and counts it. The resampling ratio is nudged by the buffer fill so emulator and sound card clocks never
drift apart. Without PortAudio or an output device everything still works, silently (``NullAudio``).
"""
from __future__ import annotations

import threading

import numpy as np


class NullAudio:
    """Accepts samples and drops them; used when there is no sound device (or in tests)."""

    available = False

    def __init__(self, reason: str = "audio off"):
        self.reason = reason
        self.volume = 1.0
        self.muted = False
        self.underruns = 0
        self.pushed = 0

    @property
    def state(self) -> str:
        return f"silent ({self.reason})"

    def push(self, samples: np.ndarray, source_rate: float) -> None:
        self.pushed += len(samples)

    def clear(self) -> None:
        pass

    def close(self) -> None:
        pass


class RingBuffer:
    """Single-producer single-consumer float32 ring."""

    def __init__(self, capacity: int):
        self.buf = np.zeros(capacity, dtype=np.float32)
        self.capacity = capacity
        self.read = 0
        self.write = 0
        self.lock = threading.Lock()

    def fill(self) -> int:
        return (self.write - self.read) % self.capacity

    def put(self, data: np.ndarray) -> None:
        with self.lock:
            n = min(len(data), self.capacity - 1 - self.fill())
            if n <= 0:
                return
            end = self.write + n
            if end <= self.capacity:
                self.buf[self.write:end] = data[:n]
            else:
                k = self.capacity - self.write
                self.buf[self.write:] = data[:k]
                self.buf[:n - k] = data[k:n]
            self.write = end % self.capacity

    def get(self, out: np.ndarray) -> int:
        """Fill ``out``; returns how many samples were real (the rest are zeros)."""
        with self.lock:
            n = min(len(out), self.fill())
            end = self.read + n
            if end <= self.capacity:
                out[:n] = self.buf[self.read:end]
            else:
                k = self.capacity - self.read
                out[:k] = self.buf[self.read:]
                out[k:n] = self.buf[:n - k]
            self.read = end % self.capacity
        out[n:] = 0.0
        return n

    def clear(self) -> None:
        with self.lock:
            self.read = self.write = 0


class Resampler:
    """Linear-interpolation resampler that keeps its phase across frames."""

    def __init__(self):
        self.phase = 0.0
        self.last = 0.0

    def run(self, x: np.ndarray, ratio: float) -> np.ndarray:
        """``ratio`` = output rate / input rate."""
        if len(x) == 0:
            return np.zeros(0, dtype=np.float32)
        src = np.concatenate(([self.last], x))
        step = 1.0 / ratio
        pos = np.arange(self.phase, len(x), step)
        pos = pos[pos < len(x)]  # arange may overshoot its stop by a rounding error
        i = np.floor(pos).astype(np.int64)
        frac = pos - i
        out = src[i] * (1 - frac) + src[i + 1] * frac
        self.phase = (pos[-1] + step) - len(x) if len(pos) else self.phase - len(x)
        self.last = x[-1]
        return out.astype(np.float32)


class SoundDeviceAudio:
    """Output through sounddevice/PortAudio."""

    available = True

    def __init__(self, sd, rate: int = 48000, latency_frames: float = 3.0):
        self.sd = sd
        self.rate = rate
        self.volume = 0.6
        self.muted = False
        self.underruns = 0
        self.ring = RingBuffer(rate)  # one second
        self.target = int(rate / 60 * latency_frames)
        self.resampler = Resampler()
        self._started = False
        self.stream = sd.OutputStream(samplerate=rate, channels=1, dtype="float32", callback=self._callback,
                                      blocksize=0, latency="low")

    @property
    def state(self) -> str:
        return "muted" if self.muted else f"sound on ({self.rate} Hz)"

    def _callback(self, outdata, frames, time_info, status) -> None:
        n = self.ring.get(outdata[:, 0])
        if n < frames and self._started:
            self.underruns += 1
        if self.muted:
            outdata[:] = 0
        else:
            outdata *= self.volume

    def push(self, samples: np.ndarray, source_rate: float) -> None:
        fill = self.ring.fill()
        # drift correction: a fuller buffer plays slightly fewer output samples per input sample
        ratio = self.rate / source_rate * (1.0 + 0.02 * (self.target - fill) / max(self.target, 1))
        self.ring.put(self.resampler.run(samples, ratio))
        if not self._started and self.ring.fill() >= self.target:
            self.stream.start()
            self._started = True

    def clear(self) -> None:
        self.ring.clear()

    def close(self) -> None:
        try:
            self.stream.stop()
            self.stream.close()
        except Exception:
            pass


def open_audio(enabled: bool = True):
    """The best output this machine has: sounddevice, else a NullAudio saying why."""
    if not enabled:
        return NullAudio("disabled")
    try:
        import sounddevice as sd
    except (ImportError, OSError) as e:
        return NullAudio(f"no PortAudio: {e}".split("\n")[0][:80])
    try:
        sd.query_devices(kind="output")
        return SoundDeviceAudio(sd)
    except Exception as e:
        return NullAudio(f"no output device: {e}".split("\n")[0][:80])
