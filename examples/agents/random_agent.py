#!/usr/bin/env python3
"""A random agent speaking arcade-lab-agent/1 — plain Python, no Arcade Lab import.

    arcade-lab run ext:cmd:"python examples/agents/random_agent.py" pong    # as a child process
    python examples/agents/random_agent.py --tcp 7777                        # as a TCP server

Options: --seed N, --sequence K (answer with K actions at a time), --observation indices|png|none.
"""
import argparse, json, random, socket, sys

p = argparse.ArgumentParser()
p.add_argument("--tcp", type=int, help="serve on this TCP port (127.0.0.1) instead of stdin/stdout")
p.add_argument("--seed", type=int, default=None, help="default: the seed Arcade Lab sends in its hello")
p.add_argument("--sequence", type=int, default=1)
p.add_argument("--observation", default="none", help="what we want to be sent (we ignore the screen)")
args = p.parse_args()
rng = random.Random(args.seed)


def play(read, write):
    actions = []
    for line in iter(read, b""):
        msg = json.loads(line)
        if msg["type"] == "hello":  # the game, its actions, the observation on offer, the run's seed
            actions = msg["actions"]
            if args.seed is None:
                rng.seed(msg.get("seed", 0))
            write({"type": "hello", "protocol": "arcade-lab-agent/1", "name": "random-py",
                   "observation": args.observation})
        elif msg["type"] == "observation":
            write({"type": "action", "actions": [rng.choice(actions) for _ in range(args.sequence)]})
        elif msg["type"] == "bye":
            return
        # "episode_end" needs no reply


def send_to(f):
    def write(msg):
        f.write((json.dumps(msg) + "\n").encode())
        f.flush()
    return write


if args.tcp:
    srv = socket.create_server(("127.0.0.1", args.tcp))
    print(f"listening on 127.0.0.1:{args.tcp}", file=sys.stderr, flush=True)
    while True:  # one session per connection, one after the other
        conn, _ = srv.accept()
        with conn, conn.makefile("rb") as r, conn.makefile("wb") as w:
            play(r.readline, send_to(w))
else:
    play(sys.stdin.buffer.readline, send_to(sys.stdout.buffer))
