"""AtariBench harness: parser and prompt units, the OpenAI-compatible client against a real HTTP server on
loopback (valid, invalid -> NOOP, slow -> timeout, errors), and every game x seeds 0-9 end to end."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from arcade_lab.agents.atari_bench import (GAME_IDS, GAMES, BenchConfig, Memory, ModelError, OpenAIChatClient, PromptBuilder,
                                RandomClient, ScriptedClient, make_env, normalize_action, parse_response, reseed,
                                run_bench, run_episode, scores_table)
from arcade_lab.agents.atari_bench.cli import atari_bench_main, parse_seeds
from arcade_lab.agents.atari_bench.prompt import (FEEDBACK_LIFE, FEEDBACK_POSITIVE, AppendOnlyTranscript, Clip,
                                       feedback_lines, redact_images)
from arcade_lab.agents.evaluation.store import Store

FULL = ['NOOP', 'FIRE', 'UP', 'RIGHT', 'LEFT', 'DOWN', 'UPRIGHT', 'UPLEFT', 'DOWNRIGHT', 'DOWNLEFT', 'UPFIRE',
        'RIGHTFIRE', 'LEFTFIRE', 'DOWNFIRE', 'UPRIGHTFIRE', 'UPLEFTFIRE', 'DOWNRIGHTFIRE', 'DOWNLEFTFIRE']
BREAKOUT = ["NOOP", "FIRE", "RIGHT", "LEFT"]
TINY = BenchConfig(horizon_seconds=0.2)  # 12 frames: two turns of one action


# -- the 20 games -----------------------------------------------------------------------------------------
def test_twenty_games_map_to_engine_ids():
    from arcade_lab import engine

    assert len(GAME_IDS) == 20
    assert set(GAME_IDS) <= set(engine.list_games())
    assert {g.category for g in GAMES.values()} == {"Shooter", "Sports", "Action", "Maze"}


# -- parsing ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("token, name", [
    ("UP-RIGHT", "UPRIGHT"), ("upright", "UPRIGHT"), ("Up Right", "UPRIGHT"), ("right_up", "UPRIGHT"),
    ("Right+Fire", "RIGHTFIRE"), ("fire right", "RIGHTFIRE"), ("NO-OP", "NOOP"), ("no op", "NOOP"),
    ("wait", "NOOP"), ("shoot", "FIRE"), ("Down-Left-Fire", "DOWNLEFTFIRE"), ("'LEFT'", "LEFT"),
    ("LEFT RIGHT", None), ("UP DOWN", None), ("jump", None), ("", None),
])
def test_normalize_action(token, name):
    assert normalize_action(token, FULL) == name


def test_normalize_checks_the_game_action_set():
    assert normalize_action("up", BREAKOUT) is None
    assert normalize_action("serve", BREAKOUT) == "FIRE"


@pytest.mark.parametrize("text, actions, thought", [
    ("Thought: ball falls left\nActions: LEFT, LEFT, FIRE", ["LEFT", "LEFT", "FIRE"], "ball falls left"),
    ('```json\n{"thought": "go", "actions": ["right", "Fire"]}\n```', ["RIGHT", "FIRE"], "go"),
    ('{"Thought": "x", "Actions": "left, right"}', ["LEFT", "RIGHT"], "x"),
    ("**Thought:** hm\n**Actions:** [RIGHT, NOOP]", ["RIGHT", "NOOP"], "hm"),
    ("Thought: list\nActions:\n- LEFT\n- FIRE", ["LEFT", "FIRE"], "list"),
    ("Actions: LEFT x3, fire", ["LEFT", "LEFT", "LEFT", "FIRE"], ""),
    ("Actions: LEFT RIGHT", ["LEFT", "RIGHT"], ""),
    ("left", ["LEFT"], ""),
    ("Thought: first draft\nActions: LEFT\nThought: no, better\nActions: RIGHT", ["RIGHT"], "no, better"),
])
def test_parse_valid(text, actions, thought):
    p = parse_response(text, BREAKOUT)
    assert p.valid and p.actions == actions and p.thought == thought


@pytest.mark.parametrize("text, actions, err", [
    ("", ["NOOP"], "empty"),
    (None, ["NOOP"], "empty"),
    ("I think I should probably move towards the ball somewhere", ["NOOP"], "no actions"),
    ("Thought: x\nActions: LEFT, DANCE", ["LEFT", "NOOP"], "DANCE"),
    ("Actions: UP", ["NOOP"], "UP"),  # not a Breakout action
])
def test_parse_invalid_falls_back_to_noop(text, actions, err):
    p = parse_response(text, BREAKOUT)
    assert not p.valid and p.actions == actions and err in " ".join(p.errors)


def test_parse_caps_at_ten_actions():
    p = parse_response("Actions: " + ", ".join(["LEFT"] * 14), BREAKOUT)
    assert p.actions == ["LEFT"] * 10 and p.valid and "kept the first 10" in p.errors[0]


# -- prompt and memory ---------------------------------------------------------------------------------------
def clip(i, reward=0.0, life=False, n=2):
    return Clip(decision=i, time_s=i * 0.2, start_png=b"S%d" % i, actions=["LEFT"] * n,
                frames=[b"F%d" % i] * n, feedback=[feedback_lines(reward, life, False)] * n, reward=reward, life_lost=life)


def test_feedback_text():
    assert feedback_lines(1, False, False) == [FEEDBACK_POSITIVE]
    assert feedback_lines(-1, True, False) == ["Feedback: You received a negative score!", FEEDBACK_LIFE]
    assert feedback_lines(0, False, False) == []


def test_structured_memory_buffers():
    m = Memory(3, 3)
    for i in range(6):
        m.add(clip(i, reward=1.0 if i in (0, 2) else 0.0, life=(i == 4)))
    assert [c.decision for c in m.recent] == [3, 4, 5]
    assert [c.decision for c in m.rewards] == [0, 2, 4]  # the life loss counts as reward-relevant
    for i in range(6, 10):
        m.add(clip(i, reward=5.0))
    assert [c.decision for c in m.rewards] == [7, 8, 9]


def test_structured_prompt_layout():
    b = PromptBuilder(GAMES["breakout"], BREAKOUT)
    m = Memory(3, 3)
    m.add(clip(0, reward=1.0))
    m.add(clip(1))
    msgs = b.structured(m, b"CUR", 0.4)
    assert len(msgs) == 1 and msgs[0]["role"] == "user"
    parts = msgs[0]["content"]
    text = "\n".join(p["text"] for p in parts if p["type"] == "text")
    for want in ("Breakout", "- FIRE: launch", "- LEFT:", "0.1 s", "30 seconds", "restarts immediately",
                 "Reward and life-loss history", "Recent history", "Current game state", "Actions: <1 to 10"):
        assert want in text, want
    assert text.index("Reward and life-loss") < text.index("Recent history") < text.index("Current game state")
    imgs = [p for p in parts if p["type"] == "image_url"]
    assert len(imgs) == 1 + 3 * 3  # current + clip 0 (reward and recent) + clip 1, each start + 2 frames
    assert imgs[-1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert FEEDBACK_POSITIVE in text
    red = redact_images(msgs)
    assert all(p["type"] != "image_url" for p in red[0]["content"])


def test_append_only_transcript_grows():
    t = AppendOnlyTranscript(PromptBuilder(GAMES["pacman"], ["NOOP", "UP", "RIGHT", "LEFT", "DOWN"]))
    m1 = t.prompt(None, None, b"A", 0.0)
    assert [m["role"] for m in m1] == ["user"]
    m2 = t.prompt(clip(0, reward=1.0), "Thought: a\nActions: LEFT, LEFT", b"B", 0.2)
    assert [m["role"] for m in m2] == ["user", "assistant", "user"]
    assert m2[1]["content"].startswith("Thought: a")
    assert FEEDBACK_POSITIVE in json.dumps(m2[2])
    assert len(t.prompt(clip(1), "x", b"C", 0.4)) == 5


# -- a chat-completions server on loopback ----------------------------------------------------------------------
class ChatServer:
    """``behaviour(body, n) -> reply text | (status, text) | ("sleep", seconds, text)``."""

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.headers.append(dict(self.headers))
                r = outer.behaviour(body, len(outer.requests))
                status = 200
                if isinstance(r, tuple) and r[0] == "sleep":
                    time.sleep(r[1])
                    r = r[2]
                if isinstance(r, tuple):
                    status, r = r
                payload = (json.dumps({"choices": [{"message": {"role": "assistant", "content": r}}],
                                       "usage": {"prompt_tokens": 10, "completion_tokens": 3}})
                           if status == 200 else json.dumps({"error": {"message": r}})).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def chat():
    servers = []

    def start(behaviour):
        s = ChatServer(behaviour)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def test_client_valid_reply_and_request_shape(chat, monkeypatch):
    srv = chat(lambda body, n: "Thought: ok\nActions: FIRE")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    c = OpenAIChatClient(srv.url, "m1", timeout=5)
    msgs = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert c.complete(msgs) == "Thought: ok\nActions: FIRE"
    assert srv.requests[0]["model"] == "m1" and srv.requests[0]["messages"] == msgs
    assert srv.headers[0]["Authorization"] == "Bearer sk-test"
    assert c.usage["prompt_tokens"] == 10 and "sk-test" not in json.dumps(c.describe())


def test_client_settings_and_env(monkeypatch):
    monkeypatch.setenv("ARCADE_LAB_VLM_ENDPOINT", "http://h:1/v1/chat/completions")
    monkeypatch.setenv("ARCADE_LAB_VLM_MODEL", "envmodel")
    c = OpenAIChatClient()
    assert c.url == "http://h:1/v1/chat/completions" and c.name == "envmodel"
    c = OpenAIChatClient(settings={"vlm_endpoint": "http://s/v1", "vlm_model": "sm"})
    assert c.url == "http://s/v1/chat/completions" and c.name == "sm"
    monkeypatch.delenv("ARCADE_LAB_VLM_ENDPOINT")
    with pytest.raises(ValueError, match="ARCADE_LAB_VLM_ENDPOINT"):
        OpenAIChatClient()
    with pytest.raises(ValueError, match="http"):
        OpenAIChatClient("ftp://x", "m")


def test_client_retries_server_errors(chat):
    srv = chat(lambda body, n: (503, "busy") if n == 1 else "Actions: LEFT")
    c = OpenAIChatClient(srv.url, "m", timeout=5, retries=2, backoff=0.01)
    assert c.complete([]) == "Actions: LEFT" and len(srv.requests) == 2


def test_client_does_not_retry_client_errors(chat):
    srv = chat(lambda body, n: (401, "bad key"))
    c = OpenAIChatClient(srv.url, "m", timeout=5, retries=3, backoff=0.01)
    with pytest.raises(ModelError, match="HTTP 401.*bad key"):
        c.complete([])
    assert len(srv.requests) == 1


def test_client_timeout(chat):
    srv = chat(lambda body, n: ("sleep", 1.5, "Actions: LEFT"))
    c = OpenAIChatClient(srv.url, "m", timeout=0.3, retries=1, backoff=0.01)
    t0 = time.monotonic()
    with pytest.raises(ModelError, match="within 0.3 s.*2 attempts"):
        c.complete([])
    assert time.monotonic() - t0 < 2.0


def test_client_unreachable():
    c = OpenAIChatClient("http://127.0.0.1:9/v1", "m", timeout=2, retries=0)
    with pytest.raises(ModelError, match="cannot reach|failed"):
        c.complete([])


# -- the harness ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def breakout_env():
    return make_env("breakout", TINY)


def test_reseed_matches_a_fresh_env(breakout_env):
    from arcade_lab.engine import Env

    reseed(breakout_env, 3)
    fresh = Env("breakout", frameskip=6, repeat_action_probability=0.0, seed=3)
    reseed(fresh, 3)
    for a in (1, 3, 3, 4, 1, 0, 3):
        assert breakout_env.act(a) == fresh.act(a)
    assert np.array_equal(breakout_env.screen(), fresh.screen())


def test_episode_valid_then_invalid_reply(chat, breakout_env):
    srv = chat(lambda body, n: "Thought: serve\nActions: FIRE" if n == 1 else "I refuse to play")
    client = OpenAIChatClient(srv.url, "vlm-x", timeout=5)
    rec = run_episode(breakout_env, client, 0, TINY)
    assert rec.protocol == "atari_bench" and rec.player == "agent:vlm:vlm-x" and rec.seed == 0
    assert rec.ended_by == "truncated" and rec.frames == 12 and rec.steps == 2 and rec.max_frames == 12
    assert rec.actions.tolist() == [1, 0]  # FIRE, then the NOOP fallback
    ab = rec.extra["atari_bench"]
    assert ab["turns"] == 2 and ab["invalid_replies"] == 1 and ab["control_hz"] == 10
    d0, d1 = ab["decisions"]
    assert d0["valid"] and d0["actions"] == ["FIRE"] and d0["thought"] == "serve" and d0["usage"]["prompt_tokens"] == 10
    assert not d1["valid"] and d1["raw"] == "I refuse to play" and d1["actions"] == ["NOOP"]
    assert "content" in d0["prompt"] and "content" not in d1["prompt"]  # the first prompt in full only
    # the second prompt carries the first turn as recent history: start frame + one result frame + current
    imgs = [p for p in srv.requests[1]["messages"][0]["content"] if p["type"] == "image_url"]
    assert len(imgs) == 3
    json.dumps(rec.to_dict())  # storable as JSON


def test_episode_sequences_and_horizon(breakout_env):
    client = ScriptedClient(["Actions: " + ", ".join(["RIGHT"] * 10)])
    rec = run_episode(breakout_env, client, 1, BenchConfig(horizon_seconds=1.0))
    # 60 frames = 10 actions of 6 frames: one turn suffices
    assert rec.steps == 10 and rec.frames == 60 and rec.extra["atari_bench"]["turns"] == 1
    rec = run_episode(breakout_env, client, 1, BenchConfig(horizon_seconds=0.25))  # 15 frames: 6 + 6 + 3
    assert rec.steps == 3 and rec.frames == 15


def test_slow_model_times_out_and_fails_the_episode(chat, breakout_env):
    srv = chat(lambda body, n: ("sleep", 1.0, "Actions: FIRE"))
    client = OpenAIChatClient(srv.url, "slow", timeout=0.2, retries=0)
    t0 = time.monotonic()
    rec = run_episode(breakout_env, client, 0, BenchConfig(horizon_seconds=5, max_consecutive_failures=2))
    assert time.monotonic() - t0 < 3
    assert rec.ended_by == "failed" and "2 turns in a row" in rec.notes and "within 0.2 s" in rec.notes
    ab = rec.extra["atari_bench"]
    assert ab["model_errors"] == 2 and ab["decisions"][0]["actions"] == ["NOOP"] and "error" in ab["decisions"][0]


def test_one_timeout_is_a_noop_turn(breakout_env):
    replies = [ModelError("no reply within 1 s"), "Actions: FIRE"]
    rec = run_episode(breakout_env, ScriptedClient(replies), 0, TINY)
    assert rec.ended_by == "truncated" and rec.actions.tolist() == [0, 1]
    assert rec.extra["atari_bench"]["model_errors"] == 1


def test_reset_on_game_over_keeps_the_clock():
    """A game over inside the horizon resets at once: frames keep counting, the reset is reported."""
    env = make_env("breakout", TINY)
    reseed(env, 0)
    calls = {"n": 0}

    def reply(messages):
        calls["n"] += 1
        return "Actions: NOOP"

    orig_game_over = env.game_over
    state = {"k": 0}

    def fake_game_over(*a, **k):  # end the game after the first action, whatever the rules say
        state["k"] += 1
        return state["k"] == 1 or orig_game_over(*a, **k)

    env.game_over = fake_game_over
    rec = run_episode(env, ScriptedClient(reply), 0, BenchConfig(horizon_seconds=0.3))
    ab = rec.extra["atari_bench"]
    assert ab["resets"] == 1 and rec.frames == 18
    assert ab["decisions"][0]["reset"] is True


def test_append_only_mode(breakout_env):
    client = ScriptedClient(["Actions: FIRE"])
    rec = run_episode(breakout_env, client, 0, BenchConfig(horizon_seconds=0.3, memory="append_only"))
    assert [len(m) for m in client.calls] == [1, 3, 5]
    assert rec.extra["atari_bench"]["config"]["memory"] == "append_only"


def test_all_games_all_seeds_end_to_end(chat, tmp_path):
    """The whole benchmark at a tiny horizon through a real HTTP server, into the store, resumable."""
    def behaviour(body, n):
        text = body["messages"][0]["content"][0]["text"]
        assert "Available actions" in text
        return "Thought: t\nActions: FIRE, NOOP" if n % 3 else "nonsense"
    srv = chat(behaviour)
    client = OpenAIChatClient(srv.url, "loop", timeout=10)
    store = Store(tmp_path / "db.sqlite3")
    cfg = BenchConfig(horizon_seconds=0.2, keep_prompts="none")
    t0 = time.monotonic()
    recs = run_bench(client, GAME_IDS, range(10), cfg, store=store, run_name="ab-test")
    assert len(recs) == 200 and time.monotonic() - t0 < 240
    assert all(r.ended_by == "truncated" and r.frames == 12 and r.protocol == "atari_bench" for r in recs)
    table = scores_table(recs)
    assert set(table) == set(GAME_IDS) and all(set(t["agent:vlm:loop"]) == set(range(10)) for t in table.values())
    stored = store.episodes(protocol="atari_bench")
    assert len(stored) == 200
    run = store.run("ab-test")
    assert len(store.done_tasks(run["id"])) == 200
    assert run_bench(client, GAME_IDS, range(10), cfg, store=store, run_name="ab-test") == []  # resume: nothing left
    store.close()


def test_random_client_plays():
    rec = run_episode(make_env("freeway", TINY), RandomClient(seed=1, max_len=3), 0, BenchConfig(horizon_seconds=0.5))
    assert rec.player == "agent:vlm:random" and rec.extra["atari_bench"]["invalid_replies"] == 0
    assert set(rec.actions.tolist()) <= {0, 2, 5}


# -- CLI ---------------------------------------------------------------------------------------------------------
def test_parse_seeds():
    assert parse_seeds("0-9") == list(range(10)) and parse_seeds("0,3,5-6") == [0, 3, 5, 6]
    with pytest.raises(ValueError, match="bad seed"):
        parse_seeds("9-0")


def test_cli_end_to_end(chat, tmp_path, capsys):
    from arcade_lab.cli import main

    srv = chat(lambda body, n: "Thought: x\nActions: UP")
    db = tmp_path / "s.sqlite3"
    rc = main(["atari-bench", "--endpoint", srv.url, "--model", "m", "--games", "Freeway,breakout", "--seeds", "0-1",
               "--horizon-seconds", "0.2", "--db", str(db), "--json", str(tmp_path / "r.jsonl")])
    assert rc == 0
    out = capsys.readouterr()
    assert "freeway" in out.out and "agent:vlm:m" in out.out
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 4
    with Store(db) as s:
        assert len(s.episodes(protocol="atari_bench")) == 4
    assert atari_bench_main(["--model", "m", "--endpoint", srv.url, "--games", "pong"]) == 2
    assert "not an AtariBench game" in capsys.readouterr().err
