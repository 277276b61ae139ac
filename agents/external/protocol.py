"""``arcade-lab-agent/1``: agents in any language, as a child process (JSON lines on stdin/stdout) or a
local TCP server (JSON lines on a socket). The full wire format is in ``docs/agent-protocol.md``.

Arcade Lab is always the one that asks: it sends ``hello``, then one ``observation`` per decision and
waits for an ``action`` reply; ``episode_end`` and ``bye`` need no reply. Every wait has a deadline, a
reader thread turns EOF into an immediate error, and a writer thread keeps a stalled peer from blocking
us on a full pipe — so a dead, hanging or confused agent costs at most one timeout and becomes an
:class:`ExternalAgentError` (an :class:`agents.base.AgentFailure`, which the Runner records as an episode
``ended_by="failed"`` with the reason in ``notes``).
"""
from __future__ import annotations

import base64
import json
import os
import queue
import signal
import socket
import struct
import subprocess
import threading
import time
import zlib

import numpy as np

from arcade_lab.agents.base import AgentFailure, Observation

PROTOCOL_VERSION = "arcade-lab-agent/1"
OBSERVATION_KINDS = ("indices", "png", "none")
MAX_LINE = 8 << 20          # a reply longer than this is malformed (agents send a few bytes)
MAX_SEQUENCE = 64           # actions in one reply; more is a runaway agent, not a plan


class ExternalAgentError(AgentFailure):
    """The external agent died, timed out or broke the protocol; the message says which and why."""


# -- PNG without a dependency -----------------------------------------------------------------------------
def encode_png(img: np.ndarray) -> bytes:
    """A PNG of an (H, W) gray or (H, W, 3) RGB uint8 image (filter 0, zlib level 6): tiny and exact."""
    a = np.ascontiguousarray(img, dtype=np.uint8)
    if a.ndim == 2:
        color = 0
    elif a.ndim == 3 and a.shape[2] == 3:
        color = 2
    else:
        raise ValueError(f"encode_png wants (H, W) or (H, W, 3) uint8, got shape {a.shape}")
    h, w = a.shape[:2]
    rows = a.reshape(h, -1)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()  # filter byte 0 per row

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def dumps(msg: dict) -> bytes:
    """Compact JSON, ``type`` first: simple clients (sh, awk) may dispatch on the line's prefix."""
    body = {"type": msg["type"], **{k: v for k, v in msg.items() if k != "type"}}
    return json.dumps(body, separators=(",", ":")).encode() + b"\n"


# -- a line channel over any pair of byte streams ---------------------------------------------------------
_EOF = object()


class LineChannel:
    """JSON lines both ways with deadlines. ``read_line``/``write`` are blocking callables on the
    transport; they run on daemon threads so that our side only ever waits on a queue with a timeout."""

    def __init__(self, read_line, write, describe: str):
        self.describe = describe
        self._inbox: queue.Queue = queue.Queue()
        self._outbox: queue.Queue = queue.Queue()
        self._read_line, self._write = read_line, write
        self.closed = False
        threading.Thread(target=self._reader, name=f"ext-read {describe}", daemon=True).start()
        threading.Thread(target=self._writer, name=f"ext-write {describe}", daemon=True).start()

    def _reader(self) -> None:
        try:
            while True:
                line = self._read_line()
                if not line:
                    break
                self._inbox.put(line)
        except Exception as e:  # a reset socket or closed pipe is an end of stream, with its reason
            self._inbox.put(e)
        self._inbox.put(_EOF)

    def _writer(self) -> None:
        while True:
            item = self._outbox.get()
            if item is None:
                return
            data, done = item
            try:
                self._write(data)
                done.put(None)
            except Exception as e:
                done.put(e)

    def send(self, msg: dict, timeout: float) -> None:
        if self.closed:
            raise ExternalAgentError(f"{self.describe}: connection already closed")
        done: queue.Queue = queue.Queue()
        self._outbox.put((dumps(msg), done))
        try:
            err = done.get(timeout=timeout)
        except queue.Empty:
            raise ExternalAgentError(f"{self.describe}: agent did not read its input within {timeout:g} s") from None
        if err is not None:
            raise ExternalAgentError(f"{self.describe}: cannot send to the agent ({err})")

    def recv(self, timeout: float, waiting_for: str) -> dict:
        if self.closed:
            raise ExternalAgentError(f"{self.describe}: connection already closed")
        try:
            line = self._inbox.get(timeout=timeout)
        except queue.Empty:
            raise ExternalAgentError(f"{self.describe}: waited {timeout:g} s for {waiting_for}, got nothing (agent hanging?)") from None
        if line is _EOF or isinstance(line, Exception):
            self._inbox.put(_EOF)  # later receives fail the same way
            why = f" ({line})" if isinstance(line, Exception) else ""
            raise ExternalAgentError(f"{self.describe}: agent closed the connection while we waited for {waiting_for}{why}")
        if len(line) > MAX_LINE:
            raise ExternalAgentError(f"{self.describe}: malformed message: line longer than {MAX_LINE} bytes")
        try:
            msg = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            raise ExternalAgentError(f"{self.describe}: malformed message (not JSON) while waiting for "
                                     f"{waiting_for}: {_preview(line)}") from None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise ExternalAgentError(f"{self.describe}: malformed message (want a JSON object with a \"type\"): "
                                     f"{_preview(line)}")
        if msg["type"] == "error":
            raise ExternalAgentError(f"{self.describe}: agent reported an error: {msg.get('message', '')}")
        return msg

    def close(self) -> None:
        self.closed = True
        self._outbox.put(None)


def _preview(line: bytes, n: int = 120) -> str:
    s = line.decode("utf-8", "replace").strip()
    return repr(s if len(s) <= n else s[:n] + "…")


# -- transports ---------------------------------------------------------------------------------------------
class Transport:
    describe = "agent"
    channel: LineChannel

    def diagnosis(self) -> str:
        """Extra words for an error (exit status, last stderr lines)."""
        return ""

    def close(self, grace: float = 1.0) -> None:
        raise NotImplementedError


class ProcessTransport(Transport):
    """A child process started through the shell, in its own process group so that a timeout kills the
    whole pipeline (``sh -c 'python x | tee log'``), not just the shell."""

    STDERR_TAIL = 4000

    def __init__(self, command: str, cwd: str | None = None, env: dict | None = None):
        if not command.strip():
            raise ValueError("ext:cmd: needs a command, e.g. ext:cmd:python examples/agents/random_agent.py")
        self.command = command
        self.describe = f"agent `{command}`"
        posix = os.name == "posix"
        try:
            self.proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, cwd=cwd, env=env,
                                         start_new_session=posix)
        except OSError as e:
            raise ExternalAgentError(f"{self.describe}: cannot start ({e})") from e
        self._stderr = bytearray()
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        out, inp = self.proc.stdout, self.proc.stdin

        def write(data: bytes) -> None:
            inp.write(data)
            inp.flush()

        self.channel = LineChannel(lambda: out.readline(MAX_LINE + 1), write, self.describe)

    def _drain_stderr(self) -> None:
        # keep only the tail: enough to say why an agent crashed, never a growing buffer or a full pipe
        err = self.proc.stderr
        while True:
            chunk = err.read1(4096) if hasattr(err, "read1") else err.read(4096)
            if not chunk:
                return
            self._stderr += chunk
            del self._stderr[:-self.STDERR_TAIL]

    def diagnosis(self) -> str:
        parts = []
        rc = self.proc.poll()
        if rc is None:
            time.sleep(0.05)  # a crash usually lands a moment after its pipe closes
            rc = self.proc.poll()
        if rc is not None:
            parts.append(f"exit status {rc}")
        self._stderr_thread.join(0.2)
        tail = bytes(self._stderr).decode("utf-8", "replace").strip().splitlines()[-5:]
        if tail:
            parts.append("stderr: " + " | ".join(tail))
        return "; ".join(parts)

    def _kill(self, sig) -> None:
        try:
            if os.name == "posix":
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.kill()
        except (ProcessLookupError, PermissionError, OSError):
            pass

    def close(self, grace: float = 1.0) -> None:
        self.channel.close()
        for f in (self.proc.stdin,):
            try:
                f.close()  # EOF on stdin is the polite way to say goodbye
            except OSError:
                pass
        try:
            self.proc.wait(grace)
        except subprocess.TimeoutExpired:
            self._kill(signal.SIGTERM if os.name == "posix" else None)
            try:
                self.proc.wait(1.0)
            except subprocess.TimeoutExpired:
                self._kill(signal.SIGKILL if os.name == "posix" else None)
                self.proc.wait(5.0)
        self._stderr_thread.join(1.0)
        for f in (self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


class TcpTransport(Transport):
    """An agent serving ``arcade-lab-agent/1`` on a TCP port (we connect; one connection per session)."""

    def __init__(self, host: str, port: int, connect_timeout: float = 10.0):
        self.describe = f"agent at tcp {host}:{port}"
        try:
            self.sock = socket.create_connection((host, port), timeout=connect_timeout)
        except OSError as e:
            raise ExternalAgentError(f"{self.describe}: cannot connect ({e}); is the agent listening?") from e
        self.sock.settimeout(None)  # deadlines are the channel's; the threads may block
        self._rfile = self.sock.makefile("rb")
        self.channel = LineChannel(lambda: self._rfile.readline(MAX_LINE + 1), self.sock.sendall, self.describe)

    def close(self, grace: float = 1.0) -> None:
        self.channel.close()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._rfile.close()
        self.sock.close()


# -- the agent ------------------------------------------------------------------------------------------------
class ExternalAgent:
    """An Agent (``agents.base``) whose decisions come from another program over ``arcade-lab-agent/1``.

    ``connect`` makes a fresh :class:`Transport`; it is called lazily at the first episode and again after
    a failure, so one crashed episode does not sink the rest of a run. A reply with several actions is
    queued and played one per step without asking again (the agent chose to commit to them); the queue is
    dropped at episode end.
    """

    def __init__(self, connect, *, game: str, action_set: list[int], action_meanings: list[str],
                 frameskip: int = 1, palette: np.ndarray | None = None, screen_shape=(210, 160),
                 observation: str = "indices", send_ram: bool = True, seed: int = 0,
                 step_timeout: float = 30.0, handshake_timeout: float = 30.0, spec: str = "ext"):
        if observation not in OBSERVATION_KINDS:
            raise ValueError(f"observation must be one of {OBSERVATION_KINDS}, got {observation!r}")
        if observation == "png" and palette is None:
            raise ValueError("observation='png' needs the console palette to colour the screen")
        self._connect = connect
        self.spec = spec
        self.game = game
        self.actions = list(action_set)
        self.action_meanings = list(action_meanings)
        self.frameskip = int(frameskip)
        self.palette = None if palette is None else np.asarray(palette, dtype=np.uint8)
        self.screen_shape = tuple(screen_shape)
        self.observation_kind = observation
        self.send_ram = send_ram
        self.seed = int(seed)
        self.step_timeout = float(step_timeout)
        self.handshake_timeout = float(handshake_timeout)
        self.name = "external"
        self.remote: dict = {}
        self.transport: Transport | None = None
        self.episode = -1
        self._queue: list[int] = []
        self._score = 0.0
        self._requests = 0
        self._steps = 0

    # -- connection ------------------------------------------------------------------------------------------
    def _hello(self) -> dict:
        shapes = {"indices": list(self.screen_shape), "png": [*self.screen_shape, 3], "none": []}
        msg = {"type": "hello", "protocol": PROTOCOL_VERSION, "game": self.game,
               "actions": self.actions, "action_meanings": self.action_meanings,
               "observation": {"kind": self.observation_kind, "shape": shapes[self.observation_kind],
                               "kinds": list(OBSERVATION_KINDS), "ram": self.send_ram},
               "frameskip": self.frameskip, "seed": self.seed, "max_sequence": MAX_SEQUENCE,
               "timeouts": {"step": self.step_timeout, "handshake": self.handshake_timeout}}
        if self.palette is not None:
            msg["palette"] = b64(self.palette.tobytes())  # 256 x RGB: lets "indices" clients colour frames
        return msg

    def _fail(self, e: ExternalAgentError) -> ExternalAgentError:
        t = self.transport
        why = t.diagnosis() if t is not None else ""
        self.close(grace=0.2)  # a broken agent gets little time to exit politely
        return ExternalAgentError(f"{e}" + (f" [{why}]" if why else ""))

    def _ensure_connected(self) -> None:
        if self.transport is not None:
            return
        self.transport = self._connect()
        try:
            ch = self.transport.channel
            ch.send(self._hello(), self.handshake_timeout)
            reply = ch.recv(self.handshake_timeout, "the agent's hello")
            if reply.get("type") != "hello":
                raise ExternalAgentError(f"{self.transport.describe}: expected a hello reply, got type "
                                         f"{reply.get('type')!r}")
            if reply.get("protocol") != PROTOCOL_VERSION:
                raise ExternalAgentError(f"{self.transport.describe}: speaks protocol {reply.get('protocol')!r}, "
                                         f"we speak {PROTOCOL_VERSION!r}")
            kind = reply.get("observation", self.observation_kind)
            if kind not in OBSERVATION_KINDS or (kind == "png" and self.palette is None):
                raise ExternalAgentError(f"{self.transport.describe}: asked for observation {kind!r}; "
                                         f"offered {list(OBSERVATION_KINDS)}")
            self.observation_kind = kind
            self.remote = {k: v for k, v in reply.items() if k in ("name", "version", "observation")}
            self.name = f"ext:{reply.get('name') or 'agent'}"
        except ExternalAgentError as e:
            raise self._fail(e) from None

    def close(self, grace: float = 1.0) -> None:
        """Say goodbye and release the process or socket (idempotent)."""
        t, self.transport = self.transport, None
        if t is None:
            return
        if not t.channel.closed:
            try:
                t.channel.send({"type": "bye"}, 1.0)
            except ExternalAgentError:
                pass
        t.close(grace)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- messages --------------------------------------------------------------------------------------------
    def _observation_msg(self, reward: float, obs: Observation) -> dict:
        msg = {"type": "observation", "episode": self.episode, "step": self._steps, "frame": obs.frame,
               "reward": reward, "score": self._score, "lives": obs.lives, "terminal": bool(obs.terminal)}
        kind = self.observation_kind
        if kind == "indices":
            scr = np.ascontiguousarray(obs.screen, dtype=np.uint8)
            msg["screen"] = {"kind": "indices", "shape": list(scr.shape), "data": b64(scr.tobytes())}
        elif kind == "png":
            rgb = self.palette[obs.screen]
            msg["screen"] = {"kind": "png", "shape": list(rgb.shape), "data": b64(encode_png(rgb))}
        if self.send_ram:
            msg["ram"] = b64(np.ascontiguousarray(obs.ram, dtype=np.uint8).tobytes())
        return msg

    def _parse_action(self, x, describe: str) -> int:
        if isinstance(x, bool):
            raise ExternalAgentError(f"{describe}: action {x!r} is not an action id or name")
        if isinstance(x, int):
            if x in self.actions:
                return x
            raise ExternalAgentError(f"{describe}: action {x} is not in this game's action set {self.actions}")
        if isinstance(x, str):
            name = x.strip().upper()
            if name in self.action_meanings:
                return self.actions[self.action_meanings.index(name)]
            raise ExternalAgentError(f"{describe}: action {x!r} is not one of {self.action_meanings}")
        raise ExternalAgentError(f"{describe}: action {x!r} is not an action id or name")

    def _decide(self, reward: float, obs: Observation) -> int:
        self._score += reward
        if self._queue:  # the agent committed to a sequence: play it without asking
            self._steps += 1
            return self._queue.pop(0)
        t = self.transport
        if t is None:
            raise ExternalAgentError(f"{self.spec}: agent is not connected")
        try:
            t.channel.send(self._observation_msg(reward, obs), self.step_timeout)
            reply = t.channel.recv(self.step_timeout, "an action")
            if reply["type"] != "action":
                raise ExternalAgentError(f"{t.describe}: expected an action, got type {reply['type']!r}")
            if "actions" in reply:
                seq = reply["actions"]
                if not isinstance(seq, list) or not seq:
                    raise ExternalAgentError(f"{t.describe}: \"actions\" must be a non-empty list, got {seq!r}")
                if len(seq) > MAX_SEQUENCE:
                    raise ExternalAgentError(f"{t.describe}: {len(seq)} actions in one reply (at most {MAX_SEQUENCE})")
            elif "action" in reply:
                seq = [reply["action"]]
            else:
                raise ExternalAgentError(f"{t.describe}: action message without \"action\" or \"actions\": "
                                         f"{_preview(json.dumps(reply).encode())}")
            ids = [self._parse_action(x, t.describe) for x in seq]
        except ExternalAgentError as e:
            raise self._fail(e) from None
        self._requests += 1
        self._steps += 1
        self._queue = ids[1:]
        return ids[0]

    # -- the Agent protocol ------------------------------------------------------------------------------
    def begin_episode(self, obs: Observation) -> int:
        self._ensure_connected()
        self.episode += 1
        self._queue, self._score, self._requests, self._steps = [], 0.0, 0, 0
        return self._decide(0.0, obs)

    def step(self, reward: float, obs: Observation) -> int:
        return self._decide(reward, obs)

    def end_episode(self, reward: float) -> None:
        self._score += reward
        self._queue = []
        t = self.transport
        if t is None:
            return
        try:
            t.channel.send({"type": "episode_end", "episode": self.episode, "reward": reward, "score": self._score,
                            "steps": self._steps}, self.step_timeout)
        except ExternalAgentError as e:
            raise self._fail(e) from None

    def episode_extra(self) -> dict:
        """What the Runner stores in ``EpisodeRecord.extra``: who answered and how often it was asked."""
        return {"external": {"spec": self.spec, "protocol": PROTOCOL_VERSION, "remote": self.remote,
                             "observation": self.observation_kind, "requests": self._requests}}

    def save(self, path) -> None:  # the agent's state lives in the other program
        pass

    def load(self, path) -> None:
        pass

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
