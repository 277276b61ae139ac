"""The cartridge's page map (which 64-byte pages of $1000-$1FFF the CPU loop reads straight from ROM, and
where) and the loop's opcode fetch against a slow reference, along random sequences of cartridge reads
and writes — hotspots that switch, hotspots that select what is already mapped, and ordinary addresses."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.engine import carts, cpu
from arcade_lab.engine.cart_bus import cart_peek, cart_poke, cart_reset
from arcade_lab.engine.layout import C_BANK, C_BASE, C_PAGE, C_SCHEME, C_SLICE, C_XRAM_SIZE, FB_SIZE
from arcade_lab.engine.machine import new_state

ROM_SIZE = {carts.S_F8: 8192, carts.S_F8SC: 8192, carts.S_F6: 16384, carts.S_F6SC: 16384,
            carts.S_F4: 32768, carts.S_E0: 8192}
HOT = {carts.S_F8: (0xFF8, 0xFF9), carts.S_F8SC: (0xFF8, 0xFF9), carts.S_F6: (0xFF6, 0xFF9),
       carts.S_F6SC: (0xFF6, 0xFF9), carts.S_F4: (0xFF4, 0xFFB), carts.S_E0: (0xFE0, 0xFF7)}


def _expected_map(scheme: int, bank: int, slices: list[int]) -> list[int]:
    """Page p's ROM offset, or -1 where reads take the device path (top page, Superchip RAM ports)."""
    out = []
    for p in range(64):
        off = p * 64
        if off >= 0xFC0 or (scheme in (carts.S_F8SC, carts.S_F6SC) and off < 0x100):
            out.append(-1)
        elif scheme == carts.S_E0:
            out.append(slices[off >> 10] * 1024 + (off & 0x3FF))
        else:
            out.append(bank * 4096 + off)
    return out


@pytest.mark.parametrize("scheme", sorted(ROM_SIZE), ids=carts.SCHEME_NAMES.get)
def test_page_map_follows_every_switch(scheme):
    rng = np.random.default_rng(scheme)
    rom = rng.integers(0, 256, ROM_SIZE[scheme], dtype=np.uint8)
    s = new_state()
    s[C_SCHEME] = scheme
    s[C_XRAM_SIZE] = 128 if scheme in (carts.S_F8SC, carts.S_F6SC) else 0
    s[C_BANK] = carts.RESET_BANK.get(scheme, 0)
    cart_reset(s)
    bank, slices = int(s[C_BANK]), [4, 5, 6, 7]
    fb = np.zeros((3, FB_SIZE), np.uint8)
    lo, hi = HOT[scheme]
    for _ in range(400):
        a = int(rng.integers(lo, hi + 1)) if rng.random() < 0.7 else int(rng.integers(0x100, 0x1000))
        if rng.random() < 0.5:
            value = cart_peek(s, rom, 0x1000 | a)
            # an ordinary read returns the mapped byte (after any switch the access makes)
            if 0x100 <= a < 0xFC0:
                want = rom[slices[a >> 10] * 1024 + (a & 0x3FF)] if scheme == carts.S_E0 else rom[bank * 4096 + a]
                assert value == want
        else:
            cart_poke(s, 0x1000 | a, 0)
        if lo <= a <= hi:  # the reference's switch
            if scheme == carts.S_E0:
                slices[(a - 0xFE0) >> 3] = a & 7
            else:
                bank = a - lo
        assert int(s[C_BANK]) == bank or scheme == carts.S_E0
        assert [int(v) for v in s[C_SLICE:C_SLICE + 3]] == slices[:3] or scheme != carts.S_E0
        assert [int(v) for v in s[C_PAGE:C_PAGE + 64]] == _expected_map(scheme, bank, slices)
        assert int(s[C_BASE + 3]) == (7 * 1024 if scheme == carts.S_E0 else bank * 4096 + 3072)
        # the CPU loop's opcode fetch (the 4K-bank window, or E0's page map) reads the mapped byte
        pc = 0xF000 | int(rng.integers(0x100, 0xFC0))
        op, _ = cpu._opcode(s, rom, fb, cpu._flat_mask(s, rom), pc, False, 0, 0)
        if scheme == carts.S_E0:
            assert op == rom[slices[(pc >> 10) & 3] * 1024 + (pc & 0x3FF)]
        else:
            assert op == rom[bank * 4096 + (pc & 0xFFF)]
