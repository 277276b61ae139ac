"""Python face of one console: load a ROM, power on as ALE does, run frames, screen, RAM, snapshots."""
from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

import numpy as np

from . import blocks, blocks_background, carts, machine, roms
from .layout import (FB_ROWS, FN_BLOCKS, N_SNAPSHOT, RAM0, STATE_VERSION, T_FBCUR, T_FRAMEHEIGHT, T_HEIGHT,
                     T_YSTART)
from .palettes import NTSC, PAL

_MAGIC = b"ALST"
# Earlier bodies (episode start states in the store, save-state files) carried the process-local kernel
# addresses, always saved as zeros, at slots 18.. (5 of them in version 1, 6 in version 2); dropping
# them gives today's snapshot, whose other slots kept their order.
_OLD_KERNEL_SLOTS = {1: range(18, 23), 2: range(18, 24)}
_SNAP_SHAPE = (N_SNAPSHOT,)


class StateError(ValueError):
    """A snapshot that cannot be restored here (corrupt, other ROM, other version)."""


class State:
    """A bit-exact snapshot of a machine (and optionally the environment RNG), serialisable to bytes."""

    __slots__ = ("md5", "data", "rng")

    def __init__(self, md5: str, data: np.ndarray, rng: np.ndarray | None = None):
        self.md5 = md5
        self.data = data
        self.rng = rng

    def to_bytes(self) -> bytes:
        rng = b"" if self.rng is None else self.rng.astype("<i8").tobytes()
        body = self.data.astype("<i8").tobytes()
        head = _MAGIC + struct.pack("<HH32sII", STATE_VERSION, 0, self.md5.encode("ascii"), len(body), len(rng))
        digest = hashlib.sha256(head + body + rng).digest()[:16]
        return head + body + rng + digest

    @classmethod
    def from_bytes(cls, blob: bytes) -> "State":
        hsize = 4 + struct.calcsize("<HH32sII")
        if len(blob) < hsize + 16 or blob[:4] != _MAGIC:
            raise StateError("not an Arcade Lab machine state (bad header)")
        version, _, md5, nbody, nrng = struct.unpack("<HH32sII", blob[4:hsize])
        if version != STATE_VERSION and version not in _OLD_KERNEL_SLOTS:
            raise StateError(f"machine state version {version} is not supported (this build reads 1 to "
                             f"{STATE_VERSION})")
        if len(blob) != hsize + nbody + nrng + 16:
            raise StateError("machine state is truncated or has trailing bytes")
        if hashlib.sha256(blob[:hsize + nbody + nrng]).digest()[:16] != blob[-16:]:
            raise StateError("machine state is corrupt (checksum mismatch)")
        old = _OLD_KERNEL_SLOTS.get(version, range(0))
        count = N_SNAPSHOT + len(old)
        if nbody != count * 8:
            raise StateError("machine state has the wrong size for this version")
        data = np.frombuffer(blob, dtype="<i8", count=count, offset=hsize).astype(np.int64)
        if len(old):
            data = np.delete(data, old)
        rng = None
        if nrng:
            rng = np.frombuffer(blob, dtype="<i8", count=nrng // 8, offset=hsize + nbody).astype(np.int64)
        return cls(md5.decode("ascii"), data, rng)

    def __eq__(self, other) -> bool:
        if not isinstance(other, State) or self.md5 != other.md5:
            return False
        return np.array_equal(self.data, other.data) and (
            (self.rng is None and other.rng is None)
            or (self.rng is not None and other.rng is not None and np.array_equal(self.rng, other.rng)))


def _resolve(rom) -> tuple[roms.RomInfo, bytes]:
    if isinstance(rom, (bytes, bytearray)):
        data = bytes(rom)
        return roms.identify(data), data
    text = os.fspath(rom)
    p = Path(text)
    if p.suffix.lower() in roms.ROM_SUFFIXES or os.sep in text or p.exists():
        return roms.load(p)
    return roms.load(roms.rom_path(text))


class Console:
    """One Atari 2600 built from a ROM exactly as ALE's ``loadROM`` builds it: power-on with the system RNG
    seeded 4753849, the 60-frame NTSC/PAL autodetect run where the properties ask for it, then a reset."""

    def __init__(self, rom):
        self.info, data = _resolve(rom)
        props = self.info.props
        scheme = self.info.scheme
        if not carts.supported(scheme):
            raise roms.RomError(self.info.path, f"uses the {scheme} bank-switching scheme, not emulated")
        sid = carts.SCHEME_IDS[scheme]
        self.rom = carts.rom_image(data, scheme)
        self.s = machine.new_state()
        self.fb = machine.new_framebuffers()
        ystart = min(max(props.ystart, 0), 200)
        height = min(max(props.height, 1), FB_ROWS - 2)
        machine.configure(
            self.s, scheme_id=sid, reset_bank=carts.RESET_BANK.get(sid, 0), xram=carts.EXTRA_RAM.get(sid, 0),
            ystart=ystart, height=height, hmove_blanks=props.hmove_blanks,
            ctrl_left=props.controller_left, ctrl_right=props.controller_right, swap_ports=props.swap_ports,
            swap_paddles=props.swap_paddles, left_difficulty=props.left_difficulty,
            right_difficulty=props.right_difficulty)
        fmt = props.display_format
        pal = machine.power_on(self.s, self.rom, self.fb, fmt == "AUTO-DETECT", 1 if fmt.startswith(("PAL", "SECAM")) else 0)
        self.pal = bool(pal)
        self.display_format = ("PAL" if self.pal else "NTSC") if fmt == "AUTO-DETECT" else fmt
        if self.display_format in ("PAL", "SECAM") and props.height == 210:
            self.s[T_HEIGHT] = 250
            self.s[T_FRAMEHEIGHT] = 250
        machine.system_reset(self.s, self.rom, self.fb, self.pal)
        self._md5 = self.info.md5
        if not blocks.install(self.s, self._md5):  # the ROM's compiled hot blocks, where cached
            blocks_background.request(self._md5, self._compile_source())
        blocks_background.mark_used()
        self._snap = self.s[:N_SNAPSHOT]  # what a snapshot holds (layout.py): everything but kernel addresses
        self._snap_view = memoryview(self._snap)

    def _compile_source(self) -> str | None:
        """What a background compile of this ROM's blocks loads: a game with ALE rules (the counting run
        plays it), by its file where there is one."""
        if not self.info.supported:
            return None
        path = self.info.path
        return str(path) if path and Path(path).is_file() else self.info.id

    def take_blocks(self) -> bool:
        """Install the ROM's blocks if a background compile this process asked for has finished since
        (an environment calls this at reset). Returns whether the console runs blocks now."""
        if self.s[FN_BLOCKS]:
            return True
        return blocks_background.asked(self._md5) and blocks.install(self.s, self._md5)

    # -- frames -------------------------------------------------------------------------------------
    def run_frame(self, draw: bool = True) -> bool:
        """One video frame (ALE ``TIA::update``) with the current input lines."""
        return bool(machine.run_frame(self.s, self.rom, self.fb, draw))

    # -- observations -------------------------------------------------------------------------------
    @property
    def height(self) -> int:
        return int(self.s[T_FRAMEHEIGHT])

    @property
    def ystart(self) -> int:
        return int(self.s[T_YSTART])

    def screen(self, buffer: int | None = None) -> np.ndarray:
        """Palette indices of the frame buffer being drawn (ALE's current buffer), height x 160."""
        b = int(self.s[T_FBCUR]) if buffer is None else buffer
        return self.fb[b, : self.height * 160].reshape(self.height, 160)

    def palette(self) -> np.ndarray:
        return PAL if self.pal else NTSC

    def ram(self) -> np.ndarray:
        return self.s[RAM0:RAM0 + 128].astype(np.uint8)

    # -- snapshots ----------------------------------------------------------------------------------
    def clone_state(self) -> State:
        return State(self._md5, self._snap.copy())

    def restore_state(self, state: State) -> None:
        if not isinstance(state, State):
            raise StateError("restore_state needs a State (use State.from_bytes for saved bytes)")
        if state.md5 != self._md5:
            raise StateError(f"this state belongs to another ROM (md5 {state.md5}, loaded {self._md5})")
        if state.data.shape != _SNAP_SHAPE:
            raise StateError(f"this state has {state.data.size} slots, a machine snapshot has {N_SNAPSHOT}")
        self._snap[:] = state.data
