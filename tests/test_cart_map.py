"""The cartridge's page map (which 64-byte pages of $1000-$1FFF the CPU loop reads straight from ROM, and
where) and the loop's instruction fetch (opcode and operand bytes) against a slow reference, along random
sequences of cartridge reads and writes — hotspots that switch, hotspots that select what is already mapped,
and ordinary addresses — and on unbanked and FE cartridges, at the edges of every directly read stretch."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.engine import carts, cpu
from arcade_lab.engine._jit import jit, load_u32
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
        # the whole instruction, inside the window and across its top into the (unswitched) top page
        for pc in (pc, 0xFFBD, 0xFFBE, 0xFFBF, 0xF000 | (int(rng.integers(0x4, 0x3F)) * 64 - int(rng.integers(1, 4)))):
            if scheme in (carts.S_F8SC, carts.S_F6SC) and pc & 0xFFF < 0x100:
                continue

            def where(a, scheme=scheme, bank=bank, slices=slices):
                a &= 0xFFF
                if scheme == carts.S_E0:
                    return (slices[a >> 10] if a < 0xC00 else 7) * 1024 + (a & 0x3FF)
                return bank * 4096 + a
            _check_instruction(s, rom, fb, pc, where)


def _check_instruction(s, rom, fb, pc, where):
    """``cpu._instruction`` at ``pc`` returns the opcode and the operand bytes the instruction has, as
    the cartridge maps them (``rom[where(address)]``), for instructions of three, two and one bytes and
    JSR (which, as BRK, may leave its bytes to its case)."""
    at, kept = where(pc), rom[where(pc)]
    for planted in (0xAD, 0xA5, 0xEA, 0x20):
        rom[at] = planted
        op, w, cyc = cpu._instruction(s, rom, fb, cpu._flat_mask(s, rom), pc, False, 100, 0)
        assert (op, cyc) == (planted, 100)
        if w == cpu._SELF_FETCHED:
            assert op == 0x20
            continue
        n = int(cpu.OPERAND_BYTES[op]) if op != 0x20 else 2
        want = sum(int(rom[where(pc + 1 + k)]) << (8 * k) for k in range(n))
        assert w & ((1 << (8 * n)) - 1) == want, hex(pc)
    rom[at] = kept


@pytest.mark.parametrize("scheme", [carts.S_2K, carts.S_4K, carts.S_FE], ids=carts.SCHEME_NAMES.get)
def test_instruction_fetch_on_unbanked_and_fe_cartridges(scheme):
    rng = np.random.default_rng(100 + scheme)
    size = {carts.S_2K: 2048, carts.S_4K: 4096, carts.S_FE: 8192}[scheme]
    banks = rng.integers(0, 256, size, dtype=np.uint8)
    rom = carts.fe_image(banks) if scheme == carts.S_FE else banks
    s = new_state()
    s[C_SCHEME] = scheme
    cart_reset(s)
    fb = np.zeros((3, FB_SIZE), np.uint8)

    def where(a):
        return a & (0x3FFF if scheme == carts.S_FE else size - 1)
    # every edge: the last bytes of a 2K image (which wraps to its start), of the 4K, of FE's two banks
    edges = [0x17FC, 0x17FD, 0x17FE, 0x17FF, 0x1FFB, 0x1FFC, 0x1FFD, 0xDFFC, 0xDFFD, 0xFFFB, 0xFFFC, 0xFFFD]
    for pc in edges + [int(v) for v in rng.integers(0, 0x10000, 300) if v & 0x1000 and v & 0xFFF <= 0xFFD]:
        _check_instruction(s, rom, fb, pc, where)


@jit
def _load_u32_at(data, i):
    return load_u32(data, i)


def test_load_u32_reads_four_bytes_little_endian_at_any_offset():
    data = np.random.default_rng(7).integers(0, 256, 64, dtype=np.uint8)
    for i in range(61):
        assert _load_u32_at(data, i) == int.from_bytes(bytes(data[i:i + 4]), "little")
