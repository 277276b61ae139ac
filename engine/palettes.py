"""NTSC / PAL / SECAM palettes: TIA colour index -> RGB, as ALE's getScreenRGB maps them.

The even entries are the standard Stella palette (hue << 4 | luminance << 1); each odd entry is the
luminance grey of the even entry before it (0.2989 R + 0.587 G + 0.114 B, rounded), which PAL
colour loss produces. ALE's grayscale observation of index v is the low byte of entry v + 1.
"""
from __future__ import annotations

import numpy as np

_NTSC_EVEN = """
000000 4a4a4a 6f6f6f 8e8e8e aaaaaa c0c0c0 d6d6d6 ececec
484800 69690f 86861d a2a22a bbbb35 d2d240 e8e84a fcfc54
7c2c00 904811 a26221 b47a30 c3903d d2a44a dfb755 ecc860
901c00 a33915 b55328 c66c3a d5824a e39759 f0aa67 fcbc74
940000 a71a1a b83232 c84848 d65c5c e46f6f f08080 fc9090
840064 97197a a8308f b846a2 c659b3 d46cc3 e07cd2 ec8ce0
500084 68199a 7d30ad 9246c0 a459d0 b56ce0 c57cee d48cfc
140090 331aa3 4e32b5 6848c6 7f5cd5 956fe3 a980f0 bc90fc
000094 181aa7 2d32b8 4248c8 545cd6 656fe4 7580f0 8490fc
001c88 183b9d 2d57b0 4272c2 548ad2 65a0e1 75b5ef 84c8fc
003064 185080 2d6d98 4288b0 54a0c5 65b7d9 75cceb 84e0fc
004030 18624e 2d8169 429e82 54b899 65d1ae 75e7c2 84fcd4
004400 1a661a 328432 48a048 5cba5c 6fd26f 80e880 90fc90
143c00 355f18 527e2d 6e9c42 87b754 9ed065 b4e775 c8fc84
303800 505916 6d762b 88923e a0ab4f b7c25f ccd86e e0ec7c
482c00 694d14 866a26 a28638 bb9f47 d2b656 e8cc63 fce070
"""

_PAL_EVEN = """
000000 2b2b2b 525252 767676 979797 b6b6b6 d2d2d2 ececec
000000 2b2b2b 525252 767676 979797 b6b6b6 d2d2d2 ececec
805800 96711a ab8732 be9c48 cfaf5c dfc06f eed180 fce090
445c00 5e791a 769332 8cac48 a0c25c b3d76f c4ea80 d4fc90
703400 89511a a06b32 b68448 c99a5c dcaf6f ecc280 fcd490
006414 1a8035 329852 48b06e 5cc587 6fd99e 80ebb4 90fcc8
700014 891a35 a03252 b6486e c95c87 dc6f9e ec80b4 fc90c8
005c5c 1a7676 328e8e 48a4a4 5cb8b8 6fcbcb 80dcdc 90ecec
70005c 841a74 963289 a8489e b75cb0 c66fc1 d380d1 e090e0
003c70 195a89 2f75a0 448eb6 57a5c9 68badc 79ceec 88e0fc
580070 6e1a89 8332a0 9648b6 a75cc9 b76fdc c680ec d490fc
002070 193f89 2f5aa0 4474b6 578bc9 68a1dc 79b5ec 88c8fc
340080 4a1a96 5f32ab 7248be 835ccf 936fdf a280ee b090fc
000088 1a1a9d 3232b0 4848c2 5c5cd2 6f6fe1 8080ef 9090fc
000000 2b2b2b 525252 767676 979797 b6b6b6 d2d2d2 ececec
000000 2b2b2b 525252 767676 979797 b6b6b6 d2d2d2 ececec
"""

# SECAM shows eight colours, repeated for every hue.
_SECAM_EIGHT = "000000 2121ff f03c79 ff50ff 7fff00 7fffff ffff3f ffffff"


def _grey(rgb: int) -> int:
    r, g, b = (rgb >> 16) & 0xFF, (rgb >> 8) & 0xFF, rgb & 0xFF
    lum = int(np.floor(r * 0.2989 + g * 0.5870 + b * 0.1140 + 0.5))
    return lum * 0x010101


def _build(evens: list[int]) -> np.ndarray:
    packed = np.zeros(256, dtype=np.uint32)
    for i, c in enumerate(evens):
        packed[2 * i] = c
        packed[2 * i + 1] = _grey(c)
    return packed


def _rgb(packed: np.ndarray) -> np.ndarray:
    out = np.zeros((256, 3), dtype=np.uint8)
    out[:, 0] = (packed >> 16) & 0xFF
    out[:, 1] = (packed >> 8) & 0xFF
    out[:, 2] = packed & 0xFF
    return out


NTSC_PACKED = _build([int(v, 16) for v in _NTSC_EVEN.split()])
PAL_PACKED = _build([int(v, 16) for v in _PAL_EVEN.split()])
SECAM_PACKED = _build([int(v, 16) for v in _SECAM_EIGHT.split()] * 16)

NTSC = _rgb(NTSC_PACKED)
PAL = _rgb(PAL_PACKED)
SECAM = _rgb(SECAM_PACKED)

# ALE's grayscale lookup reads entry v + 1 (for v = 255 we repeat the last entry).
_NEXT = np.minimum(np.arange(256) + 1, 255)
NTSC_GRAY = (NTSC_PACKED[_NEXT] & 0xFF).astype(np.uint8)
PAL_GRAY = (PAL_PACKED[_NEXT] & 0xFF).astype(np.uint8)

PALETTES = {"NTSC": NTSC, "PAL": PAL, "SECAM": SECAM}


def rgb_table(name: str) -> np.ndarray:
    return PALETTES[name]
