"""arcade-lab-agent/1: reference clients in two languages play through the Runner; broken agents (crash,
hang, garbage) end their episode as ``failed`` with a reason, quickly, and the next episode recovers."""
from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from arcade_lab.agents.base import RunConfig, Runner
from arcade_lab.agents.external import ExternalAgentError, encode_png, make_external_agent, parse_spec

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PY_AGENT = f"{PY} {ROOT / 'examples/agents/random_agent.py'}"
SH_AGENT = f"sh {ROOT / 'examples/agents/random_agent.sh'}"
GAMES = ("pong", "breakout")


def runner(game: str, max_frames: int = 120) -> Runner:
    return Runner(RunConfig(game=game, protocol="custom", frameskip=4, repeat_action_probability=0.0,
                            max_frames=max_frames))


def play(spec: str, game: str = "pong", n: int = 1, max_frames: int = 120, **kw):
    r = runner(game, max_frames)
    agent = make_external_agent(spec, r.env, 0, **kw)
    try:
        return list(r.episodes(agent, n)), agent
    finally:
        agent.close()


def script(tmp_path, body: str) -> str:
    """A tiny misbehaving agent in plain Python (the handshake done right, then the fault)."""
    p = tmp_path / "agent.py"
    p.write_text("import json, sys, time\n"
                 "def send(m):\n    sys.stdout.write(json.dumps(m) + '\\n'); sys.stdout.flush()\n"
                 "hello = json.loads(sys.stdin.readline())\n"
                 "send({'type': 'hello', 'protocol': 'arcade-lab-agent/1', 'name': 'bad'})\n" + body)
    return f"ext:cmd:{PY} {p}"


# -- specs, PNG ----------------------------------------------------------------------------------------------
def test_parse_spec():
    assert parse_spec("ext:cmd:python a.py --x 1:2") == ("cmd", {"command": "python a.py --x 1:2"})
    assert parse_spec("ext:tcp:127.0.0.1:7777") == ("tcp", {"host": "127.0.0.1", "port": 7777})
    for bad in ("random", "ext:cmd:", "ext:tcp:host", "ext:tcp:h:99999", "ext:udp:x"):
        with pytest.raises(ValueError, match="ext:"):
            parse_spec(bad)


def test_png_roundtrip():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (21, 16, 3), dtype=np.uint8)
    png = encode_png(img)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # decode by hand: IHDR then one IDAT of filter-0 rows
    assert png[12:16] == b"IHDR"
    idat_len = int.from_bytes(png[33:37], "big")
    assert png[37:41] == b"IDAT"
    raw = zlib.decompress(png[41:41 + idat_len])
    rows = np.frombuffer(raw, np.uint8).reshape(21, 1 + 16 * 3)
    assert (rows[:, 0] == 0).all()
    assert np.array_equal(rows[:, 1:].reshape(21, 16, 3), img)
    cv2 = pytest.importorskip("cv2")
    dec = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(dec[..., ::-1], img)


# -- reference clients -------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("spec", [f"ext:cmd:{PY_AGENT} --sequence 3", f"ext:cmd:{SH_AGENT} 7"], ids=["python", "sh"])
def test_reference_clients_play_through_runner(spec, game):
    recs, agent = play(spec, game, n=2)
    assert len(recs) == 2
    for rec in recs:
        assert rec.ended_by == "truncated" and rec.notes == ""
        assert rec.steps == 30 and len(rec.actions) == 30
        assert set(rec.actions.tolist()) <= set(agent.actions)
        assert rec.player.startswith("agent:ext:random-")
        ext = rec.extra["external"]
        assert ext["protocol"] == "arcade-lab-agent/1"
        # the Python client answers with 3 actions at a time: a third of the requests
        assert ext["requests"] == (10 if "--sequence 3" in spec else 30)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_client_plays():
    recs, _ = play(f"ext:cmd:node {ROOT / 'examples/agents/random_agent.js'}", "breakout")
    assert recs[0].ended_by == "truncated" and recs[0].steps == 30


def test_observation_kinds_reach_the_client(tmp_path):
    """A client asking for PNG screens gets a decodable RGB frame of the current screen plus 128 RAM bytes."""
    out = tmp_path / "seen.txt"
    spec = script(tmp_path, "import base64, zlib\n"
                            "m = json.loads(sys.stdin.readline())\n"
                            "png = base64.b64decode(m['screen']['data']); ram = base64.b64decode(m['ram'])\n"
                            f"open({str(out)!r}, 'w').write(f\"{{m['screen']['kind']}} {{m['screen']['shape']}} {{png[:4]!r}} {{len(ram)}} {{len(hello['actions'])}} {{hello['observation']['kind']}}\")\n"
                            "send({'type': 'action', 'action': 'FIRE'})\n"
                            "for line in sys.stdin:\n"
                            "    if json.loads(line)['type'] == 'observation': send({'type': 'action', 'action': 0})\n")
    recs, _ = play(spec, "pong", observation="png")
    assert recs[0].ended_by == "truncated"
    assert recs[0].actions[0] == 1  # "FIRE" by name
    assert out.read_text() == "png [210, 160, 3] b'\\x89PNG' 128 6 png"


def test_tcp_transport():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([PY, str(ROOT / "examples/agents/random_agent.py"), "--tcp", str(port)],
                            stderr=subprocess.PIPE)
    try:
        assert b"listening" in proc.stderr.readline()
        for game in GAMES:
            recs, agent = play(f"ext:tcp:127.0.0.1:{port}", game)
            assert recs[0].ended_by == "truncated" and recs[0].steps == 30
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()


def test_tcp_nobody_listening():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    recs, _ = play(f"ext:tcp:127.0.0.1:{port}", handshake_timeout=2)
    assert recs[0].ended_by == "failed" and "cannot connect" in recs[0].notes


# -- broken agents ---------------------------------------------------------------------------------------------
def test_crashing_agent(tmp_path):
    spec = script(tmp_path, "sys.stdin.readline()\nprint('boom: agent bug', file=sys.stderr)\nsys.exit(3)\n")
    t0 = time.monotonic()
    recs, _ = play(spec, n=2, step_timeout=20)
    assert time.monotonic() - t0 < 10  # EOF is noticed at once, not after the timeout
    for rec in recs:  # the second episode restarts the agent and fails the same way
        assert rec.ended_by == "failed" and rec.steps == 0
        assert "closed the connection" in rec.notes and "exit status 3" in rec.notes and "boom" in rec.notes


def test_hanging_agent(tmp_path):
    spec = script(tmp_path, "time.sleep(60)\n")
    t0 = time.monotonic()
    recs, _ = play(spec, step_timeout=1.0)
    assert time.monotonic() - t0 < 8
    assert recs[0].ended_by == "failed" and "waited 1 s for an action" in recs[0].notes
    assert "hanging" in recs[0].notes


def test_agent_hanging_mid_episode(tmp_path):
    spec = script(tmp_path, "for i in range(5):\n    sys.stdin.readline(); send({'type': 'action', 'action': 0})\n"
                            "time.sleep(60)\n")
    recs, _ = play(spec, step_timeout=1.0)
    assert recs[0].ended_by == "failed" and recs[0].steps == 5 and len(recs[0].actions) == 5


@pytest.mark.parametrize("reply, words", [
    ("this is not json", "not JSON"),
    ('{"no_type": 1}', "want a JSON object"),
    ('{"type": "action"}', 'without "action"'),
    ('{"type": "action", "action": 17}', "not in this game's action set"),
    ('{"type": "action", "action": "JUMP"}', "not one of"),
    ('{"type": "action", "actions": []}', "non-empty list"),
    ('{"type": "error", "message": "out of memory"}', "out of memory"),
])
def test_malformed_replies(tmp_path, reply, words):
    spec = script(tmp_path, f"sys.stdin.readline()\nsys.stdout.write({reply!r} + '\\n'); sys.stdout.flush()\n"
                            "time.sleep(60)\n")
    t0 = time.monotonic()
    recs, _ = play(spec, step_timeout=5)
    assert time.monotonic() - t0 < 8
    assert recs[0].ended_by == "failed" and words in recs[0].notes, recs[0].notes


def test_wrong_protocol_version(tmp_path):
    p = tmp_path / "old.py"
    p.write_text("import sys\nsys.stdin.readline()\nprint('{\"type\": \"hello\", \"protocol\": \"arcade-lab-agent/0\"}', flush=True)\n"
                 "sys.stdin.read()\n")
    recs, _ = play(f"ext:cmd:{PY} {p}")
    assert recs[0].ended_by == "failed" and "arcade-lab-agent/0" in recs[0].notes


def test_missing_command():
    recs, _ = play("ext:cmd:/nonexistent/agent-binary", step_timeout=5)
    assert recs[0].ended_by == "failed" and "exit status 127" in recs[0].notes


def test_direct_use_raises_clear_error(tmp_path):
    r = runner("pong")
    agent = make_external_agent(script(tmp_path, "sys.exit(0)\n"), r.env, 0, step_timeout=5)
    agent.actions = r.env.action_set()
    # the agent may be gone before the hello is written (broken pipe) or after (end of stream)
    with pytest.raises(ExternalAgentError, match="closed the connection|cannot send to the agent"):
        agent.begin_episode(r.observation())
    agent.close()


def test_hello_describes_the_game(tmp_path):
    out = tmp_path / "hello.json"
    spec = script(tmp_path, f"open({str(out)!r}, 'w').write(json.dumps(hello))\nsys.stdin.read()\n")
    r = runner("breakout")
    agent = make_external_agent(spec, r.env, 5, step_timeout=1)
    list(r.episodes(agent, 1))
    agent.close()
    import json
    h = json.loads(out.read_text())
    assert h["protocol"] == "arcade-lab-agent/1" and h["game"] == "breakout"
    assert h["actions"] == [0, 1, 3, 4] and h["action_meanings"] == ["NOOP", "FIRE", "RIGHT", "LEFT"]
    assert h["frameskip"] == 4 and h["seed"] == 5
    assert h["observation"] == {"kind": "indices", "shape": [210, 160], "kinds": ["indices", "png", "none"], "ram": True}
    assert len(base64.b64decode(h["palette"])) % 3 == 0


@pytest.mark.parametrize("client", ["random_agent.py", "random_agent.sh"])
def test_example_clients_follow_the_seed_of_the_hello(client):
    """AtariBench's seeds 0-9 differ only through the agent (no sticky actions): the clients must use it."""
    import subprocess
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "agents" / client
    cmd = [sys.executable, str(path)] if client.endswith(".py") else ["sh", str(path)]

    def actions(seed):
        hello = {"type": "hello", "protocol": "arcade-lab-agent/1", "game": "pong", "actions": [0, 1, 3, 4, 11, 12],
                 "seed": seed}
        lines = [json.dumps(hello, separators=(",", ":"))] + ['{"type":"observation"}'] * 30 + ['{"type":"bye"}']
        out = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60).stdout
        return [json.loads(x).get("action", json.loads(x).get("actions")) for x in out.splitlines()[1:]]

    a, b = actions(1), actions(2)
    assert len(a) == 30 and a == actions(1) and a != b
