"""ROM catalog: lookups by id, path and md5; every bad-input case gives RomError naming file and reason."""
from __future__ import annotations

import hashlib
import os
import random

import pytest

from arcade_lab import engine
from arcade_lab.engine import roms
from arcade_lab.engine.roms import RomError


def test_list_games_is_the_104_ale_supports():
    games = engine.list_games()
    assert len(games) == 104
    assert "pong" in games and "montezuma_revenge" in games
    for unsupported in ("combat", "joust", "maze_craze", "warlords"):
        assert unsupported not in games
    assert games == sorted(games)


def test_scan_finds_108_files_104_supported(ale_roms):
    infos = [i for i in roms.scan() if i.path.parent == ale_roms]
    assert len(infos) == 108
    assert sum(i.supported for i in infos) == 104
    for i in infos:
        assert i.md5 == hashlib.md5(i.path.read_bytes()).hexdigest()


def test_detected_scheme_matches_ale_for_every_bundled_rom(ale_roms):
    table = roms.rom_table()
    for info in roms.scan():
        entry = table.get(info.md5)
        if entry is None or info.path.parent != ale_roms:
            continue
        assert info.scheme == entry.ale_scheme, info.id


def test_lookup_by_id_path_and_md5(ale_roms):
    by_id = roms.find("pong")
    assert by_id.id == "pong" and by_id.supported and by_id.scheme == "2K"
    by_path = roms.find(str(ale_roms / "breakout.bin"))
    assert by_path.id == "breakout"
    by_md5 = roms.find("3347a6dd59049b15a38394aa2dafa585")
    assert by_md5.id == "montezuma_revenge" and by_md5.scheme == "E0"
    assert engine.rom_path("seaquest").name == "seaquest.bin"
    assert roms.find("pitfall2").scheme == "DPC"


def test_unknown_rom_is_listed_and_playable_without_rules(tmp_path, ale_roms):
    data = bytearray((ale_roms / "pong.bin").read_bytes())
    data[100] ^= 0xFF  # a hacked ROM: new md5
    p = tmp_path / "my_hack.bin"
    p.write_bytes(bytes(data))
    info = roms.find(str(p))
    assert info.id == "my_hack" and not info.supported and not info.known
    assert info.rules_label == "no game rules"
    listed = roms.scan([tmp_path])
    assert any(i.path == p for i in listed)


def test_renamed_hack_keeps_the_rules_by_file_stem_like_ale(tmp_path, ale_roms):
    data = bytearray((ale_roms / "pong.bin").read_bytes())
    data[200] ^= 0x01
    p = tmp_path / "pong.bin"
    p.write_bytes(bytes(data))
    info = roms.find(str(p))
    assert info.id == "pong" and info.supported and not info.known


@pytest.mark.parametrize("case", ["missing", "empty", "directory", "impossible_size", "huge", "unreadable",
                                  "bad_gzip"])
def test_bad_input_raises_rom_error_naming_file_and_reason(tmp_path, case):
    p = tmp_path / f"{case}.bin"
    if case == "empty":
        p.write_bytes(b"")
    elif case == "directory":
        p.mkdir()
    elif case == "impossible_size":
        p.write_bytes(bytes(random.Random(1).getrandbits(8) for _ in range(3000)))
    elif case == "huge":
        p.write_bytes(b"\0" * (1024 * 1024))
    elif case == "unreadable":
        p.write_bytes(b"\0" * 4096)
        os.chmod(p, 0)
        if os.access(p, os.R_OK):  # running as root: permissions are not enforced
            pytest.skip("cannot make a file unreadable for this user")
    elif case == "bad_gzip":
        p.write_bytes(b"\x1f\x8b" + b"garbage" * 10)
    with pytest.raises(RomError) as ei:
        roms.read_rom(p)
    msg = str(ei.value)
    assert str(p) in msg and ei.value.reason and ei.value.reason in msg


def test_random_bytes_of_a_cartridge_size_are_a_loadable_rom(tmp_path):
    p = tmp_path / "noise.bin"
    p.write_bytes(bytes(random.Random(7).getrandbits(8) for _ in range(4096)))
    info = roms.find(str(p))
    assert info.scheme in ("4K", "2K", "CV") and not info.supported


def test_unknown_game_id_and_md5():
    with pytest.raises(RomError, match="unknown game id"):
        roms.find("definitely_not_a_game")
    with pytest.raises(RomError, match="unknown game id"):
        engine.rom_path("nope")
    with pytest.raises(RomError, match="md5"):
        roms.find("0" * 32)


def test_ale_rom_dir_does_not_import_the_extension():
    import sys

    before = "ale_py._ale_py" in sys.modules
    roms.ale_rom_dir()
    assert ("ale_py._ale_py" in sys.modules) == before


@pytest.mark.parametrize("size,seed", [(2048, 1), (4096, 2), (4096, 3), (8192, 4), (16384, 5), (32768, 6)])
def test_garbage_cartridges_run_frames(tmp_path, size, seed):
    """Random bytes as a cartridge (JAMs, endless loops, wild bank switches and TIA writes) still yield
    frames — ALE's partial-frame rule ends each one after 25 000 instructions — and never hang or crash."""
    from arcade_lab.engine.env import Env

    p = tmp_path / f"noise{seed}.bin"
    p.write_bytes(random.Random(seed).randbytes(size))
    env = Env(str(p), repeat_action_probability=0.0, seed=seed)
    start = env.frame_number
    for k in range(60):
        env.act(k % 18)
    assert env.frame_number == start + 60
    assert env.screen().shape[1] == 160 and env.ram().shape == (128,)


def test_an_unknown_game_id_names_the_id_meant():
    from arcade_lab.engine.env import Env

    for query, meant in (("Breakout", "breakout"), ("MsPacman", "ms_pacman"), ("brekout", "breakout"),
                         ("ALE/MontezumaRevenge-v5", "montezuma_revenge"), ("PongNoFrameskip-v4", "pong")):
        with pytest.raises(RomError, match=f"did you mean '{meant}'"):
            Env(query)
    with pytest.raises(RomError, match="Gymnasium id"):
        Env("ArcadeLab/Breakout-v5")
    with pytest.raises(RomError, match="unknown game id 'qqqq' \\(game ids are snake_case"):
        Env("qqqq")
