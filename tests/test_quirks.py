"""The quirks of ALE's Stella-2.x core (CPU, TIA, RIOT timing), one test each, on small test cartridges.

Each cartridge runs on our engine and on ale-py side by side (ale-py accepts an unknown ROM when its
file is named like a supported game — we use Seaquest's rules, which need no mode selection); every
frame's RAM and screen must be equal, and the quirk's own effect is asserted where it is observable.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import requires_ale
from tests.rombuilder import Asm

pytestmark = requires_ale

from arcade_lab.engine.tia_regs import (
    AUDV0, COLUBK, COLUP0, COLUP1, COLUPF, CTRLPF, CXBLPF, CXCLR, CXP0FB, CXP1FB, CXPPMM, ENABL, ENAM0, ENAM1,
    GRP0, GRP1, HMCLR, HMM0, HMOVE, HMP0, INPT4, NUSIZ0, NUSIZ1, PF0, PF1, PF2, REFP0, RESBL, RESM0, RESM1,
    RESP0, RESP1, VBLANK, VDELBL, VDELP0, VDELP1, VSYNC, WSYNC,
)
TIM1T, TIM8T, TIM64T, T1024T, INTIM, TIMINT, SWCHB = 0x294, 0x295, 0x296, 0x297, 0x284, 0x285, 0x282


def prologue(a: Asm) -> Asm:
    a.op("sei").op("cld").op("ldx#", 0xFF).op("txs")
    a.op("ldx#", 0x7F).op("lda#", 0).label("clr").op("sta,x", 0x80).op("dex").op("bpl", "clr")
    return a


def load_both(tmp_path, rom: bytes, frameskip: int = 1, ours: int = 1):
    """The cartridge in ale-py and in ``ours`` of our environments, same frame skip, no sticky actions.
    ale-py wraps only ROMs named like a supported game; Seaquest's rules need no mode selection (they end
    the game when $A3 is not 0, so programs keep that byte clear)."""
    import ale_py

    from arcade_lab.engine.env import Env

    path = tmp_path / "seaquest.bin"
    path.write_bytes(rom)
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", 0)
    ale.setInt("frame_skip", frameskip)
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(str(path))
    return ale, [Env(str(path), frameskip=frameskip, repeat_action_probability=0.0, seed=0) for _ in range(ours)]


def spin_past_the_limit(a: Asm) -> Asm:
    """~30 000 instructions without touching the TIA: the frame call is cut at the 25 000 limit."""
    a.op("ldy#", 60).label("outer").op("ldx#", 0).label("inner").op("dex").op("bne", "inner")
    return a.op("dey").op("bne", "outer")


def frames_drawn_and_undrawn(tmp_path, rom: bytes, frames: int):
    """Step a cartridge with NOOP in ale-py, in our engine drawn (screen and RAM equal to ale-py's) and in
    a second one undrawn (whole snapshot equal to the drawn one's), checking before every frame; yields
    our drawn environment after each check."""
    from arcade_lab.engine import ale_core
    from arcade_lab.engine.env import _DELTA_FULL
    from arcade_lab.engine.layout import N_SNAPSHOT

    ale, (drawn, undrawn) = load_both(tmp_path, rom, ours=2)
    c, d = undrawn.console, drawn.console
    noop = ale.getLegalActionSet()[0]
    for k in range(frames):
        assert np.array_equal(ale.getScreen(), drawn.screen()), f"screen differs after frame {k}"
        assert np.array_equal(ale.getRAM(), drawn.ram()), f"RAM differs after frame {k} (drawn)"
        assert np.array_equal(d.s[:N_SNAPSHOT], c.s[:N_SNAPSHOT]), f"state differs after frame {k}"
        yield drawn
        ale.act(noop)
        drawn.act(0)
        ale_core.act(c.s, c.rom, c.fb, undrawn.rng, 0, ale_core.PLAYER_B_NOOP, _DELTA_FULL, 0, 0)


def tally_drawn_and_undrawn(tmp_path, rom: bytes, frames: int, registers: int):
    """``frames_drawn_and_undrawn`` to the end, for cartridges that copy ``registers`` collision registers
    to RAM from $81 on as a frame starts: (our drawn env, how many frame calls were cut at the instruction
    limit, the distinct sets of latch bits seen)."""
    from arcade_lab.engine.layout import T_PARTIAL

    partial, latched = 0, set()
    for drawn in frames_drawn_and_undrawn(tmp_path, rom, frames):
        partial += int(drawn.console.s[T_PARTIAL])
        latched.add(tuple(int(v) >> 6 for v in drawn.ram()[1:1 + registers]))
    return drawn, partial, latched


def run_both(tmp_path, rom: bytes, frames: int = 30):
    """Step both engines ``frames`` times with NOOP; assert equal RAM and screen; return our env."""
    ale, (env,) = load_both(tmp_path, rom)
    noop = ale.getLegalActionSet()[0]
    for k in range(frames + 1):
        assert np.array_equal(ale.getRAM(), env.ram()), f"RAM differs at frame {k}"
        assert ale.getScreen().shape == env.screen().shape
        assert np.array_equal(ale.getScreen(), env.screen()), f"screen differs at frame {k}"
        if k < frames:
            ale.act(noop)
            env.act(0)
    return env


def test_undriven_tia_bits_carry_the_last_bus_byte(tmp_path):
    a = prologue(Asm()).label("frame").frame_start()
    a.op("ldazp", 0x0C).op("stazp", 0x90)          # LDA $0C: operand byte $0C is on the bus
    a.op("ldaabs", 0x000C).op("stazp", 0x91)        # LDA $000C: the last byte fetched was $00
    a.lines(200, "l").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    assert env.ram()[0x10] == 0x8C and env.ram()[0x11] == 0x80


def test_riot_timer_reads_t_minus_one_right_after_write(tmp_path):
    a = prologue(Asm()).label("frame").frame_start()
    a.op("lda#", 10).op("staabs", TIM64T).op("ldaabs", INTIM).op("stazp", 0x90)
    a.lines(200, "l").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    assert env.ram()[0x10] == 9


def test_riot_timer_post_expiry_and_timint(tmp_path):
    a = prologue(Asm()).label("frame").frame_start()
    a.op("lda#", 2).op("staabs", TIM1T)
    for _ in range(6):
        a.op("nop")
    a.op("ldaabs", TIMINT).op("stazp", 0x90)        # expired, not yet read: $80
    a.op("ldaabs", INTIM).op("stazp", 0x91)         # first read past expiry latches the slow count
    a.op("ldaabs", TIMINT).op("stazp", 0x92)        # after that read: 0
    for _ in range(10):
        a.op("nop")
    a.op("ldaabs", INTIM).op("stazp", 0x93)
    a.lines(200, "l").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    ram = env.ram()
    assert ram[0x10] == 0x80 and ram[0x12] == 0x00
    assert ram[0x11] >= 0x80 and ram[0x13] >= 0x80  # negative values


def test_timer_wait_loops_exit_on_the_exact_cycle(tmp_path):
    # The engine fast-forwards "L: load INTIM/TIMINT; branch L" loops (cpu._timer_wait). Every form it
    # accepts — LDA/LDX/LDY/BIT, BNE/BPL/BMI, each timer rate, a branch back across a page, a TIM1T wait
    # that runs past expiry (where reads have a side effect) — must leave the loop on the same cycle with
    # the same registers and flags as ALE: the registers, flags and a timer read go to RAM, and a colour
    # write right after each loop puts the exit cycle on the screen.
    loops = [("ldaabs", INTIM, "bne", TIM8T, 20), ("ldxabs", INTIM, "bne", TIM64T, 3),
             ("ldyabs", INTIM, "bne", TIM1T, 150), ("bitabs", TIMINT, "bpl", TIM8T, 30),
             ("ldaabs", INTIM, "bmi", TIM8T, 200), ("ldaabs", INTIM, "bpl", TIM8T, 10),
             ("bitabs", INTIM, "bne", TIM64T, 2)]
    a = prologue(Asm()).op("jmp", "frame")
    while a.pc < 0xF0FD:  # the first loop's branch (at $F100) jumps back across a page
        a.op("nop")
    a.label("cross").op("ldaabs", INTIM).op("bne", "cross").op("jmp", "after_cross")
    a.label("frame").frame_start().lines(40, "top")
    a.op("lda#", 25).op("staabs", TIM8T).op("jmp", "cross").label("after_cross")
    a.op("lda#", 0x1E).op("stazp", COLUBK)
    ram = 0x90
    for n, (load, reg, branch, rate, count) in enumerate(loops):
        a.op("lda#", 0x55).op("ldx#", 0x11).op("ldy#", 0x22)  # BIT's AND sees A
        a.op("lda#", count).op("staabs", rate)
        a.op("lda#", 0x55 if load == "bitabs" else count)
        a.label(f"wait{n}").op(load, reg).op(branch, f"wait{n}")
        a.op("php").op("stazp", ram).op("stxzp", ram + 1).op("styzp", ram + 2).op("pla").op("stazp", ram + 3)
        a.op("ldaabs", INTIM).op("stazp", ram + 4)
        a.op("lda#", 0x20 + 0x10 * n).op("stazp", COLUBK)
        ram += 5
    a.lines(150, "bottom").op("jmp", "frame")
    env = run_both(tmp_path, a.rom(), frames=8)
    r = env.ram()[0x10:0x10 + 5 * len(loops)].reshape(-1, 5)  # per loop: A, X, Y, P, INTIM after it
    assert r[0, 0] == 0 and r[0, 3] & 0x02                     # LDA INTIM; BNE: A = 0, Z set
    assert r[1, 1] == 0 and r[1, 0] == 3                       # LDX INTIM; BNE: X = 0, A kept
    assert r[2, 2] == 0                                        # LDY INTIM; BNE (ran past expiry)
    assert r[3, 3] & 0x80 and r[3, 0] == 0x55                  # BIT TIMINT; BPL: left on N, A kept
    assert r[4, 0] == 0x7F                                     # LDA INTIM; BMI: first positive count
    assert r[5, 0] & 0x80                                      # LDA INTIM; BPL: first count past expiry
    assert r[6, 3] & 0x02 and r[6, 0] == 0x55                  # BIT INTIM; BNE: left when A & count = 0


def test_timer_wait_loop_cut_by_the_instruction_limit(tmp_path):
    # A T1024T wait that outlasts ALE's 25 000 instructions per frame: frames end inside the loop (on an
    # exact instruction), and the wait goes on in the next frame.
    a = prologue(Asm()).label("frame").frame_start().op("inczp", 0x90)
    a.op("lda#", 0xFF).op("staabs", T1024T).label("wait").op("ldxabs", INTIM).op("bne", "wait")
    a.op("inczp", 0x91).op("lda#", 0x30).op("stazp", COLUBK).lines(100, "l").op("jmp", "frame")
    env = run_both(tmp_path, a.rom(), frames=12)
    assert env.ram()[0x11] >= 2  # the long wait ended at least twice


def test_counting_timer_wait_loops_exit_on_the_exact_cycle(tmp_path):
    # "L: INC zp; load INTIM/TIMINT; branch L" (Dark Chambers counts while it waits) is fast-forwarded
    # too: the loop must end on the same cycle, with the same registers, flags and count as ALE's — also
    # when a frame's 25 000 instructions end inside it, and when its branch goes back across a page.
    # (a 12-cycle iteration can step over a count of 0 that lasts fewer cycles: waits for 0 use TIM64T)
    loops = [("ldaabs", INTIM, "bne", TIM64T, 20), ("ldxabs", INTIM, "bne", TIM64T, 3),
             ("bitabs", TIMINT, "bpl", TIM8T, 30), ("ldaabs", INTIM, "bmi", TIM8T, 200),
             ("ldyabs", INTIM, "bpl", TIM1T, 150)]
    a = prologue(Asm()).op("jmp", "frame")
    while a.pc < 0xF0FB:  # the first loop's branch (at $F100) jumps back across a page
        a.op("nop")
    a.label("cross").op("inczp", 0xC0).op("ldaabs", INTIM).op("bne", "cross").op("jmp", "after_cross")
    a.label("frame").frame_start().lines(40, "top")
    a.op("lda#", 3).op("staabs", TIM64T).op("jmp", "cross").label("after_cross")
    a.op("lda#", 0x1E).op("stazp", COLUBK)
    ram = 0x90
    for n, (load, reg, branch, rate, count) in enumerate(loops):
        a.op("lda#", 0x55).op("ldx#", 0x11).op("ldy#", 0x22)
        a.op("lda#", count).op("staabs", rate)
        a.op("lda#", 0x55 if load == "bitabs" else count)
        a.label(f"wait{n}").op("inczp", 0xC1 + n).op(load, reg).op(branch, f"wait{n}")
        a.op("php").op("stazp", ram).op("stxzp", ram + 1).op("styzp", ram + 2).op("pla").op("stazp", ram + 3)
        a.op("ldaabs", INTIM).op("stazp", ram + 4)
        a.op("lda#", 0x20 + 0x10 * n).op("stazp", COLUBK)
        ram += 5
    a.lines(150, "bottom")
    a.op("lda#", 0xFF).op("staabs", T1024T).label("long").op("inczp", 0xC8).op("ldxabs", INTIM).op("bne", "long")
    a.op("inczp", 0xCA).op("lda#", 0x30).op("stazp", COLUBK).lines(100, "tail").op("jmp", "frame")
    env = run_both(tmp_path, a.rom(), frames=14)
    r = env.ram()[0x10:0x10 + 5 * len(loops)].reshape(-1, 5)  # per loop: A, X, Y, P, INTIM after it
    assert r[0, 0] == 0 and r[0, 3] & 0x02 and not r[3, 0] & 0x80  # BNE: A = 0, Z set; BMI: left on N clear
    assert all(env.ram()[0x40:0x46])  # every short loop counted
    assert env.ram()[0x4A] >= 2  # the long wait, cut by the instruction limit, ended at least twice


def test_timer_wait_below_loops_exit_on_the_exact_cycle(tmp_path):
    # "L: LDA INTIM; BEQ out; CMP #n; BCC L" (Galaxian waits this way: until the timer reads 0 or at least
    # n) is fast-forwarded too (cpu._timer_wait_below): it must leave on the same cycle, with the same
    # registers and flags as ALE's — when it sees 0, when an 11-cycle iteration steps over a 0 that lasts
    # fewer cycles and leaves on the first count past expiry, when it starts at n or above, when its BCC
    # goes back across a page, and when a frame's 25 000 instructions end inside it.
    loops = [(TIM64T, 3, 0x25), (TIM8T, 40, 0x80), (TIM1T, 150, 0xFF), (TIM8T, 20, 0x10), (TIM64T, 2, 0x03)]
    a = prologue(Asm()).op("jmp", "frame")
    while a.pc < 0xF0F8:  # the first loop's BCC (at $F100) goes back across a page
        a.op("nop")
    a.label("cross").op("ldaabs", INTIM).op("beq", "after_cross").op("cmp#", 0x40).op("bcc", "cross")
    a.label("after_cross").op("jmp", "back")
    a.label("frame").frame_start().lines(40, "top")
    a.op("lda#", 3).op("staabs", TIM64T).op("jmp", "cross").label("back")
    a.op("lda#", 0x1E).op("stazp", COLUBK)
    ram = 0x90
    for n, (rate, count, below) in enumerate(loops):
        a.op("lda#", 0x55).op("ldx#", 0x11).op("ldy#", 0x22)
        a.op("lda#", count).op("staabs", rate)
        a.label(f"wait{n}").op("ldaabs", INTIM).op("beq", f"out{n}").op("cmp#", below).op("bcc", f"wait{n}")
        a.label(f"out{n}").op("php").op("stazp", ram).op("stxzp", ram + 1).op("styzp", ram + 2).op("pla")
        a.op("stazp", ram + 3).op("ldaabs", INTIM).op("stazp", ram + 4)
        a.op("lda#", 0x20 + 0x10 * n).op("stazp", COLUBK)
        ram += 5
    a.lines(150, "bottom")
    a.op("lda#", 0xFF).op("staabs", T1024T).label("long").op("ldaabs", INTIM).op("beq", "long_out")
    a.op("cmp#", 0xF0).op("bcc", "long").label("long_out")
    a.op("inczp", 0xCA).op("lda#", 0x30).op("stazp", COLUBK).lines(100, "tail").op("jmp", "frame")
    env = run_both(tmp_path, a.rom(), frames=14)
    r = env.ram()[0x10:0x10 + 5 * len(loops)].reshape(-1, 5)  # per loop: A, X, Y, P, INTIM after it
    assert r[0, 0] == 0 and r[0, 3] & 0x02         # left on BEQ: A = 0, Z set
    assert r[1, 0] >= 0x80 and r[1, 3] & 0x01     # stepped over 0: the first count past expiry, C set
    assert r[3, 0] >= 0x10 and r[3, 1] == 0x11    # at n or above from the start: one pass, X kept
    assert env.ram()[0x4A] >= 2  # the long wait, cut by the instruction limit, ended at least twice


def test_swchb_idle_value_with_difficulty_b(tmp_path):
    a = prologue(Asm()).label("frame").frame_start()
    a.op("ldaabs", SWCHB).op("stazp", 0x90).lines(200, "l").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    assert env.ram()[0x10] == 0x3F  # bits 2,4,5 read 1, colour set, both difficulties B


def test_frame_ends_only_at_vsync_off_a_line_after_vsync_on(tmp_path):
    # VSYNC on and off within one line does not end the frame; the proper VSYNC later does.
    a = prologue(Asm()).label("frame").frame_start()
    a.op("inczp", 0x90)
    a.op("lda#", 2).op("stazp", VSYNC).op("lda#", 0).op("stazp", VSYNC)  # too short: no boundary
    a.lines(150, "l").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    assert env.ram()[0x10] > 0


def test_line_limit_ends_frames_without_vsync(tmp_path):
    a = prologue(Asm()).label("loop").op("inczp", 0x90).lines(100, "l").op("jmp", "loop")
    run_both(tmp_path, a.rom())


def test_partial_frame_is_greyed_after_25000_instructions(tmp_path):
    a = prologue(Asm()).op("lda#", 0x4E).op("stazp", COLUBK).lines(150, "w")
    a.label("spin").op("inczp", 0x90).op("jmp", "spin")   # never touches the TIA again
    env = run_both(tmp_path, a.rom(), frames=5)
    scr = env.screen()
    assert scr[10, 0] == 0x4E         # drawn before the CPU stopped touching the TIA
    assert scr[-1].max() <= 0x0F      # the rest of the frame is greyed: (v & 0x0F) >> 1


def test_jam_halts_cpu_and_frames_keep_coming(tmp_path):
    a = prologue(Asm()).op("lda#", 0x77).op("stazp", 0x90).op("jam")
    env = run_both(tmp_path, a.rom(), frames=10)
    assert env.ram()[0x10] == 0x77


def test_hmove_blank_on_early_hmove_only(tmp_path):
    a = prologue(Asm()).label("frame").frame_start().op("lda#", 0x1E).op("stazp", COLUBK)
    a.lines(60, "a")
    a.op("stazp", WSYNC).op("stazp", HMOVE)          # HMOVE at cycle 3: the line's first 8 pixels blank
    a.lines(100, "b").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    scr = env.screen()
    blank_rows = [y for y in range(scr.shape[0]) if np.all(scr[y, :8] == 0) and np.all(scr[y, 8:] == 0x1E)]
    assert len(blank_rows) == 1


def test_playfield_write_delays_and_score_mode(tmp_path):
    a = prologue(Asm()).label("frame").frame_start().op("lda#", 0x44).op("stazp", COLUPF)
    a.op("lda#", 0x86).op("stazp", COLUP0).op("lda#", 0x02).op("stazp", CTRLPF)  # score mode
    a.lines(40, "a")
    a.label("body").op("stazp", WSYNC).op("lda#", 0xF0).op("stazp", PF1).op("nop").op("nop")
    a.op("lda#", 0x0F).op("stazp", PF1).op("dex").op("bne", "body")
    a.lines(60, "b").op("jmp", "frame")
    for _ in frames_drawn_and_undrawn(tmp_path, a.rom(), 30):  # undrawn, the CPU stores PF1 itself
        pass


def test_late_resp0_inside_a_displayed_copy(tmp_path):
    a = prologue(Asm()).label("frame").frame_start().op("lda#", 0xFF).op("stazp", GRP0)
    a.op("lda#", 0x0E).op("stazp", COLUP0).op("lda#", 0x03).op("stazp", NUSIZ0)  # 3 copies
    a.lines(30, "a")
    a.label("body").op("stazp", WSYNC)
    for _ in range(12):
        a.op("nop")
    a.op("stazp", RESP0).op("nop").op("stazp", RESP0).op("dex").op("bne", "body")
    a.lines(40, "b").op("jmp", "frame")
    run_both(tmp_path, a.rom())


def test_collisions_latch_only_inside_the_window(tmp_path):
    # P0 over the playfield during VBLANK (not rendered) and again in the window; read CXP0FB each time.
    a = prologue(Asm()).label("frame").frame_start().op("stazp", CXCLR)
    a.op("lda#", 0xFF).op("stazp", GRP0).op("stazp", PF0).op("stazp", PF1).op("stazp", PF2)
    a.lines(10, "a").op("ldazp", CXP0FB).op("stazp", 0x90)      # above YStart: no collision
    a.lines(60, "b").op("ldazp", CXP0FB).op("stazp", 0x91)      # inside the window: collision
    a.lines(100, "c").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    assert env.ram()[0x10] & 0x80 == 0 and env.ram()[0x11] & 0x80


def test_collision_reads_and_clears_in_mid_line_on_undrawn_frames(tmp_path):
    """Undrawn frames latch a line's collisions once, at its end: a read or CXCLR in the middle of the line
    must still see (or drop) exactly the pixels drawn before it, two lines must never pair, and nothing may
    be left pending when a frame ends in the middle of a line (a snapshot is taken there). P0 over P1
    beside a playfield block; each frame stores its CXPPMM readings in slot (frame & 7) of six tables.
    One engine steps with no frame drawn (as a search does; ``Env.act`` draws these short frames in full,
    see ``act_observed``), one through ``Env.act``; both against ale-py."""
    from arcade_lab.engine import ale_core
    from arcade_lab.engine.env import _DELTA_FULL
    from arcade_lab.engine.layout import ACC_OBJS

    def nops(n):
        for _ in range(n):
            a.op("nop")

    def read(table):   # CXPPMM into this frame's slot of a table (7 cycles)
        a.op("ldazp", CXPPMM).op("sta,x", table)

    a = prologue(Asm()).op("lda#", 0xF0).op("stazp", PF0)   # pixels 0-15 and 80-95, away from the sprites
    a.label("frame").op("lda#", 0xFF).op("stazp", GRP0).op("stazp", GRP1)
    a.op("lda#", 2).op("stazp", WSYNC).op("stazp", VSYNC).op("stazp", WSYNC).op("stazp", WSYNC).op("stazp", WSYNC)
    nops(18)
    a.op("lda#", 0).op("stazp", VSYNC)   # the frame ends in mid-line, after the beam passed P0 over P1
    a.op("stazp", GRP0).op("stazp", GRP1).op("stazp", CXCLR).op("inczp", 0x80)
    a.lines(60, "a")   # inside the window (see the test above)
    a.op("ldazp", 0x80).op("and#", 7).op("tax")
    for reg in (RESP0, RESP1):   # at the same cycle of two lines: one position
        a.op("stazp", WSYNC)
        nops(16)
        a.op("stazp", reg)
    a.op("stazp", WSYNC)
    a.op("lda#", 0xFF).op("stazp", GRP0).op("stazp", GRP1)   # still in horizontal blank
    read(0xC0)                                  # 0: the beam has not met them yet
    nops(18)
    read(0xC8)                                  # 1: it has, earlier in this line
    a.op("stazp", CXCLR)
    read(0xD0)                                  # 0: cleared in mid-line
    a.op("stazp", WSYNC)
    nops(24)
    a.op("stazp", CXCLR).op("stazp", WSYNC)     # after the beam met them: this line's meeting goes
    read(0xD8)                                  # 0
    a.op("lda#", 0).op("stazp", GRP1).op("stazp", WSYNC)                           # a line of P0 alone
    a.op("lda#", 0xFF).op("stazp", GRP1).op("lda#", 0).op("stazp", GRP0).op("stazp", WSYNC)   # P1 alone
    read(0xE0)                                  # 0: the two lines never meet
    a.op("lda#", 0xFF).op("stazp", GRP0).op("stazp", CXCLR)   # before the beam meets them
    nops(14)
    read(0xE8)                                  # 1: this line's pixels after the clear
    a.op("stazp", WSYNC)
    a.lines(20, "z").op("jmp", "frame")         # short frames: the next VSYNC is inside the window
    ale, (drawn, undrawn) = load_both(tmp_path, a.rom(), frameskip=4, ours=2)   # the tables stay above $A3
    c = undrawn.console
    noop = ale.getLegalActionSet()[0]
    start = int(undrawn.ram()[0])
    for k in range(12):
        assert np.array_equal(ale.getRAM(), drawn.ram()), f"RAM differs after step {k} (drawn)"
        assert np.array_equal(ale.getRAM(), undrawn.ram()), f"RAM differs after step {k} (undrawn)"
        assert c.s[ACC_OBJS] == 0, "collision coverage left pending between frames"
        ale.act(noop)
        drawn.act(0)
        ale_core.act(c.s, c.rom, c.fb, undrawn.rng, 0, ale_core.PLAYER_B_NOOP, _DELTA_FULL, 0, 0)
    ram = undrawn.ram()
    assert ram[0] == (start + 48) & 0xFF   # the program ran (a game-over state would not be emulated)
    got = [[int(ram[base - 0x80 + f]) >> 7 for f in range(8)] for base in range(0xC0, 0xF0, 8)]
    assert got == [[b] * 8 for b in (0, 1, 0, 0, 0, 1)], got


def test_double_buffering_keeps_rows_from_two_frames_back(tmp_path):
    # Frames alternate long (whole window) and short (the next VSYNC comes mid-window), with a background
    # colour that changes every frame: a short frame's lower rows still show the frame two before it.
    a = prologue(Asm()).label("frame").frame_start().op("inczp", 0x90).op("ldazp", 0x90)
    a.op("stazp", COLUBK).op("lda#", 0).op("stazp", VBLANK)
    a.lines(40, "a").op("ldazp", 0x90).op("and#", 1).op("beq", "long")
    a.lines(60, "s").op("jmp", "frame")
    a.label("long").lines(200, "b").op("jmp", "frame")
    env = run_both(tmp_path, a.rom())
    scr = env.screen()
    top, bottom = scr[60, 0], scr[200, 0]
    assert top != bottom  # this frame's colour on top, an older frame's colour below


def test_pal_frames_get_colour_loss_odd_indices(tmp_path):
    # 311-line frames: detected as PAL (250 rows, colour loss after frames with an odd line count).
    a = prologue(Asm()).label("frame").frame_start().op("lda#", 0x4A).op("stazp", COLUBK)
    a.op("lda#", 0).op("stazp", VBLANK)
    a.lines(250, "a").lines(57, "b").op("jmp", "frame")  # 311 lines per frame: odd
    env = run_both(tmp_path, a.rom())
    assert env.console.pal and env.screen().shape == (250, 160)
    assert np.any(env.screen() & 1)


@pytest.mark.parametrize("when", [0, 10, 20, 21, 40, 54, 55, 60, 70, 74])
def test_hmove_motion_table_by_cycle(tmp_path, when):
    a = prologue(Asm()).label("frame").frame_start().op("lda#", 0xFF).op("stazp", GRP0)
    a.op("lda#", 0x0E).op("stazp", COLUP0).op("lda#", 0x70).op("stazp", HMP0)  # 7 (left 7)
    a.lines(40, "a").op("stazp", WSYNC)
    for _ in range(when // 2):
        a.op("nop")
    a.op("stazp", HMOVE).lines(100, "b").op("jmp", "frame")
    for _ in frames_drawn_and_undrawn(tmp_path, a.rom(), 12):  # undrawn, the CPU stores HMOVE itself
        pass


def test_bar_marks_equal_a_pixel_by_pixel_reference():
    """Missile and ball marks: every position, copy pattern, width and segment (including copies that wrap
    past pixel 159) marks exactly the pixels a direct reading of NUSIZ would, and reports their span."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.tia_tables import BL_BIT, COPY_OFFSETS, M1_BIT

    rng = np.random.default_rng(0)
    fb = np.zeros((3, 8 * 64), np.uint8)
    for trial in range(3000):
        pos, number, width = int(rng.integers(160)), int(rng.integers(8)), int(1 << rng.integers(4))
        x0 = int(rng.integers(160))
        x1 = int(rng.integers(x0, 161))
        bit = int(rng.choice([M1_BIT, BL_BIT]))
        ob = fb[2]
        ob[:] = 0
        ob[:160] = rng.integers(0, 2, 160) * (bit ^ 0x3F) if trial % 2 else 0  # other objects' marks
        want = ob.copy()
        lo_w, hi_w = 160, 0
        for k in range(3):
            off = COPY_OFFSETS[number, k]
            if off < 0:
                continue
            for i in range(width):
                x = (pos + off + i) % 160
                if x0 <= x < x1:
                    want[x] |= bit
                    lo_w, hi_w = min(lo_w, x), max(hi_w, x + 1)
        lo, hi = tia._mark_bar(ob.view(np.uint64), x0, x1, pos, number, width, bit, 160, 0)
        assert np.array_equal(ob, want), (pos, number, width, x0, x1)
        if hi_w > lo_w:
            assert lo <= lo_w and hi >= hi_w


def test_player_marks_equal_a_pixel_by_pixel_reference():
    """Player marks, written a word at a time: every position, NUSIZ mode (double and quad width too), first
    copy skipped or not, graphics and segment marks exactly the pixels the player mask table covers, next to
    other objects' marks it leaves alone, and nothing outside the segment."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.tia_tables import P0_BIT, P1_BIT, PLAYER_MASK

    rng = np.random.default_rng(1)
    fb = np.zeros((3, 8 * 64), np.uint8)
    for trial in range(4000):
        pos, mode, skip, grp = (int(v) for v in (rng.integers(160), rng.integers(8), rng.integers(2),
                                                 rng.integers(256)))
        if trial % 5 == 0:
            pos = int(rng.integers(120, 160))  # copies that wrap past pixel 159
        x0 = int(rng.integers(160))
        x1 = int(rng.integers(x0, 161))
        bit = int(rng.choice([P0_BIT, P1_BIT]))
        ob = fb[2]
        ob[:] = 0
        ob[:160] = rng.integers(0, 2, 160) * (bit ^ 0x3F) if trial % 2 else 0
        want = ob.copy()
        lo_w, hi_w = 160, 0
        for x in range(x0, x1):
            m = PLAYER_MASK[skip, mode, (x - pos) % 160]
            if m and grp & m:
                want[x] |= bit
                lo_w, hi_w = min(lo_w, x), max(hi_w, x + 1)
        lo, hi = tia._mark_player(ob.view(np.uint64), x0, x1, pos, mode, skip, grp, bit, 160, 0)
        assert np.array_equal(ob, want), (pos, mode, skip, grp, x0, x1)
        if hi_w > lo_w:
            assert lo <= lo_w and hi >= hi_w


def _pixel_collisions(s, en, x0, x1):
    """The latch bits objects ``en`` form over pixels [x0, x1), read pixel by pixel from the object tables
    the drawn path marks from."""
    from arcade_lab.engine.layout import (
        T_BLM_POS, T_BLM_SIZE, T_CURGRP0, T_CURGRP1, T_M0M_NUM, T_M0M_OFF, T_M0M_POS, T_M0M_SIZE, T_M1M_NUM,
        T_M1M_POS, T_M1M_SIZE, T_P0M_MODE, T_P0M_POS, T_P0M_SKIP, T_P1M_MODE, T_P1M_POS, T_P1M_SKIP, T_PF,
        T_PFM_REFL,
    )
    from arcade_lab.engine.tia_tables import (
        BALL_MASK, BL_BIT, COLLISION, M0_BIT, M1_BIT, MISSILE_MASK, P0_BIT, P1_BIT, PF_BIT, PF_MASK, PLAYER_MASK,
    )

    want = 0
    for x in range(x0, x1):
        e = 0
        if PLAYER_MASK[s[T_P0M_SKIP], s[T_P0M_MODE], (x - s[T_P0M_POS]) % 160] & s[T_CURGRP0]:
            e |= P0_BIT
        if PLAYER_MASK[s[T_P1M_SKIP], s[T_P1M_MODE], (x - s[T_P1M_POS]) % 160] & s[T_CURGRP1]:
            e |= P1_BIT
        if s[T_M0M_OFF] == 0 and MISSILE_MASK[s[T_M0M_NUM], s[T_M0M_SIZE], (x - s[T_M0M_POS]) % 160]:
            e |= M0_BIT
        if MISSILE_MASK[s[T_M1M_NUM], s[T_M1M_SIZE], (x - s[T_M1M_POS]) % 160]:
            e |= M1_BIT
        if BALL_MASK[s[T_BLM_SIZE], (x - s[T_BLM_POS]) % 160]:
            e |= BL_BIT
        if s[T_PF] & PF_MASK[s[T_PFM_REFL], x]:
            e |= PF_BIT
        want |= COLLISION[e & en]
    return want


def _latched(s, en, need, x0, x1):
    """What one undrawn segment latches with only ``need`` open: its coverage, then the line's flush."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.layout import ACC_OBJS, T_COLLISION

    s[T_COLLISION] = ~need & 0x7FFF
    s[ACC_OBJS] = 0
    tia._undrawn_collisions(s, en, need, x0, x1)
    tia.flush_coverage(s)
    assert s[ACC_OBJS] == 0
    return int(s[T_COLLISION]) & need


def _randomise_objects(s, rng, wrap):
    from arcade_lab.engine.layout import (
        T_BLM_POS, T_BLM_SIZE, T_CURGRP0, T_CURGRP1, T_M0M_NUM, T_M0M_OFF, T_M0M_POS, T_M0M_SIZE, T_M1M_NUM,
        T_M1M_POS, T_M1M_SIZE, T_P0M_MODE, T_P0M_POS, T_P0M_SKIP, T_P1M_MODE, T_P1M_POS, T_P1M_SKIP, T_PF,
        T_PFM_REFL,
    )

    s[[T_P0M_POS, T_P1M_POS, T_M0M_POS, T_M1M_POS, T_BLM_POS]] = rng.integers(0, 160, 5)
    if wrap:   # copies that run past pixel 159 and wrap to the line's start
        s[[T_P0M_POS, T_P1M_POS, T_M0M_POS]] = rng.integers(100, 160, 3)
        s[T_BLM_POS] = rng.integers(0, 8)
    s[[T_P0M_MODE, T_P1M_MODE, T_M0M_NUM, T_M1M_NUM]] = rng.integers(0, 8, 4)
    s[[T_P0M_SKIP, T_P1M_SKIP, T_M0M_OFF, T_PFM_REFL]] = rng.integers(0, 2, 4)
    s[[T_M0M_SIZE, T_M1M_SIZE, T_BLM_SIZE]] = rng.integers(0, 4, 3)
    s[[T_CURGRP0, T_CURGRP1]] = rng.integers(0, 256, 2)
    s[T_PF] = rng.integers(0, 1 << 20) & rng.integers(0, 1 << 20)


def _cover_inputs():
    from arcade_lab.engine.layout import (
        T_BLM_POS, T_BLM_SIZE, T_CURGRP0, T_CURGRP1, T_M0M_NUM, T_M0M_POS, T_M0M_SIZE, T_M1M_NUM, T_M1M_POS,
        T_M1M_SIZE, T_P0M_MODE, T_P0M_POS, T_P0M_SKIP, T_P1M_MODE, T_P1M_POS, T_P1M_SKIP, T_PF, T_PFM_REFL,
    )

    return {**dict.fromkeys([T_P0M_POS, T_P1M_POS, T_M0M_POS, T_M1M_POS, T_BLM_POS], 160),
            **dict.fromkeys([T_P0M_MODE, T_P1M_MODE, T_M0M_NUM, T_M1M_NUM], 8),
            **dict.fromkeys([T_P0M_SKIP, T_P1M_SKIP, T_PFM_REFL], 2),
            **dict.fromkeys([T_M0M_SIZE, T_M1M_SIZE, T_BLM_SIZE], 4),
            **dict.fromkeys([T_CURGRP0, T_CURGRP1], 256), T_PF: 1 << 20}


def test_undrawn_collisions_equal_the_per_pixel_reading():
    """Undrawn segments latch collisions from 64-bit coverage words: for random positions, NUSIZ modes,
    graphics, skip flags, playfields (both reflections), enabled sets, open latches and segments, the bits
    equal a pixel-by-pixel reading of the object tables the drawn path marks from — also when a line's
    earlier segments left covers in the cache (unchanged objects, or one input changed since)."""
    from arcade_lab.engine.layout import N_STATE

    rng = np.random.default_rng(0)
    s = np.zeros(N_STATE, np.int64)
    span = _cover_inputs()
    inputs = list(span)
    hits = 0
    for trial in range(4500):
        if trial % 3 == 2:
            # the same objects over another segment (later segments of a line reuse each cached cover),
            # or with one input changed (that object's cover must be rebuilt, the others' reused)
            if trial % 2:
                k = inputs[int(rng.integers(0, len(inputs)))]
                s[k] = (s[k] + 1) % span[k]
        else:
            _randomise_objects(s, rng, trial % 2)
        en, need = int(rng.integers(0, 64)), int(rng.integers(0, 1 << 15))
        x0 = int(rng.integers(0, 40 if trial % 2 else 160))
        x1 = int(rng.integers(x0, 161))
        want = _pixel_collisions(s, en, x0, x1) & need
        hits += want != 0
        assert _latched(s, en, need, x0, x1) == want
    assert hits > 150   # the draws do exercise collisions, not just empty segments


def test_a_line_latches_once_what_its_segments_meet():
    """A line's undrawn segments only add coverage; one flush at its end latches exactly the pairs met
    inside some segment — objects moved, changed or switched off between segments never pair across
    them (the union of covers would meet where no segment did)."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.layout import ACC_OBJS, N_STATE, T_COLLISION

    rng = np.random.default_rng(5)
    s = np.zeros(N_STATE, np.int64)
    span = _cover_inputs()
    inputs = list(span)
    across = 0
    for trial in range(600):
        _randomise_objects(s, rng, trial % 2)
        need = int(rng.integers(0, 1 << 15)) | int(rng.integers(0, 1 << 15))
        cuts = sorted(set(int(c) for c in rng.integers(1, 160, int(rng.integers(1, 8)))))
        s[T_COLLISION] = ~need & 0x7FFF
        s[ACC_OBJS] = 0
        want = 0
        unioned = 0
        for x0, x1 in zip([0] + cuts, cuts + [160]):
            for _ in range(int(rng.integers(0, 3))):   # registers written between segments
                k = inputs[int(rng.integers(0, len(inputs)))]
                s[k] = rng.integers(0, span[k])
            en = int(rng.integers(0, 64)) | int(rng.integers(0, 64))
            want |= _pixel_collisions(s, en, x0, x1) & need
            unioned |= en
            tia._undrawn_collisions(s, en, need, x0, x1)
        tia.flush_coverage(s)
        assert int(s[T_COLLISION]) & need == want, trial
        # a whole-line reading of the last objects over all the enabled ones would often say more
        across += (_pixel_collisions(s, unioned, 0, 160) & need & ~want) != 0
    assert across > 50   # the segments do differ enough that pairing across them would be wrong


def test_the_cover_cache_never_serves_a_stale_cover():
    """Each object's line cover is cached with the inputs it was built from: after any one input changes,
    every object enabled and every latch open, the bits equal those computed with an empty cache."""
    from arcade_lab.engine.layout import CV_KEY, N_STATE

    span = _cover_inputs()
    rng = np.random.default_rng(1)
    s = np.zeros(N_STATE, np.int64)
    differed = {k: 0 for k in span}
    for trial in range(200 * len(span)):
        for k, n in span.items():
            s[k] = rng.integers(0, n)
        before = _latched(s, 63, (1 << 15) - 1, 0, 160)   # fills the cache
        k = list(span)[trial % len(span)]
        s[k] = (s[k] + rng.integers(1, span[k])) % span[k]
        cold = s.copy()
        cold[CV_KEY:CV_KEY + 6] = 0
        want = _latched(cold, 63, (1 << 15) - 1, 0, 160)
        assert _latched(s, 63, (1 << 15) - 1, 0, 160) == want, (trial, k)
        differed[k] += want != before
    assert min(differed.values()) > 5   # every input's change did change some latches


def _pairs_meeting(s):
    """The collision pairs the objects' current masks could form anywhere on a line, read pixel by pixel
    from the object tables (any graphics, copies or playfield reflection)."""
    from arcade_lab.engine.layout import (
        T_BLM_POS, T_BLM_SIZE, T_M0M_NUM, T_M0M_POS, T_M0M_SIZE, T_M1M_NUM, T_M1M_POS, T_M1M_SIZE, T_P0M_MODE,
        T_P0M_POS, T_P1M_MODE, T_P1M_POS, T_PF,
    )
    from arcade_lab.engine.tia_tables import (
        BALL_MASK, BL_BIT, COLLISION, M0_BIT, M1_BIT, MISSILE_MASK, P0_BIT, P1_BIT, PF_BIT, PF_MASK, PLAYER_MASK,
    )

    meet = 0
    for x in range(160):
        e = 0
        if PLAYER_MASK[0, s[T_P0M_MODE], (x - s[T_P0M_POS]) % 160]:
            e |= P0_BIT
        if PLAYER_MASK[0, s[T_P1M_MODE], (x - s[T_P1M_POS]) % 160]:
            e |= P1_BIT
        if MISSILE_MASK[s[T_M0M_NUM], s[T_M0M_SIZE], (x - s[T_M0M_POS]) % 160]:
            e |= M0_BIT
        if MISSILE_MASK[s[T_M1M_NUM], s[T_M1M_SIZE], (x - s[T_M1M_POS]) % 160]:
            e |= M1_BIT
        if BALL_MASK[s[T_BLM_SIZE], (x - s[T_BLM_POS]) % 160]:
            e |= BL_BIT
        if s[T_PF] & (PF_MASK[0, x] | PF_MASK[1, x]):
            e |= PF_BIT
        meet |= COLLISION[e]
    return meet


def test_quiet_reads_hulls_against_a_pixel_by_pixel_reference():
    """``tia.quiet``: for random positions, sizes, copies, playfields and sets of open pairs, True exactly
    when no open pair can meet on any pixel whatever the players' graphics, skipped copies or the
    playfield's reflection — read pixel by pixel from the object tables."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.layout import N_STATE, QV_OK, T_PF

    rng = np.random.default_rng(1)
    s = np.zeros(N_STATE, np.int64)
    seen = set()
    for trial in range(3000):
        _randomise_objects(s, rng, trial % 2)
        s[QV_OK] = 0   # the masks were written directly, not through the setters that keep its verdicts
        if trial % 3 == 0:   # sparse playfields, as games draw ropes and walls
            s[T_PF] &= rng.integers(0, 1 << 20)
        need = int(rng.integers(0, 1 << 15)) & int(rng.integers(0, 1 << 15))
        want = (_pairs_meeting(s) & need) == 0
        assert tia.quiet(s, need) == want, trial
        seen.add(want)
    assert seen == {True, False}


def test_quiet_keeps_verdicts_only_while_their_objects_hold_still():
    """``tia.quiet`` remembers the pairs it found apart (``QV_OK``) until one of their objects moves or
    changes size: a random walk of register changes through the TIA's own setters (positions, NUSIZ,
    CTRLPF's ball size, the playfield), never clearing the memory by hand, agrees with the pixel reference
    at every step — and the memory is used (hundreds of steps find some pairs already known)."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.layout import (
        N_STATE, QV_OK, T_CTRLPF, T_NUSIZ0, T_NUSIZ1, T_POSBL, T_POSM0, T_POSM1, T_POSP0, T_POSP1,
    )

    rng = np.random.default_rng(7)
    s = np.zeros(N_STATE, np.int64)
    for reg in (T_POSP0, T_POSP1, T_POSM0, T_POSM1, T_POSBL):
        s[reg] = rng.integers(0, 160)
    for setter in (tia._set_m0_mask, tia._set_m1_mask, tia._set_bl_mask):
        setter(s)
    tia._set_p0_mask(s, 0)
    tia._set_p1_mask(s, 0)
    s[QV_OK] = 0
    remembered = agreed = 0
    for step in range(4000):
        k = rng.integers(0, 7)
        if k < 5:   # a small move, as HMOVE makes, or a jump, as a RESxx does
            reg = (T_POSP0, T_POSP1, T_POSM0, T_POSM1, T_POSBL)[k]
            d = rng.integers(-8, 9) if rng.random() < 0.8 else rng.integers(0, 160)
            s[reg] = (s[reg] + d) % 160
        elif k == 5:
            s[T_NUSIZ0 if rng.random() < 0.5 else T_NUSIZ1] = rng.integers(0, 256)
        else:
            s[T_CTRLPF] = rng.integers(0, 256)
        if rng.random() < 0.3:   # the setters run when nothing changed too (every line's end does)
            k = rng.integers(0, 7)
        if k in (0, 5):
            tia._set_p0_mask(s, 0)
        if k in (2, 5):
            tia._set_m0_mask(s)
        if k in (1, 5):
            tia._set_p1_mask(s, 0)
        if k in (3, 5):
            tia._set_m1_mask(s)
        if k in (4, 6):
            tia._set_bl_mask(s)
        if rng.random() < 0.1:
            tia._store_pf(s, int(rng.choice([0x0D, 0x0E, 0x0F])), int(rng.integers(0, 256) & rng.integers(0, 256)))
        need = int(rng.integers(0, 1 << 15))
        remembered += (need & s[QV_OK]) != 0
        want = (_pairs_meeting(s) & need) == 0
        assert tia.quiet(s, need) == want, step
        agreed += want
    assert remembered > 400 and 0 < agreed < 4000


@pytest.mark.parametrize("vdel", [False, True], ids=["direct", "vdel"])
def test_quiet_undrawn_writes_keep_frames_and_state(tmp_path, vdel):
    """On undrawn frames HMOVE, NUSIZx and PFx writes are stored by the CPU after moving the TIA's update
    point on without drawing (``tia.quiet_store``), and GRPx writes without even that, when no collision
    pair still open can meet on the line (``tia.quiet``) — as in Boxing, whose boxers keep clear of the
    ropes. A cartridge draws ropes (PF0, reflected) with the ball and player 1 standing between them,
    HMOVEs on every line (HMOVE blanks on), changes NUSIZ0 and both players' graphics on every line and
    PF2 now and then, and moves player 0 one pixel a line so that it crosses the ropes (and the ball and
    player 1) on some lines of some frames: there the full path must latch what meets. Collision
    registers go to RAM each frame and are cleared every fourth; every fourth frame's call is cut at the
    instruction limit with GRP writes pending. Drawn against ale-py (screen, RAM), undrawn against drawn
    (whole snapshot) after every frame. With vertical delay on for both players and the ball, a GRP0
    write changes what player 1 shows and a GRP1 write what player 0 and the ball show: the pairs a
    deferred GRP write must find apart are those objects' (``tia.grp_unseen``)."""
    a = prologue(Asm())
    if vdel:
        a.op("lda#", 1).op("stazp", VDELP0).op("stazp", VDELP1).op("stazp", VDELBL)
    for reg, colour in ((COLUBK, 0x46), (COLUPF, 0xC8), (COLUP0, 0x1E), (COLUP1, 0x86)):
        a.op("lda#", colour).op("stazp", reg)
    a.op("lda#", 0x10).op("stazp", PF0).op("lda#", 0x01).op("stazp", CTRLPF)   # ropes at both edges
    a.op("lda#", 0x02).op("stazp", ENABL).op("lda#", 0x10).op("stazp", HMP0)   # player 0 moves a pixel a line
    for reg, wait in ((RESP0, 8), (RESP1, 18), (RESBL, 26)):   # P0 left, P1 and the ball mid-screen
        a.op("stazp", WSYNC)
        for _ in range(wait):
            a.op("nop")
        a.op("stazp", reg)
    a.label("frame").frame_start().op("inczp", 0x80)
    for k, reg in enumerate((CXP0FB, CXP1FB, CXBLPF, CXPPMM)):
        a.op("ldazp", reg).op("stazp", 0x81 + k)
    a.op("ldx#", 96).label("line").op("stazp", WSYNC).op("stazp", HMOVE)
    a.op("txa").op("stazp", GRP0).op("and#", 0x05).op("stazp", NUSIZ0)
    a.op("txa").op("ora#", 0x81).op("stazp", GRP1)
    a.op("txa").op("and#", 0x0F).op("bne", "nopf").op("txa").op("stazp", PF2).label("nopf")
    a.op("dex").op("bne", "line")
    a.op("ldazp", 0x80).op("and#", 3).op("bne", "keep").op("stazp", CXCLR).label("keep")
    a.op("ldazp", 0x80).op("and#", 3).op("eor#", 2).op("bne", "short")
    spin_past_the_limit(a.op("stazp", WSYNC).op("stazp", GRP0).op("stazp", GRP1))   # GRP writes pending
    a.label("short").lines(20, "s").op("jmp", "frame")
    drawn, partial, latched = tally_drawn_and_undrawn(tmp_path, a.rom(), 28, 4)
    assert len(set(drawn.screen()[60].tolist())) >= 3   # ropes, sprites and background show
    assert partial >= 3                                 # the spinning frames' calls were cut
    assert len(latched) >= 3                            # some frames latched what others did not


def test_drawn_writes_in_the_blank_after_an_update_equal_ale(tmp_path):
    """On drawn frames, writes with nothing to draw up to them — here ENABL, VDELP0, CTRLPF and VDELP1 just
    after an HMOVE has drawn up to the horizontal blank (``tia.stored_in_blank``), and a colour and the
    players' graphics on some lines — are stored by the CPU. A cartridge HMOVEs after every WSYNC and then
    sets those four from the line counter, so the ball blinks, player 0 switches between its graphics and
    its delayed copy and the playfield between mirrored and repeated halves, with nothing later on the
    line recomputing what they change; every eighth line also writes GRP0, GRP1 and COLUP1, in and past
    the blank. Screen and RAM equal ale-py's on every frame."""
    a = prologue(Asm())
    for reg, colour in ((COLUBK, 0x46), (COLUPF, 0xC8), (COLUP0, 0x1E), (COLUP1, 0x86)):
        a.op("lda#", colour).op("stazp", reg)
    a.op("lda#", 0x35).op("stazp", PF1).op("lda#", 0x0F).op("stazp", PF2)
    for reg, value in ((GRP1, 0x3C), (GRP0, 0xF0), (GRP1, 0x81), (GRP0, 0x0F)):  # P0 0x0F, delayed 0xF0
        a.op("lda#", value).op("stazp", reg)
    for reg, wait in ((RESP0, 8), (RESP1, 14), (RESBL, 20)):
        a.op("stazp", WSYNC)
        for _ in range(wait):
            a.op("nop")
        a.op("stazp", reg)
    a.label("frame").frame_start().op("inczp", 0x80)
    a.op("ldx#", 150).label("line").op("stazp", WSYNC).op("stazp", HMOVE)
    a.op("txa").op("stazp", ENABL).op("stazp", VDELP0).op("stazp", CTRLPF).op("stazp", VDELP1)
    a.op("and#", 0x07).op("bne", "next")
    a.op("stazp", WSYNC).op("stazp", HMOVE).op("txa").op("stazp", GRP1).op("stazp", COLUP1)
    a.op("eorzp", 0x80).op("stazp", GRP0).label("next")
    a.op("dex").op("bne", "line")
    a.label("short").lines(40, "s").op("jmp", "frame")
    env = run_both(tmp_path, a.rom(), frames=24)
    assert len(set(env.screen()[80].tolist())) >= 3


def test_registers_stored_without_drawing_keep_frames_and_state(tmp_path):
    """WSYNC, sound, HMxx, HMCLR and unused-address writes — colour writes on undrawn frames, and GRPx
    writes there while no collision they could add is open; on drawn frames colour and GRPx writes in
    the horizontal blank after an update (tia.store_in_blank) — and input-port reads are done by the CPU
    without drawing up to them (tia.UNSEEN); the next access draws the span in one go. A cartridge writes
    COLUBK early and in mid-line, both players' graphics and PF1 from the line counter over two
    overlapping sprites, HMP0/AUDV0/HMCLR/HMM0 between, reads INPT4 and INPT0; some frames start
    Cosmic Ark's starfield (an HMM0 write the CPU must leave to the full path); it stores three
    collision registers in RAM as a frame starts and clears them every eighth; every
    fourth frame ends its call with such writes pending, spinning past the 25 000-instruction limit
    without touching the TIA (run_frame draws up to them as it returns). Stepped drawn against ale-py
    (screen and RAM), and undrawn against the drawn engine: the whole snapshot must be equal after every
    frame, partial ones included."""
    from arcade_lab.engine.layout import T_COSMIC_ON, T_PARTIAL

    a = prologue(Asm())
    for reg in (RESP0, RESP1):   # both players at the same column, inside PF1's left half
        a.op("stazp", WSYNC)
        for _ in range(14):
            a.op("nop")
        a.op("stazp", reg)
    a.label("frame").frame_start().op("inczp", 0x80)
    for k, reg in enumerate((CXPPMM, CXP0FB, CXP1FB)):   # since the last frame's clear
        a.op("ldazp", reg).op("stazp", 0x81 + k)
    # M0 on, HMM0 = 7; in every other run of 16 frames HMM0 becomes 6 exactly 21 cycles after an HMOVE: Cosmic
    # Ark's starfield (M0 moves at every line's end until the next HMOVE), which the CPU must not store
    a.op("lda#", 2).op("stazp", ENAM0).op("lda#", 0x70).op("stazp", HMM0).op("stazp", WSYNC)
    a.op("stazp", HMOVE).op("ldazp", 0x80).op("and#", 0x10).op("eor#", 0x70)   # 0x70 or 0x60: 7 cycles
    a.op("nop").op("nop").op("nop").op("nop").op("bit", 0x80).op("stazp", HMM0)   # 14 more
    a.op("ldx#", 120).label("line").op("stazp", WSYNC)
    a.op("ldazp", 0x80).op("stazp", COLUBK)
    a.op("txa").op("stazp", GRP0).op("and#", 0x30).op("stazp", PF1)
    a.op("txa").op("and#", 0xC3).op("stazp", GRP1)
    a.op("stazp", HMP0).op("stazp", AUDV0).op("stazp", HMCLR)
    a.op("lda#", 0x46).op("stazp", COLUBK)   # mid-line, past the sprites' columns
    a.op("stazp", HMM0).op("stazp", 0x3E)    # an ordinary HMM0 write, and no register at all
    a.op("ldazp", INPT4).op("stazp", 0x84).op("ldazp", 0x38).op("stazp", 0x85)   # and INPT0 (mirror)
    a.op("dex").op("bne", "line")
    a.op("ldazp", 0x80).op("and#", 7).op("bne", "keep").op("stazp", CXCLR).label("keep")
    a.op("ldazp", 0x80).op("and#", 3).op("bne", "short")
    spin_past_the_limit(a.op("stazp", WSYNC).op("stazp", COLUP0).op("stazp", HMP0))   # pending writes
    a.label("short").lines(20, "s").op("jmp", "frame")
    partial, stars, latched = 0, 0, set()
    for drawn in frames_drawn_and_undrawn(tmp_path, a.rom(), 24):
        partial += int(drawn.console.s[T_PARTIAL])
        stars += int(drawn.console.s[T_COSMIC_ON])
        latched.add(tuple(int(v) >> 6 for v in drawn.ram()[1:4]))
    screen = drawn.screen()
    assert len(set(screen[40].tolist())) >= 3   # both background colours and the sprites show
    assert partial >= 3                         # the spinning frames' calls were cut
    assert len(latched) >= 2                    # collisions were latched, and cleared
    assert 0 < stars < 24                       # the starfield ran in some frames, not in others


def test_writes_that_change_nothing_skip_drawing_and_keep_frames_and_state(tmp_path):
    """Writes to registers drawing reads (PF0-2, ENAM0/1, ENABL, NUSIZ0/1, CTRLPF, REFP0/1, VDELBL,
    GRP0/1) are stored by the CPU without drawing up to them when they leave the TIA as it is
    (``tia.unchanged``). GRP0 and GRP1 are rewritten with their own value just after the other one (or
    ENABL) changed, with vertical delay on every other pair of frames: their delayed copies must follow.
    A cartridge rewrites all of them on every line, mostly with the value they hold and now and then with
    a new one, over two players, both missiles, the ball and the playfield; HMOVE moves player 0 on every
    line; every eighth line RESP0 lands just before an unchanged NUSIZ0 write (the mask RESP0 leaves must
    still be reset: full path); collision registers go to RAM each frame and are cleared every fourth;
    every fourth frame's call is cut at the instruction limit with unchanged writes pending. Drawn
    against ale-py (screen, RAM), undrawn against drawn (whole snapshot) after every frame."""
    a = prologue(Asm())
    for reg, colour in ((COLUBK, 0x46), (COLUPF, 0xC8), (COLUP0, 0x1E), (COLUP1, 0x86)):
        a.op("lda#", colour).op("stazp", reg)
    for reg in (RESP0, RESP1, RESM0, RESM1, RESBL):   # players, missiles and ball around the same columns
        a.op("stazp", WSYNC)
        for _ in range(12):
            a.op("nop")
        a.op("stazp", reg)
    a.label("frame").frame_start().op("inczp", 0x80)
    for k in range(8):   # every collision register: what latched since the last clear
        a.op("ldazp", k).op("stazp", 0x81 + k)
    a.op("lda#", 0xF0).op("stazp", HMP0)
    a.op("ldx#", 96).label("line").op("stazp", WSYNC).op("stazp", HMOVE)
    a.op("txa").op("lsr").op("lsr").op("lsr").op("and#", 0x02).op("stazp", ENABL)   # new every 8 lines
    a.op("ldazp", 0x80).op("and#", 0x02).op("stazp", ENAM1)                          # new every 2 frames
    a.op("txa").op("and#", 0xF0).op("stazp", PF0).op("stazp", PF2)                   # every 16 lines
    a.op("lda#", 0x05).op("stazp", NUSIZ1)                                           # never new
    a.op("txa").op("and#", 0x08).op("stazp", REFP0).op("stazp", GRP0)
    a.op("txa").op("ora#", 0x81).op("stazp", GRP1).op("stazp", ENAM0)
    a.op("ldazp", 0x80).op("lsr").op("stazp", VDELP0).op("stazp", VDELP1)             # every 2 frames
    a.op("txa").op("and#", 0x08).op("stazp", GRP0)   # same value, but GRP1 is new: its delayed copy is not
    a.op("stazp", GRP0)                               # changes nothing
    a.op("txa").op("and#", 0x02).op("stazp", ENABL)   # new every 2 lines
    a.op("txa").op("ora#", 0x81).op("stazp", GRP1)   # same value, but the ball's delayed enable may be new
    a.op("stazp", GRP1)                               # changes nothing
    a.op("ldazp", 0x80).op("and#", 0x21).op("stazp", CTRLPF).op("stazp", VDELBL)     # new every frame
    a.op("txa").op("and#", 0x07).op("bne", "noresp").op("stazp", RESP0).label("noresp")
    a.op("txa").op("lsr").op("lsr").op("lsr").op("lsr").op("and#", 0x03).op("stazp", NUSIZ0)
    a.op("dex").op("bne", "line")
    a.op("ldazp", 0x80).op("and#", 3).op("bne", "keep").op("stazp", CXCLR).label("keep")
    a.op("ldazp", 0x80).op("and#", 3).op("eor#", 1).op("bne", "short")
    spin_past_the_limit(a.op("stazp", WSYNC).op("lda#", 0).op("stazp", PF0).op("stazp", ENAM0)
                        .op("stazp", ENABL))   # unchanged writes pending when the call runs out
    a.label("short").lines(20, "s").op("jmp", "frame")
    drawn, partial, latched = tally_drawn_and_undrawn(tmp_path, a.rom(), 24, 8)
    assert len(set(drawn.screen()[60].tolist())) >= 3   # playfield, sprites and background show
    assert partial >= 3                                 # the spinning frames' calls were cut
    assert len(latched) >= 3                            # collisions were latched, and cleared


def test_playfield_block_word_equals_the_per_block_masks():
    """The drawing loops read a line's playfield as one word of 40 block bits: for any playfield value
    and either reflection, bit b is set exactly when the playfield mask of block b's pixels meets it."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.tia_tables import PF_MASK

    rng = np.random.default_rng(3)
    values = [0, (1 << 20) - 1] + [1 << k for k in range(20)] + [int(v) for v in rng.integers(1 << 20, size=2000)]
    for pf in values:
        for refl in (0, 1):
            want = sum(1 << b for b in range(40) if pf & int(PF_MASK[refl, 4 * b]))
            assert int(tia.pf_blocks(pf, refl)) == want, (hex(pf), refl)


def test_span_fills_and_playfield_equal_a_pixel_by_pixel_reference():
    """The drawn path's word-at-a-time writers: a fill, and a playfield span (both reflections, any
    start and end, both halves' colours), write exactly the pixels a per-pixel reading would, and nothing
    outside the span."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.tia_tables import PF_MASK

    rng = np.random.default_rng(1)
    for trial in range(3000):
        line = 160 * int(rng.integers(4))  # line starts are 4-aligned in the frame buffer
        x0 = int(rng.integers(160))
        x1 = int(rng.integers(x0, 161))
        buf = rng.integers(0, 256, 4 * 160, dtype=np.uint8)
        want = buf.copy()
        pf, refl = int(rng.integers(1 << 20)), int(rng.integers(2))
        pfl, pfr, bk = (int(v) for v in rng.integers(0, 256, 3))
        if trial % 2:
            tia._fill(buf, line + x0, x1 - x0, bk)
            want[line + x0:line + x1] = bk
        else:
            tia._draw_playfield(buf, line + x0, x0, x1, tia.pf_blocks(pf, refl), pfl, pfr, bk)
            for x in range(x0, x1):
                want[line + x] = (pfl if x < 80 else pfr) if pf & PF_MASK[refl, x] else bk
        assert np.array_equal(buf, want), (trial, x0, x1)


def test_marked_pixels_equal_a_pixel_by_pixel_reference():
    """The drawn path's marked pixels, four at a time where one set of objects covers a 4-pixel block:
    colours by priority (score and priority modes, both playfield reflections, either half of the line),
    collisions and cleared marks equal a per-pixel reading, for wide runs, lone pixels and mixed blocks,
    and nothing outside the marks is written."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.layout import N_STATE, T_COLUBK
    from arcade_lab.engine.tia_tables import COLLISION, PF_BIT, PF_MASK, PRIORITY, PRIORITY_BIT, SCORE_BIT

    rng = np.random.default_rng(2)
    s = np.zeros(N_STATE, np.int64)
    for trial in range(3000):
        line = 160 * int(rng.integers(4))
        ob = np.zeros(8 * 24, np.uint8)
        for _ in range(int(rng.integers(1, 5))):  # runs of one object set, some whole blocks wide
            a = int(rng.integers(160))
            b = min(160, a + int(rng.choice([1, 2, 3, 4, 8, 16, 32])))
            ob[a:b] |= np.uint8(rng.integers(1, 32))
        if trial % 3 == 0:
            ob[:160] |= (rng.integers(0, 8, 160) == 0) * rng.integers(1, 32, 160).astype(np.uint8)
        marked = np.flatnonzero(ob[:160])
        lo, hi = int(marked[0]), int(marked[-1]) + 1
        pf, refl = int(rng.integers(1 << 20)), int(rng.integers(2))
        pps = int(rng.choice([0, SCORE_BIT, PRIORITY_BIT, SCORE_BIT | PRIORITY_BIT]))
        s[T_COLUBK:T_COLUBK + 4] = rng.integers(0, 256, 4)
        coll0 = int(rng.integers(1 << 15))
        buf = rng.integers(0, 256, 4 * 160, dtype=np.uint8)
        want, want_coll = buf.copy(), coll0
        for x in marked:
            e = int(ob[x]) | (PF_BIT if pf & PF_MASK[refl, x] else 0)
            want_coll |= int(COLLISION[e])
            want[line + x] = s[T_COLUBK + PRIORITY[1 if x >= 80 else 0, e | pps]]
        coll = tia._draw_marked(s, buf, ob, np.uint64(line), lo, hi, tia.pf_blocks(pf, refl), pps, coll0)
        assert coll == want_coll and np.array_equal(buf, want), (trial, lo, hi)
        assert not ob.any()


def test_four_pixel_block_test_equals_the_masks_read_pixel_by_pixel():
    """ALE's four-pixel fast path paints a block only when no shown object's mask covers any of its pixels:
    the one-lookup-per-object test agrees with the player, missile and ball masks read pixel by pixel."""
    from arcade_lab.engine import tia
    from arcade_lab.engine.layout import (
        N_STATE, T_BLM_POS, T_BLM_SIZE, T_M0M_NUM, T_M0M_OFF, T_M0M_POS, T_M0M_SIZE, T_M1M_NUM, T_M1M_POS,
        T_M1M_SIZE, T_P0M_MODE, T_P0M_POS, T_P0M_SKIP, T_P1M_MODE, T_P1M_POS, T_P1M_SKIP,
    )
    from arcade_lab.engine.tia_tables import (
        BALL_MASK, BL_BIT, M0_BIT, M1_BIT, MISSILE_MASK, P0_BIT, P1_BIT, PLAYER_MASK,
    )

    rng = np.random.default_rng(2)
    s = np.zeros(N_STATE, np.int64)
    for _ in range(20000):
        s[[T_P0M_POS, T_P1M_POS, T_M0M_POS, T_M1M_POS, T_BLM_POS]] = rng.integers(160, size=5)
        s[T_P0M_SKIP], s[T_P1M_SKIP] = rng.integers(2, size=2)
        s[T_P0M_MODE], s[T_P1M_MODE], s[T_M0M_NUM], s[T_M1M_NUM] = rng.integers(8, size=4)
        s[T_M0M_SIZE], s[T_M1M_SIZE], s[T_BLM_SIZE] = rng.integers(4, size=3)
        s[T_M0M_OFF] = rng.integers(2)
        objs = int(rng.integers(32))
        x = int(rng.integers(157))
        covered = False
        for xx in range(x, x + 4):
            covered |= bool(objs & P0_BIT and PLAYER_MASK[s[T_P0M_SKIP], s[T_P0M_MODE], (xx - s[T_P0M_POS]) % 160])
            covered |= bool(objs & P1_BIT and PLAYER_MASK[s[T_P1M_SKIP], s[T_P1M_MODE], (xx - s[T_P1M_POS]) % 160])
            covered |= bool(objs & M0_BIT and s[T_M0M_OFF] == 0
                            and MISSILE_MASK[s[T_M0M_NUM], s[T_M0M_SIZE], (xx - s[T_M0M_POS]) % 160])
            covered |= bool(objs & M1_BIT and MISSILE_MASK[s[T_M1M_NUM], s[T_M1M_SIZE], (xx - s[T_M1M_POS]) % 160])
            covered |= bool(objs & BL_BIT and BALL_MASK[s[T_BLM_SIZE], (xx - s[T_BLM_POS]) % 160])
        assert tia._block_clear(s, objs, x) == (not covered), (objs, x, s[T_P0M_POS])
