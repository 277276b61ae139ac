"""Cartridge bank-switching schemes: detection (ALE's rules) and their compiled bus behaviour.

Detection follows the order of checks ALE 0.12.1 applies in ``Cartridge::autodetectType``; the property
table may override it. The compiled side lives in ``cart_bus.py`` (``cart_peek``/``cart_poke``), keyed by the
scheme ids below.
"""
from __future__ import annotations

import numpy as np

# Scheme ids used inside compiled code.
S_2K, S_4K, S_F8, S_F8SWAP, S_F8SC, S_F6, S_F6SC, S_F4, S_F4SC, S_E0, S_FE, S_DPC = range(12)

SCHEME_IDS = {
    "2K": S_2K, "4K": S_4K, "F8": S_F8, "F8 swapped": S_F8SWAP, "F8SC": S_F8SC,
    "F6": S_F6, "F6SC": S_F6SC, "F4": S_F4, "F4SC": S_F4SC, "E0": S_E0, "FE": S_FE, "DPC": S_DPC,
}
SCHEME_NAMES = {v: k for k, v in SCHEME_IDS.items()}

# Reset bank and ROM bytes the machine maps for each scheme.
RESET_BANK = {S_F8: 1, S_F8SWAP: 0, S_F8SC: 1, S_F6: 0, S_F6SC: 0, S_F4: 0, S_F4SC: 0, S_DPC: 1}
# Extra cartridge RAM (bytes) re-filled from the system RNG at every system reset.
EXTRA_RAM = {S_F8SC: 128, S_F6SC: 128, S_F4SC: 128}

# Two 8K ROMs that must start in bank 0 (ALE hard-codes them by md5).
F8_SWAPPED_MD5 = {"bc24440b59092559a1ec26055fd1270e", "75ee371ccfc4f43e7d9b8f24e1266b55"}

# Sizes ALE's autodetection knows what to do with.
KNOWN_SIZES = {2048, 4096, 8192, 10240, 10495, 10496, 12288, 16384, 32768, 65536, 131072}


def _count_signature(image: bytes, sig: bytes, min_hits: int) -> bool:
    """ALE's signature scan: non-overlapping hits (the scan resumes one byte past a hit's window), and
    the scan window stops one byte early — i.e. a hit must end before the image's last byte. ``find``
    does the scanning in C: a Python byte loop here cost the library ~2.7 s at every app start."""
    n, m = len(image), len(sig)
    hits = 0
    i = 0
    while hits < min_hits:
        j = image.find(sig, i, n - 1)
        if j < 0:
            break
        hits += 1
        i = j + m + 1
    return hits >= min_hits


def _is_sc(image: bytes) -> bool:
    for b in range(len(image) // 4096):
        page = image[b * 4096:b * 4096 + 256]
        if page.count(page[0]) != 256:
            return False
    return True


def _is_e0(image: bytes) -> bool:
    sigs = (b"\x8d\xe0\x1f", b"\x8d\xe0\x5f", b"\x8d\xe9\xff", b"\xad\xe9\xff", b"\xad\xed\xff", b"\xad\xf3\xbf")
    return any(_count_signature(image, s, 1) for s in sigs)


def _is_3e(image: bytes) -> bool:
    return _count_signature(image, b"\x85\x3e\xa9\x00", 1)


def _is_3f(image: bytes) -> bool:
    return _count_signature(image, b"\x85\x3f", 2)


def _is_ua(image: bytes) -> bool:
    return _count_signature(image, b"\x8d\x40\x02", 1)


def _is_fe(image: bytes) -> bool:
    sigs = (b"\x20\x00\xd0\xc6\xc5", b"\x20\xc3\xf8\xa5\x82", b"\xd0\xfb\x20\x73\xfe", b"\x20\x00\xf0\x84\xd6")
    return any(_count_signature(image, s, 1) for s in sigs)


def _is_cv(image: bytes) -> bool:
    sigs = (b"\x9d\xff\xf3", b"\x99\x00\xf4")
    return any(_count_signature(image, s, 1) for s in sigs)


def _is_e7(image: bytes) -> bool:
    first = image[0x3800]
    if image[0x3800:0x3A00].count(first) != 0x200:
        return False
    before = sum(1 for b in image[0x3800 - 32:0x3800] if b != first)
    after = sum(1 for b in image[0x3A00:0x3A00 + 32] if b != first)
    return before > 0 or after > 0


def detect_scheme(image: bytes, md5: str = "") -> str:
    """Name of the bank-switching scheme ALE 0.12.1 would pick for this image."""
    size = len(image)
    if md5 in F8_SWAPPED_MD5:
        return "F8 swapped"
    if size and size % 8448 == 0:
        return "AR"
    if size == 2048 or (size == 4096 and image[:2048] == image[2048:]):
        return "CV" if _is_cv(image) else "2K"
    if size == 4096:
        return "CV" if _is_cv(image) else "4K"
    if size == 8192:
        if _is_sc(image):
            return "F8SC"
        if image[:4096] == image[4096:]:
            return "4K"
        for name, test in (("E0", _is_e0), ("3E", _is_3e), ("3F", _is_3f), ("UA", _is_ua), ("FE", _is_fe)):
            if test(image):
                return name
        return "F8"
    if size in (10495, 10496, 10240):
        return "DPC"
    if size == 12288:
        return "FASC"
    if size == 16384:
        if _is_sc(image):
            return "F6SC"
        for name, test in (("E7", _is_e7), ("3E", _is_3e), ("3F", _is_3f)):
            if test(image):
                return name
        return "F6"
    if size == 32768:
        if _is_sc(image):
            return "F4SC"
        for name, test in (("3E", _is_3e), ("3F", _is_3f)):
            if test(image):
                return name
        return "F4"
    if size in (65536, 131072):
        for name, test in (("3E", _is_3e), ("3F", _is_3f)):
            if test(image):
                return name
        return "MB" if size == 65536 else "MC"
    for name, test in (("3E", _is_3e), ("3F", _is_3f)):
        if test(image):
            return name
    return "unknown"


def supported(scheme: str) -> bool:
    """Whether our machine emulates this scheme."""
    return scheme in SCHEME_IDS


def rom_image(image: bytes, scheme: str) -> np.ndarray:
    """The ROM bytes as the machine addresses them (DPC: 8K program + 2K display, padded)."""
    data = np.frombuffer(image, dtype=np.uint8)
    if scheme == "2K":
        # A 4K image with identical halves is treated as 2K by ALE.
        data = data[:2048]
    out = np.zeros(max(len(data), 16), dtype=np.uint8)
    out[:len(data)] = data
    if scheme == "DPC" and len(out) < 8192 + 2048:
        pad = np.zeros(8192 + 2048, dtype=np.uint8)
        pad[:len(out)] = out
        out = pad
    if scheme == "FE":
        out = fe_image(out)
    return out


def fe_image(banks: np.ndarray) -> np.ndarray:
    """FE's two 4K banks laid out by CPU address bits 0-13: the bank follows address line A13 ($D000-$DFFF
    and its mirrors read bank 1, $F000-$FFFF bank 0), so ``image[addr & 0x3FFF]`` is the byte any ROM read
    sees and the CPU reads FE's ROM as directly as an unbanked cartridge's."""
    image = np.zeros(0x4000, dtype=np.uint8)
    bank0, bank1 = banks[:4096], banks[4096:8192]
    image[0x1000:0x1000 + len(bank1)] = bank1
    image[0x3000:0x3000 + len(bank0)] = bank0
    return image
