"""External agents: programs in any language that play through ``arcade-lab-agent/1``.

Hooking them into a registry of agents is one line: route specs that start with ``ext:`` here, e.g.

    if spec.startswith("ext:"): return make_external_agent(spec, env, seed)

Specs:
    ext:cmd:<shell command>      start the command; JSON lines on its stdin/stdout
    ext:tcp:<host>:<port>        connect to an agent serving the protocol on a TCP port
"""
from __future__ import annotations

from arcade_lab.engine.env import Env

from .protocol import (OBSERVATION_KINDS, PROTOCOL_VERSION, ExternalAgent, ExternalAgentError, ProcessTransport,
                       TcpTransport, encode_png)

__all__ = ["make_external_agent", "parse_spec", "ExternalAgent", "ExternalAgentError", "PROTOCOL_VERSION",
           "OBSERVATION_KINDS", "encode_png", "is_external_spec"]

SPEC_HELP = "ext:cmd:<shell command> or ext:tcp:<host>:<port>"


def is_external_spec(spec: str) -> bool:
    return isinstance(spec, str) and spec.startswith("ext:")


def parse_spec(spec: str) -> tuple[str, dict]:
    """``("cmd", {"command": ...})`` or ``("tcp", {"host": ..., "port": ...})``; ValueError saying what is
    wrong otherwise. Everything after ``ext:cmd:`` is the command, colons included."""
    if not is_external_spec(spec):
        raise ValueError(f"not an external agent spec: {spec!r} (want {SPEC_HELP})")
    kind, _, rest = spec[4:].partition(":")
    if kind == "cmd":
        if not rest.strip():
            raise ValueError(f"{spec!r}: ext:cmd: needs a command after it (want {SPEC_HELP})")
        return "cmd", {"command": rest}
    if kind == "tcp":
        host, _, port = rest.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{spec!r}: want ext:tcp:<host>:<port> with a port 1..65535")
        return "tcp", {"host": host.strip("[]"), "port": int(port)}
    raise ValueError(f"{spec!r}: unknown transport {kind!r} (want {SPEC_HELP})")


def make_external_agent(spec: str, env: Env, seed: int = 0, *, observation: str = "indices",
                        send_ram: bool = True, step_timeout: float = 30.0, handshake_timeout: float = 30.0,
                        cwd: str | None = None) -> ExternalAgent:
    """An :class:`ExternalAgent` for ``env``'s game (action set, meanings, frame skip, palette from it).
    The process or connection is opened at the first episode, not here, so building a registry of
    agents costs nothing."""
    kind, args = parse_spec(spec)
    if kind == "cmd":
        def connect():
            return ProcessTransport(args["command"], cwd=cwd)
    else:
        def connect():
            return TcpTransport(args["host"], args["port"], connect_timeout=handshake_timeout)
    return ExternalAgent(connect, game=env.info.id, action_set=env.action_set(), action_meanings=env.action_meanings(),
                         frameskip=env.frames_per_act, palette=env.console.palette(),
                         screen_shape=env.screen().shape, observation=observation, send_ram=send_ram, seed=seed,
                         step_timeout=step_timeout, handshake_timeout=handshake_timeout, spec=spec)
