"""Save-state files (round trip through disk, refusals) and rewind (back to an exact earlier frame)."""
from __future__ import annotations

import numpy as np
import pytest

from arcade_lab.app import statefile
from arcade_lab.app.session import InputFrame, PlaySession, Rewind, Snapshot
from arcade_lab.app.statefile import Slots, StateFileError


def _play(sess: PlaySession, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        sess.step(InputFrame(fire=(i // 7) % 2 == 0, left=(i // 20) % 3 == 0, right=(i // 20) % 3 == 1))


@pytest.fixture(scope="module")
def pong():
    s = PlaySession("pong")
    _play(s, 200)
    return s


def test_state_round_trip_through_disk_continues_exactly(pong, tmp_path):
    slots = Slots(tmp_path / "states")
    md5 = pong.info.md5
    path = slots.save(md5, 3, statefile.from_session(pong, label="before serve"))
    assert path.exists() and path.name == "slot-3.a26s"
    screen0, ram0 = pong.screen().copy(), pong.console.ram().copy()
    _play(pong, 90, 200)
    ref_screen, ref_ram, ref_score = pong.screen().copy(), pong.console.ram().copy(), pong.score

    other = PlaySession("pong")        # a fresh process's view: load from disk into a new session
    st = slots.load(md5, 3)
    assert st.label == "before serve" and st.header["game"] == "pong" and st.png.startswith(b"\x89PNG")
    statefile.to_session(st, other)
    np.testing.assert_array_equal(other.screen(), screen0)
    np.testing.assert_array_equal(other.console.ram(), ram0)
    _play(other, 90, 200)
    np.testing.assert_array_equal(other.screen(), ref_screen)
    np.testing.assert_array_equal(other.console.ram(), ref_ram)
    assert other.score == ref_score
    [e] = slots.entries(md5)
    assert e.slot == 3 and e.state is not None and e.state.frame == st.frame


def test_rename_delete_export_import(pong, tmp_path):
    slots = Slots(tmp_path / "states")
    md5 = pong.info.md5
    slots.save(md5, 0, statefile.from_session(pong))
    slots.rename(md5, 0, "my run")
    assert slots.load(md5, 0).label == "my run"
    out = slots.export(md5, 0, tmp_path / "shared.a26s")
    slots.delete(md5, 0)
    assert slots.entries(md5) == []
    assert slots.import_file(out, md5) == (md5, 0)
    assert slots.load(md5, 0).label == "my run"


def test_an_import_with_every_slot_taken_is_refused_not_put_out_of_reach(pong, tmp_path):
    slots = Slots(tmp_path / "states")
    md5 = pong.info.md5
    st = statefile.from_session(pong)
    for slot in range(statefile.N_SLOTS):
        slots.save(md5, slot, st)
    out = statefile.write(tmp_path / "one-more.a26s", st)
    with pytest.raises(StateFileError, match=f"^all {statefile.N_SLOTS} slots of this game hold states"):
        slots.import_file(out, md5)
    assert [e.slot for e in slots.entries(md5)] == list(range(statefile.N_SLOTS))
    slots.delete(md5, 3)
    assert slots.import_file(out, md5) == (md5, 3)


def test_refuses_state_of_another_rom(pong, tmp_path):
    slots = Slots(tmp_path / "states")
    st = statefile.from_session(pong)
    breakout = PlaySession("breakout")
    before = breakout.s.copy()
    with pytest.raises(StateFileError, match="saved for Pong"):
        statefile.to_session(st, breakout)
    np.testing.assert_array_equal(breakout.s, before)       # nothing was touched
    path = statefile.write(tmp_path / "pong.a26s", st)
    with pytest.raises(StateFileError, match="^This state was saved for Pong, not for Breakout: open Pong first.$"):
        slots.import_file(path, breakout.info.md5, breakout.info.title)
    with pytest.raises(StateFileError, match=r"another ROM of Pong \(md5 [0-9a-f]{8}…\), not for the one loaded"):
        slots.import_file(path, breakout.info.md5, "Pong")   # another ROM of the same game


@pytest.mark.parametrize("damage", ["truncate", "flip", "version", "garbage", "empty"])
def test_refuses_truncated_corrupt_and_unknown_files(pong, tmp_path, damage):
    slots = Slots(tmp_path / "states")
    md5 = pong.info.md5
    path = slots.save(md5, 1, statefile.from_session(pong))
    blob = bytearray(path.read_bytes())
    if damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "flip":
        blob[len(blob) // 3] ^= 0x40
    elif damage == "version":
        blob[8] = 99
    elif damage == "garbage":
        blob = bytearray(b"hello world" * 10)
    else:
        blob = bytearray()
    path.write_bytes(bytes(blob))
    msg = {"truncate": "truncated", "flip": "damaged", "version": "version 99", "garbage": "Not an Arcade Lab",
           "empty": "Not an Arcade Lab"}[damage]
    with pytest.raises(StateFileError, match=msg):
        slots.load(md5, 1)
    [e] = slots.entries(md5)           # listings show the broken file instead of failing
    assert e.state is None and e.error


def test_png_is_a_valid_image(pong):
    png = statefile.png_bytes(pong.palette()[pong.screen()])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"IHDR" in png[:20] and png.endswith(b"IEND\xaeB`\x82")


def test_rewind_returns_to_an_earlier_frame_exactly():
    sess = PlaySession("seaquest")
    ring = Rewind(frame_rate=60, keep_s=20, tiers_s=(1.0, 5.0))
    seen = {}
    for i in range(1500):
        sess.step(InputFrame(fire=i % 9 < 4, down=(i // 50) % 2 == 0, left=(i // 80) % 2 == 0))
        ring.push(sess.snapshot())
        seen[sess.frame_number] = (sess.screen().copy(), sess.console.ram().copy())
    newest = sess.frame_number
    frames = []
    for t in ring.tiers:
        frames.extend(s.frame for s in t)
    # every frame for the last second, every 4th to 5 s, every 32nd beyond, nothing beyond 20 s
    assert all(newest - f <= 60 for f in (s.frame for s in ring.tiers[0]))
    assert all(f % 4 == 0 for f in (s.frame for s in ring.tiers[1]))
    assert all(f % 32 == 0 for f in (s.frame for s in ring.tiers[2]))
    assert newest - ring.oldest_frame() <= 1200 and len(ring) < 200
    # hold rewind for a while: each pop goes further back and shows that frame's picture and RAM
    last = newest + 1
    assert len(ring) > 130
    for _ in range(130):
        snap = ring.pop()
        sess.restore(snap)
        assert sess.frame_number == snap.frame < last
        last = snap.frame
        screen, ram = seen[snap.frame]
        np.testing.assert_array_equal(sess.screen(), screen)
        np.testing.assert_array_equal(sess.console.ram(), ram)
    # branch: play on from here; the ring keeps what is older and grows again
    older = len(ring)
    sess.step(InputFrame())
    ring.push(sess.snapshot())
    assert len(ring) == older + 1 and sess.frame_number == last + 1


def test_snapshot_is_cheap():
    import time

    sess = PlaySession("pong")
    t = time.perf_counter()
    for _ in range(200):
        snap = sess.snapshot()
    dt = (time.perf_counter() - t) / 200
    assert isinstance(snap, Snapshot) and dt < 0.002   # well under a frame (16.7 ms)
