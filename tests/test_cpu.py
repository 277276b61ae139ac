"""6502 core: Klaus Dormann's functional test, and the CPU quirks of ALE's "Low" 6502 (timing, decimal mode,
unofficial opcodes, JAMs, the generated interpreter loop)."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.engine import bus, cpu, layout as L, machine, opcodes
from arcade_lab.engine.tia_regs import GRP0, HMOVE, PF0, PF1, PF2, WSYNC


def _flat_cpu(program: dict[int, list[int]], pc: int = 0x0400):
    mem = np.zeros(65536, dtype=np.uint8)
    for addr, data in program.items():
        mem[addr:addr + len(data)] = data
    s = machine.new_state()
    s[L.C_SCHEME] = bus.S_FLAT64K
    s[L.PC] = pc
    s[L.SP] = 0xFF
    s[L.FB] = 1
    s[L.FNZ] = 1
    return s, mem, machine.new_framebuffers()


def test_dormann_functional_test_reaches_success_trap(test_data):
    """Success is the self-jump at $3469. ALE's decimal mode derives N/Z from the BCD result and SBC's
    carry from a binary compare; the functional test only checks decimal results and carry on valid BCD
    operands, so ALE-faithful decimal behaviour passes it unchanged."""
    image = (test_data / "6502" / "6502_functional_test.bin").read_bytes()
    s, mem, fb = _flat_cpu({0: list(image)})
    total = 0
    while total < 60_000_000:
        total += cpu.execute(s, mem, fb, 500_000, True)
        pc = s[L.PC]
        cpu.execute(s, mem, fb, 1, True)
        if s[L.PC] == pc:
            break
    assert s[L.EXEC] == 0
    assert s[L.PC] == 0x3469, f"trapped at ${s[L.PC]:04X} in test case ${mem[0x200]:02X}"


def test_lax_zero_page_costs_four_cycles():
    s, mem, fb = _flat_cpu({0x400: [0xA7, 0x10]})
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.CYC] == 4


def test_page_cross_penalty_on_reads_only():
    # LDA $10FF,X with X=1 crosses a page: 4+1; STA $10FF,X: 5, no penalty.
    s, mem, fb = _flat_cpu({0x400: [0xA2, 0x01, 0xBD, 0xFF, 0x10, 0x9D, 0xFF, 0x10]})
    cpu.execute(s, mem, fb, 1, True)
    c0 = s[L.CYC]
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.CYC] - c0 == 5
    c1 = s[L.CYC]
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.CYC] - c1 == 5


def test_branch_taken_costs_one_more_and_two_across_pages():
    s, mem, fb = _flat_cpu({0x4F0: [0x18, 0x90, 0x20]}, pc=0x4F0)  # CLC; BCC +$20 -> $0513
    cpu.execute(s, mem, fb, 2, True)
    assert s[L.PC] == 0x513 and s[L.CYC] == 2 + 2 + 2


def test_indirect_pointer_at_ff_reads_high_byte_from_0100_without_wrap():
    # LDA ($FF),Y: low byte from $FF, high byte from $0100 (not $00).
    s, mem, fb = _flat_cpu({0x400: [0xB1, 0xFF], 0xFF: [0x34], 0x100: [0x12], 0x00: [0x99], 0x1234: [0x5A]})
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.A] == 0x5A


def test_jmp_indirect_page_wrap_bug():
    s, mem, fb = _flat_cpu({0x400: [0x6C, 0xFF, 0x02], 0x2FF: [0x34], 0x200: [0x12], 0x300: [0x56]})
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.PC] == 0x1234


def test_decimal_mode_uses_stella_tables_for_invalid_bcd():
    # SED; CLC; LDA #$0F; ADC #$01 -> table BCD: 15 + 1 = 16 -> $16 (a real 6502 gives $16 too, but
    # $1A + $1A shows the difference: 20+20=40 -> $40, where NMOS gives $3A+$06 adjust = $40? use $FF).
    s, mem, fb = _flat_cpu({0x400: [0xF8, 0x18, 0xA9, 0xFF, 0x69, 0x01]})
    cpu.execute(s, mem, fb, 4, True)
    # $FF is "165" in Stella's table: 165 + 1 = 166 > 99 -> carry, result BCD(166 % 100) = $66.
    assert s[L.A] == 0x66 and s[L.FC] == 1
    assert s[L.FN] == 0 and s[L.FNZ] == 1  # N/Z from the BCD result


def test_sbc_decimal_negative_difference_indexes_below_the_table():
    # SED; SEC; LDA #$00; SBC #$FF: 0 - 165 = -165 + 100 = -65 -> value of the BCD-in table at 191.
    s, mem, fb = _flat_cpu({0x400: [0xF8, 0x38, 0xA9, 0x00, 0xE9, 0xFF]})
    cpu.execute(s, mem, fb, 4, True)
    assert s[L.A] == cpu.BCD[256 - 65] and s[L.FC] == 0


def test_jam_halts_for_good():
    s, mem, fb = _flat_cpu({0x400: [0xEA, 0x02, 0xEA]})
    n = cpu.execute(s, mem, fb, 10, True)
    assert n == 2 and s[L.EXEC] & L.EX_FATAL and s[L.JAMMED] == 0x02 + 1
    assert cpu.execute(s, mem, fb, 10, True) == 0


def test_rts_dummy_reads_return_address_minus_one():
    # JSR $0500; at $0500 RTS. Trace through a bus that records reads: use the data bus latch.
    s, mem, fb = _flat_cpu({0x400: [0x20, 0x00, 0x05, 0xEA], 0x500: [0x60]})
    cpu.execute(s, mem, fb, 2, True)
    assert s[L.PC] == 0x403
    assert s[L.DBUS] == mem[0x402]  # the last bus access was the dummy peek of $0402


def test_plp_keeps_break_flag_set():
    s, mem, fb = _flat_cpu({0x400: [0xA9, 0x00, 0x48, 0x28, 0x08, 0x68]})
    cpu.execute(s, mem, fb, 5, True)
    assert s[L.A] & 0x30 == 0x30


def test_bit_sets_n_and_z_independently_and_php_plp_keep_them():
    # N and Z share one word in the loop: BIT can set both (operand $C0, A = 0), PHP must push both,
    # LDA #$01 clears them, PLP brings both back
    s, mem, fb = _flat_cpu({0x400: [0xA9, 0x00, 0x24, 0x10, 0x08, 0xA9, 0x01, 0x28], 0x10: [0xC0]})
    cpu.execute(s, mem, fb, 3, True)
    assert (s[L.FN], s[L.FNZ], s[L.FV]) == (1, 0, 1)
    assert mem[0x1FF] == 0x20 | 0x80 | 0x40 | 0x10 | 0x02
    cpu.execute(s, mem, fb, 1, True)
    assert (s[L.FN], s[L.FNZ]) == (0, 1)
    cpu.execute(s, mem, fb, 1, True)
    assert (s[L.FN], s[L.FNZ], s[L.FV]) == (1, 0, 1)


def test_last_access_flag_follows_the_instructions_last_bus_cycle():
    # STA ends on a write (the flag WSYNC reads), LDA on a read, JSR on its final address fetch
    s, mem, fb = _flat_cpu({0x400: [0x85, 0x90, 0xA5, 0x90, 0x20, 0x00, 0x05]})
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.LAST_READ] == 0
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.LAST_READ] == 1
    s[L.LAST_READ] = 0
    cpu.execute(s, mem, fb, 1, True)
    assert s[L.LAST_READ] == 1 and s[L.PC] == 0x500


@pytest.mark.parametrize("op", [0x0B, 0x4B, 0x6B, 0x8B, 0xAB, 0xCB, 0xBB, 0x9B, 0x9C, 0x9E, 0x9F, 0x93])
def test_unstable_opcodes_follow_ales_formulas(op):
    a, x, y, imm = 0xD5, 0x6B, 0x0F, 0x3C
    prog = [0xA9, a, 0xA2, x, 0xA0, y, op, imm, 0x12]
    s, mem, fb = _flat_cpu({0x400: prog, 0x123C: [0x77], 0x124B: [0x77], 0x3C: [0x00, 0x12]})
    cpu.execute(s, mem, fb, 4, True)
    name = opcodes.OPS[opcodes.OPERATION[op]]
    if name == "ANE":
        assert s[L.A] == (a | 0xEE) & x & imm
    elif name == "LXA":
        assert s[L.A] == s[L.X] == (a | 0xEE) & imm
    elif name == "SBX":
        assert s[L.X] == ((a & x) - imm) & 0xFF and s[L.FC] == int((a & x) >= imm)
    elif name == "ANC":
        assert s[L.A] == a & imm and s[L.FC] == (a & imm) >> 7
    elif name == "ASR":
        assert s[L.A] == (a & imm) >> 1 and s[L.FC] == (a & imm) & 1
    elif name == "ARR":
        t = ((a & imm) >> 1) | 0x00
        assert s[L.A] == t
    elif name == "LAS":
        assert s[L.A] == s[L.X] == s[L.SP] == 0xFF & mem[0x123C + y]
    elif name in ("SHA", "SHS", "SHX", "SHY"):
        if op == 0x93:
            addr = 0x1200 + y
        elif op == 0x9C:
            addr = 0x123C + x
        else:
            addr = 0x123C + y
        hi1 = ((addr >> 8) & 0xFF) + 1
        expect = {"SHA": a & x & hi1, "SHS": a & x & hi1, "SHX": x & hi1, "SHY": y & hi1}[name]
        assert mem[addr & 0xFFFF] == expect & 0xFF
        if name == "SHS":
            assert s[L.SP] == a & x


def test_generated_interpreter_loop_is_what_the_generator_writes():
    """cpu_exec.py is generated from the opcode table by cpu_gen.py; an edit to either alone would drift."""
    from arcade_lab.engine import cpu_gen

    assert cpu_gen.TARGET.read_text() == cpu_gen.source(), "stale: run python -m arcade_lab.engine.cpu_gen"


def test_write_path_frame_constants_time_writes_as_the_device_path_does():
    """The CPU's write path times TIA writes from constants ``execute`` sets once per call
    (``tia.frame_constants``): the cycle within the line (HMOVE's motion row, a playfield write's delay),
    WSYNC's release and the line limit must come out as the device path computes them from the frame
    start — for any frame start, negative or not a multiple of 3, and any cycle."""
    from arcade_lab.engine import tia

    rng = np.random.default_rng(0)
    s = machine.new_state()
    for trial in range(3000):
        fs = int(rng.integers(-1000, 1000))
        s[L.T_FRAMESTART] = fs
        s[L.T_MAXLINES] = (290, 342)[trial % 2]
        tia.frame_constants(s)
        cyc = int(rng.integers(-400, 30_000))
        clock = 3 * cyc
        assert tia.write_x(s, cyc) == ((clock - fs) % 228) // 3, (fs, cyc)
        assert tia.cpu_wsync_cycle(s, cyc) == tia.wsync_cycle(s, cyc), (fs, cyc)
        assert (clock < s[L.X_LIMIT]) == tia.within_line_limit(s, clock), (fs, cyc)
        for r in (WSYNC, PF0, PF1, PF2, GRP0, HMOVE):
            assert tia.cpu_write_clock(s, cyc, clock, r) == tia.write_clock(s, clock, r), (fs, cyc, r)


def test_execute_sets_the_write_paths_frame_constants():
    """Every ``execute`` call sets them afresh: a state restored between calls cannot leave them stale."""
    s, mem, fb = _flat_cpu({0x0400: [0xEA, 0xEA]})
    for fs in (-150, -2, 7):
        s[L.T_FRAMESTART] = fs
        s[L.X_CYC0] = s[L.X_CYC0_TRUNC] = s[L.X_LIMIT] = 12345
        s[L.PC] = 0x0400
        cpu.execute(s, mem, fb, 1, fs > 0)
        assert s[L.X_CYC0] == -((-fs) // 3)
        assert s[L.X_CYC0_TRUNC] == int(fs / 3)
        assert s[L.X_LIMIT] == fs + (s[L.T_MAXLINES] + 1) * 228
