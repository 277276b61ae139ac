"""Compiled hot blocks (engine/blocks.py) against the interpreter they stand in for.

A block must leave the machine exactly as the interpreter would: every register, the cycle counter, RAM,
the TIA's state (so the screen), at every frame. Two kinds of cartridge are run both ways: generated ones
whose hot loop is a random mix of the instructions and accesses blocks decode (RAM, TIA registers of every
write class, ROM tables, pointers in RAM, the stack, decimal arithmetic, device reads), and real games of
the flat and the bank-switched kinds."""
from __future__ import annotations

import os

import numpy as np
import pytest

from arcade_lab.engine import blocks
from arcade_lab.engine import opcodes as oc
from arcade_lab.engine.env import Env
from arcade_lab.engine.layout import (A, CYC, FN_BLOCKS, FN_EXECUTE, PC, SP, X, Y, FC, FNZ, FN, N_SNAPSHOT)

# opcodes whose operand is a RAM byte ($80-$DF), a TIA register or an immediate, none moving the PC
_RAM_READS = ["LDA", "LDX", "LDY", "ADC", "SBC", "AND", "ORA", "EOR", "CMP", "CPX", "CPY", "BIT"]
_RAM_RMW = ["INC", "DEC", "ASL", "LSR", "ROL", "ROR"]
_IMPLIED = ["TAX", "TAY", "TXA", "TYA", "INX", "INY", "DEX", "DEY", "CLC", "SEC", "CLV", "NOP", "ASLA", "LSRA",
            "ROLA", "RORA"]
_TIA_WRITES = list(range(0x01, 0x2D))  # every TIA write register but VSYNC, which ends frames
_TIA_READS = list(range(0x00, 0x0E))
TABLE = 0xFC00  # a 256-byte ROM table read through abs,X / abs,Y and (zp),Y
POINTER = 0xE0  # the pointer to it, in RAM


def _opcode(name: str, mode: int) -> int:
    return next(op for op in range(256) if oc.OPS[oc.OPERATION[op]] == name and oc.MODE[op] == mode
                and op in (set(range(256)) - {0x1A, 0x3A, 0x5A, 0x7A, 0xDA, 0xFA, 0x80, 0x82, 0x89, 0xC2,
                                               0xE2, 0xEB}))


def _random_body(rng: np.random.Generator, n: int) -> bytes:
    """``n`` random instructions that keep the frame loop intact: no jumps, no VSYNC, no stack pointer
    change, RAM targets below $E0 (the pointer and the loop counter live above)."""
    out = bytearray()
    pushed = 0
    for _ in range(n):
        kind = rng.integers(9)
        ram = int(rng.integers(0x80, 0xE0))
        if kind == 0:
            out += bytes([_opcode(str(rng.choice(_RAM_READS[:3] + _RAM_READS[3:9])), oc.IMM), int(rng.integers(256))])
        elif kind == 1:
            out += bytes([_opcode(str(rng.choice(_RAM_READS)), oc.ZP), ram])
        elif kind == 2:
            out += bytes([_opcode(str(rng.choice(["STA", "STX", "STY"])), oc.ZP), ram])
        elif kind == 3:
            out += bytes([_opcode(str(rng.choice(_RAM_RMW)), oc.ZP), ram])
        elif kind == 4:  # a TIA register, zero page or absolute
            r = int(rng.choice(_TIA_WRITES))
            if rng.integers(2):
                out += bytes([0x85, r])
            else:
                out += bytes([0x8D, r, 0x00])
        elif kind == 5:  # ROM table reads, indexed and through the pointer
            name = str(rng.choice(["LDA", "ADC", "AND", "ORA", "EOR", "CMP"]))
            mode = int(rng.choice([oc.ABX, oc.ABY, oc.IZY]))
            out += bytes([_opcode(name, mode), POINTER]) if mode == oc.IZY else \
                bytes([_opcode(name, mode), TABLE & 0xFF, TABLE >> 8])
        elif kind == 6:  # device reads: TIA inputs and collisions, the RIOT timer
            if rng.integers(2):
                out += bytes([0xA5, int(rng.choice(_TIA_READS))])
            else:
                out += bytes([0xAD, 0x84, 0x02])
        elif kind == 7:
            out.append(_opcode(str(rng.choice(_IMPLIED)), oc.IMP))
        else:  # the stack and decimal mode, balanced
            if pushed < 4 and rng.integers(2):
                out.append(int(rng.choice([0x48, 0x08])))
                pushed += 1
            elif pushed:
                out.append(0x68)
                pushed -= 1
            else:
                out += bytes([0xF8, 0x69, int(rng.integers(256)), 0xD8])  # SED; ADC #; CLD
    out += bytes([0x68]) * pushed + bytes([0xD8])  # PLA each push; CLD
    return bytes(out)


def random_cart(seed: int) -> bytes:
    """A 4K cartridge: reset, then frames of 40 passes through a random body (each ending with WSYNC)."""
    rng = np.random.default_rng(seed)
    body = _random_body(rng, 60)
    code = bytearray([0x78, 0xD8, 0xA2, 0xFF, 0x9A,                     # SEI; CLD; LDX #$FF; TXS
                      0xA9, TABLE & 0xFF, 0x85, POINTER, 0xA9, TABLE >> 8, 0x85, POINTER + 1])
    frame = 0xF000 + len(code)
    code += bytes([0xA9, 0x02, 0x85, 0x02, 0x85, 0x00, 0x85, 0x02, 0x85, 0x02, 0x85, 0x02, 0xA9, 0x00, 0x85, 0x00,
                   0xA9, 40, 0x85, 0xF0])                                 # VSYNC 3 lines; counter = 40
    loop = 0xF000 + len(code)
    code += body + bytes([0x85, 0x02, 0xC6, 0xF0])                        # STA WSYNC; DEC counter
    code += bytes([0xF0, 0x03, 0x4C, loop & 0xFF, loop >> 8])             # BEQ +3; JMP loop
    code += bytes([0x4C, frame & 0xFF, frame >> 8])                       # JMP frame
    assert len(code) < TABLE - 0xF000
    rom = bytearray(rng.integers(256, size=4096, dtype=np.uint8).tobytes())
    rom[:len(code)] = code
    rom[0xFFC:0x1000] = bytes([0x00, 0xF0, 0x00, 0xF0])
    return bytes(rom)


def _variant(body: bytes, k: int) -> bytes:
    """``body`` with its immediates and the RAM bytes it stores to changed by ``k``: the same instructions
    at the same offsets doing other things, so which slice ran shows in RAM."""
    out, i = bytearray(body), 0
    while i < len(out):
        op = out[i]
        if k and oc.MODE[op] == oc.IMM:
            out[i + 1] = (out[i + 1] + 37 * k) & 0xFF
        elif k and op in (0x84, 0x85, 0x86) and 0x80 <= out[i + 1] < 0xE0:  # STY/STA/STX zero page
            out[i + 1] = 0x80 + (out[i + 1] - 0x80 + 3 * k) % 0x60
        i += int(oc.MODE_BYTES[oc.MODE[op]])
    return bytes(out)


E0_HEAD = 0x39C  # where each slice's routine starts: its head runs to the slice's end, its tail from offset 0


def random_e0_cart(seed: int) -> bytes:
    """An 8K E0 cartridge. Slice 7 (always at $1C00) holds a ROM table at its start and the frame loop,
    which maps slices into the first two segments and calls the routine at $139C 40 times a frame. Slices 0-6
    each hold a variant of one random routine (their immediates differ) that starts 100 bytes before the
    slice's end and runs on into the next segment, whichever slice is mapped there (an instruction may
    straddle the two), where it ends with RTS; on the way it maps other slices into its own segment and
    the next one, so the rest of it comes from them."""
    rng = np.random.default_rng(seed)
    parts = [_random_body(rng, 12)]
    for _ in range(3):  # switches: the routine's own segment (0), then the next (1)
        parts.append(bytes([0xAD, 0xE0 + int(rng.integers(7)), 0x1F]))
        parts.append(_random_body(rng, 12))
        parts.append(bytes([0xAD, 0xE8 + int(rng.integers(7)), 0x1F]))
        parts.append(_random_body(rng, 10))
    body = b"".join(parts) + bytes([0x60])  # RTS
    assert 100 < len(body) < E0_HEAD
    rom = bytearray(rng.integers(256, size=8192, dtype=np.uint8).tobytes())
    for k in range(7):
        v = _variant(body, k)
        rom[k * 1024 + E0_HEAD:(k + 1) * 1024] = v[:0x400 - E0_HEAD]
        rom[k * 1024:k * 1024 + len(v) - (0x400 - E0_HEAD)] = v[0x400 - E0_HEAD:]
    code = bytearray([0x78, 0xD8, 0xA2, 0xFF, 0x9A, 0x8D, 0xE0, 0x1F,   # SEI; CLD; LDX #$FF; TXS; STA $1FE0
                      0xA9, TABLE & 0xFF, 0x85, POINTER, 0xA9, TABLE >> 8, 0x85, POINTER + 1])
    start = 0xFE00
    frame = start + len(code)
    code += bytes([0xA9, 0x02, 0x85, 0x02, 0x85, 0x00, 0x85, 0x02, 0x85, 0x02, 0x85, 0x02, 0xA9, 0x00, 0x85, 0x00,
                   0xA9, 40, 0x85, 0xF0])                                 # VSYNC 3 lines; counter = 40
    loop = start + len(code)
    code += bytes([0xA5, 0xF0, 0x29, 0x03, 0xAA, 0xBD, 0xE0, 0x1F,         # LDA ctr; AND #3; TAX; LDA $1FE0,X
                   0xBD, 0xEA, 0x1F, 0x20, E0_HEAD & 0xFF, 0x10 | E0_HEAD >> 8])  # LDA $1FEA,X; JSR $139C
    code += bytes([0x85, 0x02, 0xC6, 0xF0, 0xF0, 0x03, 0x4C, loop & 0xFF, loop >> 8])  # WSYNC; DEC; BEQ +3; JMP
    code += bytes([0x4C, frame & 0xFF, frame >> 8])                       # JMP frame
    rom[7 * 1024 + 0x200:7 * 1024 + 0x200 + len(code)] = code            # $1E00 (TABLE is at $1C00)
    rom[8192 - 4:] = bytes([0x00, 0xFE, 0x00, 0xFE])
    return bytes(rom)


@pytest.mark.parametrize("seed", [1, 2])
def test_e0_slices_switched_under_a_block_run_the_same(tmp_path, seed):
    """E0's blocks are keyed by the slice mapped at the program counter's segment: a routine whose slices
    are remapped under it, and which runs on into the next segment, steps exactly as in the interpreter."""
    path = tmp_path / f"e0-{seed}.bin"
    path.write_bytes(random_e0_cart(seed))
    made = blocks.generate(str(path))
    assert made is not None and made[2] > 0.3  # seven variants of the routine share the budget
    for frameskip in (1, 4):
        plain, fast = _twins(str(path), frameskip=frameskip)
        assert plain.console.info.scheme == "E0"
        _same_run(plain, fast, 300)


def _registers(e: Env) -> tuple:
    s = e.console.s
    return tuple(int(s[i]) for i in (A, X, Y, PC, SP, FC, FNZ, FN, CYC))


def _twins(rom, **kw) -> tuple[Env, Env]:
    """The same cartridge with and without its blocks (compiled first)."""
    blocks.prepare(rom)
    os.environ["ARCADE_LAB_BLOCKS"] = "0"
    try:
        plain = Env(rom, repeat_action_probability=0.0, seed=0, **kw)
    finally:
        del os.environ["ARCADE_LAB_BLOCKS"]
    fast = Env(rom, repeat_action_probability=0.0, seed=0, **kw)
    assert plain.console.s[FN_BLOCKS] == 0 and fast.console.s[FN_BLOCKS] != 0
    assert plain.console.s[FN_EXECUTE] != fast.console.s[FN_EXECUTE]
    return plain, fast


def _same_run(plain: Env, fast: Env, steps: int, seed: int = 5) -> None:
    actions = plain.action_set()
    for i, a in enumerate(np.random.default_rng(seed).integers(len(actions), size=steps)):
        assert plain.act(actions[a]) == fast.act(actions[a]), f"reward differs at step {i}"
        assert _registers(plain) == _registers(fast), f"CPU differs at step {i}"
        assert np.array_equal(plain.console.s[:N_SNAPSHOT], fast.console.s[:N_SNAPSHOT]), f"state differs at step {i}"
        assert np.array_equal(plain.screen(), fast.screen()), f"screen differs at step {i}"
        if plain.game_over():
            plain.reset()
            fast.reset()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_instruction_mix_runs_the_same_in_blocks(tmp_path, seed):
    path = tmp_path / f"mix{seed}.bin"
    path.write_bytes(random_cart(seed))
    made = blocks.generate(str(path))
    assert made is not None and made[2] > 0.9  # the hot loop is (nearly) all in blocks
    for frameskip in (1, 4):
        plain, fast = _twins(str(path), frameskip=frameskip)
        _same_run(plain, fast, 300)


@pytest.mark.parametrize("game", ["pong", "elevator_action", "tutankham"])  # 2K, F8 and E0 cartridges
def test_games_run_the_same_in_blocks(game):
    plain, fast = _twins(game, frameskip=4)
    _same_run(plain, fast, 1500)
    plain, fast = _twins(game, frameskip=1)
    _same_run(plain, fast, 1500, seed=6)


def test_blocks_survive_clone_and_restore():
    plain, fast = _twins("pong", frameskip=4)
    actions = plain.action_set()
    for e in (plain, fast):
        for a in range(30):
            e.act(actions[a % len(actions)])
    for e in (plain, fast):
        saved = e.clone_state()
        for _ in range(25):
            e.act(actions[1])
        e.restore_state(saved)
    _same_run(plain, fast, 200)


def test_blocks_off_by_environment(monkeypatch):
    blocks.prepare("pong")
    monkeypatch.setenv("ARCADE_LAB_BLOCKS", "0")
    assert Env("pong", seed=0).console.s[FN_BLOCKS] == 0


def test_a_damaged_cache_falls_back_to_the_interpreter(tmp_path, monkeypatch):
    monkeypatch.setattr(blocks, "folder", lambda: tmp_path)
    monkeypatch.setattr(blocks, "_LOADED", {})
    md5 = Env("pong", seed=0).console.info.md5
    source, table = blocks._paths(md5)
    source.write_text("this is not python (\n")
    np.save(table, np.zeros(16, np.int64))
    e = Env("pong", seed=0)
    assert e.console.s[FN_BLOCKS] == 0
    e.act(0)  # and it plays


def test_doctor_counts_the_compiled_blocks(tmp_path, monkeypatch):
    from arcade_lab import doctor

    monkeypatch.setattr(blocks, "folder", lambda: tmp_path)
    for md5 in ("a" * 32, "b" * 32):
        (tmp_path / f"blocks_{md5}.py").write_text("")
    found = {item: finding for item, _ok, finding, _advice in doctor.checks()}
    assert found["compiled blocks"].startswith("2 ROMs' hot blocks compiled")
    assert "other engine version" not in found["compiled blocks"]
    monkeypatch.setenv("ARCADE_LAB_BLOCKS", "0")
    found = {item: finding for item, _ok, finding, _advice in doctor.checks()}
    assert "(off: ARCADE_LAB_BLOCKS=0)" in found["compiled blocks"]


def _wait_for(condition, seconds: float) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.2)
    return condition()


def test_a_first_start_compiles_the_blocks_in_the_background(monkeypatch):
    """A console without cached blocks asks once for a child process to compile them; the environment's
    next reset after it finished runs them, exactly as the interpreter would."""
    from arcade_lab.engine import blocks_background as bg

    game = "haunted_house"  # one of the quickest to compile
    md5 = Env(game, seed=0).console.info.md5  # (the suite's setting: cached blocks only, no compile asked)
    monkeypatch.setenv("ARCADE_LAB_BLOCKS", "1")
    monkeypatch.setattr(bg, "_asked", set())
    lock, failed, log = bg._files(md5)
    for p in (*blocks._paths(md5), lock, failed):
        p.unlink(missing_ok=True)
    blocks._LOADED.pop(md5, None)
    e = Env(game, frameskip=4, repeat_action_probability=0.0, seed=0)
    assert e.console.s[FN_BLOCKS] == 0 and bg.asked(md5) and lock.exists()
    assert not bg.request(md5, game)  # asked once per process
    assert _wait_for(lambda: not lock.exists(), 300), "the background compile did not finish"
    assert blocks.cached(md5), log.read_text()
    e.reset()
    assert e.console.s[FN_BLOCKS] != 0
    monkeypatch.setenv("ARCADE_LAB_BLOCKS", "0")
    plain = Env(game, frameskip=4, repeat_action_probability=0.0, seed=0)
    plain.reset()  # the same history as ``e``
    _same_run(plain, e, 200)


def test_a_failed_background_compile_is_noted_and_not_retried(monkeypatch):
    from arcade_lab.engine import blocks_background as bg

    monkeypatch.setenv("ARCADE_LAB_BLOCKS", "1")
    monkeypatch.setattr(bg, "_asked", set())
    md5 = "0" * 32
    lock, failed, log = bg._files(md5)
    for p in (lock, failed, log):
        p.unlink(missing_ok=True)
    try:
        assert bg.request(md5, "no_such_game")
        assert _wait_for(failed.exists, 120), "the child left no note"
        assert _wait_for(lambda: not lock.exists(), 30)
        assert "no_such_game" in log.read_text()
        bg._asked.clear()
        assert not bg.request(md5, "no_such_game")  # not at every start
    finally:
        for p in (lock, failed, log):
            p.unlink(missing_ok=True)


def test_a_cartridge_without_blocks_is_noted_once(monkeypatch, tmp_path):
    """A scheme the generator has no key for (none of the catalogue's) leaves a note, so no later start
    asks again."""
    from arcade_lab.engine import blocks_background as bg

    monkeypatch.setattr(blocks, "folder", lambda: tmp_path)
    monkeypatch.setattr(blocks, "prepare", lambda game: "not applicable")
    monkeypatch.setattr(bg.os, "nice", lambda n: 0)  # in-process here: the test runner keeps its priority
    monkeypatch.setattr(bg, "_asked", set())
    monkeypatch.setenv("ARCADE_LAB_BLOCKS", "1")
    md5 = "c" * 32
    lock, failed, log = bg._files(md5)
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    assert bg._compile(md5, "pong") == 0
    assert "no blocks for this cartridge's scheme" in failed.read_text() and not lock.exists()
    assert not bg.request(md5, "pong")


def _stand_in_children(monkeypatch) -> list[str]:
    """Background compiles start a stand-in child (started, and done at once) instead of a process: the
    games (or ROM paths) they were started for, in order."""
    from arcade_lab.engine import blocks_background as bg

    started = []

    class Child:
        def __init__(self, args, **kwargs):
            started.append(args[-1])

        def wait(self):
            return 0

    monkeypatch.setattr(bg.subprocess, "Popen", Child)
    return started


def _background_sandbox(monkeypatch, tmp_path) -> list[str]:
    """An empty blocks cache in ``tmp_path``, nothing loaded or asked for in this process, background
    compiles on, and stand-in children (``_stand_in_children``)."""
    from arcade_lab.engine import blocks_background as bg

    monkeypatch.setattr(blocks, "folder", lambda: tmp_path)
    monkeypatch.setattr(blocks, "_LOADED", {})  # blocks loaded by earlier tests would be installed
    monkeypatch.setattr(bg, "_asked", set())
    monkeypatch.setenv("ARCADE_LAB_BLOCKS", "1")
    return _stand_in_children(monkeypatch)


def test_compiling_blocks_in_process_starts_no_background_compile(monkeypatch, tmp_path):
    """``arcade-lab warm --blocks`` and ``bench`` compile in their own process: the counting run's console
    must not start a child compiling the same blocks beside it (with two jobs over all games that was one
    child per game at once)."""
    from arcade_lab.engine import blocks_background as bg

    started = _background_sandbox(monkeypatch, tmp_path)
    blocks.count("pong", steps=20)
    md5 = Env("pong", seed=0).console.info.md5
    assert started == [] and not bg._files(md5)[0].exists()
    monkeypatch.setattr(bg, "_asked", set())  # a console of a process that is not compiling them asks
    Env("pong", seed=0)
    assert len(started) == 1


def test_one_background_compile_at_a_time(monkeypatch, tmp_path):
    """Environments made for many games start one compile, not one each; a game that found the place
    taken asks again with its next console."""
    started = _background_sandbox(monkeypatch, tmp_path)  # (a real child would remove its lock when done)
    for game in ("pong", "breakout", "boxing"):
        Env(game, seed=0)
    assert len(started) == 1 and started[0].endswith("pong.bin")
    next(tmp_path.glob("*.lock")).unlink()  # pong's compile is over
    Env("breakout", seed=0)
    assert len(started) == 2 and started[1].endswith("breakout.bin")


def test_warm_with_blocks_plays_the_games_without_starting_compiles(monkeypatch, tmp_path):
    """`arcade-lab warm --blocks` plays each game (its rules' kernels) and then compiles the blocks itself:
    the play starts no background compile of them."""
    from arcade_lab import warm

    started, compiled = _background_sandbox(monkeypatch, tmp_path), []
    monkeypatch.setattr(warm, "warm_blocks", lambda games, jobs: compiled.extend(games))
    assert warm.main(["--blocks", "--no-agents", "--game", "pong", "--games", "breakout,boxing"]) == 0
    assert compiled == ["pong", "breakout", "boxing"] and started == []


def test_cached_only_and_off_start_no_compile(monkeypatch):
    from arcade_lab.engine import blocks_background as bg

    started = _stand_in_children(monkeypatch)
    monkeypatch.setattr(bg, "_asked", set())
    for setting in ("cached", "0"):
        monkeypatch.setenv("ARCADE_LAB_BLOCKS", setting)
        assert not bg.request("1" * 32, "pong")
    assert started == []


def test_a_compile_removes_other_engine_versions_unused_blocks(tmp_path, monkeypatch):
    """An upgrade leaves the old engine's blocks folder behind (up to ~250 MB): a background compile removes
    other versions' folders unused for UNUSED_DAYS, and keeps its own, one whose stamp says another
    installation used it lately, one compiled into lately, and anything that is not a version's folder."""
    import os
    import time

    from arcade_lab import doctor
    from arcade_lab.engine import blocks_background as bg

    root = tmp_path / "blocks"
    here, old, stamped, recent = (root / n for n in ("a" * 16, "b" * 16, "c" * 16, "d" * 16))
    other = root / "not-a-version"
    for d in (here, old, stamped, recent, other):
        d.mkdir(parents=True)
        (d / "blocks_x.py").write_text("")
    (stamped / bg.USED).write_text("")
    now = time.time()
    for d, days in ((here, 90), (old, 40), (stamped, 40), (recent, 2), (other, 400)):
        os.utime(d, (now - days * 86400,) * 2)
    os.utime(stamped / bg.USED, (now - 3 * 86400,) * 2)
    monkeypatch.setattr(blocks, "folder", lambda: here)
    assert sorted(bg.other_versions()) == [old, stamped, recent]
    found = {item: finding for item, _ok, finding, _advice in doctor.checks()}
    assert "; 3 other engine version(s)' blocks hold 0 MB" in found["compiled blocks"]
    assert bg.prune(now) == [old]
    assert not old.exists() and all(d.is_dir() for d in (here, stamped, recent, other))
    assert bg.prune(now + 28 * 86400) == [stamped]  # 31 days after its stamp


def test_a_console_stamps_its_engine_versions_blocks_folder(tmp_path, monkeypatch):
    from arcade_lab.engine import blocks_background as bg

    monkeypatch.setattr(blocks, "folder", lambda: tmp_path)
    monkeypatch.setattr(bg, "_stamped", False)
    Env("pong", seed=0)
    assert (tmp_path / bg.USED).exists()
