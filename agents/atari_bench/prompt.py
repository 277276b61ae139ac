"""AtariBench prompts and replies: the shared template, the two memory modes, textual feedback, and the
parser that turns a model's free text into 1..10 ALE actions (NOOP when nothing valid is found).

Messages are OpenAI chat-completions messages: ``{"role": ..., "content": [parts]}`` where a part is
``{"type": "text", "text": ...}`` or ``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``.
"""
from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass, field

from .games import GameSpec, describe_action

STRUCTURED = "structured_history"
APPEND_ONLY = "append_only"
MEMORY_MODES = (STRUCTURED, APPEND_ONLY)

FEEDBACK_POSITIVE = "Feedback: You received a positive score!"
FEEDBACK_NEGATIVE = "Feedback: You received a negative score!"
FEEDBACK_LIFE = "Feedback: A life was lost and a new life has begun."
FEEDBACK_RESET = "Feedback: The game ended and was reset; keep playing."


def feedback_lines(reward: float, life_lost: bool, reset: bool) -> list[str]:
    """The paper's deterministic annotations for one executed action; empty when nothing salient happened."""
    out = []
    if reward > 0:
        out.append(FEEDBACK_POSITIVE)
    elif reward < 0:
        out.append(FEEDBACK_NEGATIVE)
    if life_lost:
        out.append(FEEDBACK_LIFE)
    if reset:
        out.append(FEEDBACK_RESET)
    return out


# -- clips and memory ---------------------------------------------------------------------------------
@dataclass
class Clip:
    """One completed model turn: the frame it saw, the actions it chose, one resulting frame per executed
    action (PNG bytes) with that action's feedback."""

    decision: int
    time_s: float                       # game time at the start of the turn
    start_png: bytes
    actions: list[str]
    frames: list[bytes] = field(default_factory=list)
    feedback: list[list[str]] = field(default_factory=list)
    reward: float = 0.0
    life_lost: bool = False
    reset: bool = False

    @property
    def salient(self) -> bool:
        """Belongs in the reward-history buffer: non-zero reward, or a lost life (paper, 3.3.1)."""
        return self.reward != 0 or self.life_lost


class Memory:
    """structured_history: the K most recent clips and the R most recent reward/life-loss clips."""

    def __init__(self, k_recent: int = 3, k_reward: int = 3):
        if k_recent < 0 or k_reward < 0:
            raise ValueError("history sizes must be >= 0")
        self.recent: deque[Clip] = deque(maxlen=k_recent)
        self.rewards: deque[Clip] = deque(maxlen=k_reward)

    def add(self, clip: Clip) -> None:
        if self.recent.maxlen:
            self.recent.append(clip)
        if clip.salient and self.rewards.maxlen:
            self.rewards.append(clip)


# -- the prompt ------------------------------------------------------------------------------------------
def image_part(png: bytes) -> dict:
    import base64

    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}}


def text_part(text: str) -> dict:
    return {"type": "text", "text": text}


class PromptBuilder:
    """The shared template around one game's instructions."""

    def __init__(self, spec: GameSpec, action_meanings: list[str], *, max_actions: int = 10,
                 horizon_seconds: float = 30.0, frames_per_action: int = 6, fps: int = 60):
        self.spec = spec
        self.action_meanings = list(action_meanings)
        self.max_actions = max_actions
        self.horizon_seconds = horizon_seconds
        self.frames_per_action = frames_per_action
        self.fps = fps

    def instructions(self) -> str:
        s = self.spec
        hz = self.fps / self.frames_per_action
        lines = [f"You are playing the Atari 2600 game {s.title}.",
                 f"Objective: {s.objective}",
                 f"Controls: directions {s.move}; FIRE: {s.fire}."]
        if s.notes:
            lines.append(f"Note: {s.notes}")
        lines.append("Available actions (use exactly these names):")
        lines += [f"- {describe_action(m, s)}" for m in self.action_meanings]
        lines.append(f"Timing: each action is held for {self.frames_per_action / self.fps:.1f} s "
                     f"({hz:g} actions per second). The game is paused while you think.")
        lines.append(f"Time budget: you play for {self.horizon_seconds:g} seconds of game time. If the game ends "
                     "early it restarts immediately and you keep playing; your score is everything you earn "
                     "within the time budget.")
        return "\n".join(lines)

    def output_schema(self) -> str:
        return ("Respond in exactly this format:\n"
                "Thought: <one or two short sentences about the current frame and your plan>\n"
                f"Actions: <1 to {self.max_actions} actions from the list, comma-separated, executed in order>\n"
                "Example:\nThought: The ball is falling to the left of my paddle.\nActions: LEFT, LEFT, NOOP")

    def clip_parts(self, clip: Clip, title: str) -> list[dict]:
        parts = [text_part(f"{title} (turn {clip.decision}, t = {clip.time_s:.1f} s). Starting frame:"),
                 image_part(clip.start_png),
                 text_part("Actions: " + ", ".join(clip.actions))]
        for name, png, fb in zip(clip.actions, clip.frames, clip.feedback):
            parts.append(text_part(f"After {name}:"))
            parts.append(image_part(png))
            if fb:
                parts.append(text_part(" ".join(fb)))
        if len(clip.frames) < len(clip.actions):
            parts.append(text_part(f"(the remaining {len(clip.actions) - len(clip.frames)} actions were not "
                                   "executed: the game was reset or time ran out)"))
        return parts

    def structured(self, memory: Memory, current_png: bytes, time_s: float) -> list[dict]:
        """One user message: instructions, reward-relevant history, recent history, current frame, schema."""
        parts = [text_part(self.instructions())]
        if memory.rewards:
            parts.append(text_part("== Reward and life-loss history (most recent last) =="))
            for c in memory.rewards:
                parts += self.clip_parts(c, "Clip")
        if memory.recent:
            parts.append(text_part("== Recent history (most recent last) =="))
            for c in memory.recent:
                parts += self.clip_parts(c, "Clip")
        parts.append(text_part(f"== Current game state (t = {time_s:.1f} s of {self.horizon_seconds:g} s) =="))
        parts.append(image_part(current_png))
        parts.append(text_part(self.output_schema()))
        return [{"role": "user", "content": parts}]


class AppendOnlyTranscript:
    """append_only: the whole trajectory as a chat — instructions + first frame, then per turn the model's
    reply (assistant) and the resulting frames with feedback (user)."""

    def __init__(self, builder: PromptBuilder):
        self.builder = builder
        self.messages: list[dict] = []

    def prompt(self, last: Clip | None, last_reply: str | None, current_png: bytes, time_s: float) -> list[dict]:
        b = self.builder
        if not self.messages:
            self.messages.append({"role": "user", "content": [
                text_part(b.instructions()), text_part(f"Current frame (t = {time_s:.1f} s):"),
                image_part(current_png), text_part(b.output_schema())]})
        else:
            self.messages.append({"role": "assistant", "content": last_reply or ""})
            parts: list[dict] = []
            if last is not None:
                for name, png, fb in zip(last.actions, last.frames, last.feedback):
                    parts.append(text_part(f"After {name}:"))
                    parts.append(image_part(png))
                    if fb:
                        parts.append(text_part(" ".join(fb)))
            parts += [text_part(f"Current frame (t = {time_s:.1f} s of {b.horizon_seconds:g} s):"),
                      image_part(current_png),
                      text_part("Reply with a Thought line and an Actions line as before.")]
            self.messages.append({"role": "user", "content": parts})
        return list(self.messages)


def redact_images(messages: list[dict]) -> list[dict]:
    """The prompt as stored in a record: text kept, each image replaced by a short placeholder (the frames
    are reproducible from the start state and the action trace)."""
    out = []
    for m in messages:
        c = m["content"]
        if isinstance(c, list):
            c = [p if p.get("type") != "image_url" else {"type": "image", "bytes": len(p["image_url"]["url"])} for p in c]
        out.append({"role": m["role"], "content": c})
    return out


# -- parsing ---------------------------------------------------------------------------------------------------
# whole words that stand for a component (case-insensitive); "START"/"SERVE" are FIRE in every AtariBench game
_SYNONYMS = {
    "NOOP": "NOOP", "NOP": "NOOP", "NONE": "NOOP", "NOTHING": "NOOP", "WAIT": "NOOP", "STAY": "NOOP",
    "IDLE": "NOOP", "PASS": "NOOP", "STOP": "NOOP",
    "FIRE": "FIRE", "SHOOT": "FIRE", "SHOT": "FIRE", "START": "FIRE", "SERVE": "FIRE", "PUNCH": "FIRE",
    "ATTACK": "FIRE", "BUTTON": "FIRE", "LAUNCH": "FIRE", "SWING": "FIRE",
    "UP": "UP", "NORTH": "UP", "FORWARD": "UP", "DOWN": "DOWN", "SOUTH": "DOWN", "BACK": "DOWN",
    "LEFT": "LEFT", "WEST": "LEFT", "RIGHT": "RIGHT", "EAST": "RIGHT",
}
_FILLER = {"AND", "WITH", "PLUS", "THEN", "MOVE", "GO", "PRESS", "HOLD", "PUSH", "THE", "TO", "ACTION", "WHILE"}
# compound spellings: greedy match inside a word ("UPRIGHTFIRE", "RIGHTUP", "FIREDOWN")
_PIECES = ("NOOP", "RIGHT", "FIRE", "DOWN", "LEFT", "UP")


def _components(word: str) -> list[str] | None:
    if word in _SYNONYMS:
        return [_SYNONYMS[word]]
    out, i = [], 0
    while i < len(word):
        for p in _PIECES:
            if word.startswith(p, i):
                out.append(p)
                i += len(p)
                break
        else:
            return None
    return out


def normalize_action(token: str, meanings: list[str]) -> str | None:
    """The canonical ALE name for a loosely written action ("up-right", "Right+Fire", "upright", "NO-OP",
    "shoot"), or None if it is not a valid action of this game."""
    words = [w for w in re.split(r"[^A-Z0-9]+", token.upper()) if w]
    if not words:
        return None
    comps: set[str] = set()
    for w in words:
        if w in _FILLER:
            continue
        c = _components(w)
        if c is None:
            # "NO OP"/"NO-OP" split into two words
            if w == "OP" and "NO" in words:
                continue
            if w == "NO" and "OP" in words:
                comps.add("NOOP")
                continue
            return None
        comps.update(c)
    if not comps:
        return None
    if len(comps) > 1:
        comps.discard("NOOP")  # "noop and fire" means fire
    if {"UP", "DOWN"} <= comps or {"LEFT", "RIGHT"} <= comps:
        return None
    name = "".join(p for p in ("UP", "DOWN", "RIGHT", "LEFT", "FIRE") if p in comps) or "NOOP"
    if comps == {"NOOP"}:
        name = "NOOP"
    return name if name in meanings else None


@dataclass
class Parsed:
    thought: str
    actions: list[str]                  # canonical names, 1..max_actions, NOOP-filled when invalid
    valid: bool                         # every requested action was understood and allowed
    errors: list[str] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)  # the raw action tokens as the model wrote them

    def to_dict(self) -> dict:
        return {"thought": self.thought, "actions": self.actions, "valid": self.valid, "errors": self.errors,
                "requested": self.requested}


_REPEAT = re.compile(r"^(?:(\d+)\s*[x*×]\s*(.+)|(.+?)\s*(?:[x*×]\s*(\d+)|\((\d+)\)))$", re.I)


def _expand(token: str) -> list[str]:
    """ "LEFT x3", "3x LEFT", "LEFT*3", "LEFT (3)" -> three LEFTs (models like to abbreviate holds)."""
    m = _REPEAT.match(token.strip())
    if not m:
        return [token]
    n = m.group(1) or m.group(4) or m.group(5)
    what = m.group(2) or m.group(3)
    if what is None or not n or int(n) > 99:
        return [token]
    return [what] * int(n)


def _split_list(text: str) -> list[str]:
    text = text.strip().strip("[](){}*`\"' ").strip()
    chunks = [c.strip().strip("\"'`*.").strip() for c in re.split(r",|;|\||->|→|\n|\bthen\b", text, flags=re.I)]
    return [c for c in chunks if c]


def _from_json(text: str):
    """(thought, [tokens]) from the last JSON object in the text that has actions, or None."""
    for m in reversed(list(re.finditer(r"\{.*\}", text, re.S))):
        try:
            d = json.loads(m.group(0))
        except ValueError:
            continue
        if not isinstance(d, dict):
            continue
        low = {str(k).lower(): v for k, v in d.items()}
        acts = next((low[k] for k in ("actions", "action", "moves", "move") if k in low), None)
        if acts is None:
            continue
        thought = str(next((low[k] for k in ("thought", "reasoning", "thinking") if k in low), ""))
        if isinstance(acts, str):
            return thought, _split_list(acts)
        if isinstance(acts, list):
            return thought, [str(a) for a in acts]
        return thought, [str(acts)]
    return None


def parse_response(text: str | None, meanings: list[str], max_actions: int = 10) -> Parsed:
    """Thought and actions from a model reply: JSON ({"thought": ..., "actions": [...]}) or the template's
    "Thought: ... / Actions: ..." lines, case and spelling normalised. Unknown actions become NOOP; a reply
    with no actions at all becomes a single NOOP. ``valid`` says whether a fallback was needed."""
    if not text or not text.strip():
        return Parsed("", ["NOOP"], False, ["empty response"])
    thought, tokens = "", None
    js = _from_json(text)
    if js is not None:
        thought, tokens = js
    else:
        tm = re.findall(r"^[^\w\n]*(?:thought|reasoning)[^\w\n:=]*[ \t]*[:=][ \t]*(.*)$", text, re.I | re.M)
        thought = tm[-1].strip().strip("*").strip() if tm else ""
        am = list(re.finditer(r"^[^\w\n]*(?:actions?|moves?)[^\w\n:=]*[ \t]*[:=][ \t]*(.*)$", text, re.I | re.M))
        if am:
            m = am[-1]
            body = m.group(1)
            if not body.strip():  # a list on the following lines ("Actions:\n- LEFT\n- FIRE")
                body = "\n".join(l.strip().lstrip("-*0123456789. )") for l in text[m.end():].splitlines() if l.strip())
            tokens = _split_list(body)
        elif len(text.strip()) <= 40:  # a bare "LEFT" or "left, fire"
            tokens = _split_list(text)
    if not tokens:
        return Parsed(thought, ["NOOP"], False, ["no actions found"])
    expanded: list[str] = []
    for t in tokens:
        expanded += _expand(t)
    errors: list[str] = []
    names: list[str] = []
    invalid = False
    for t in expanded:
        name = normalize_action(t, meanings)
        if name is None and " " in t.strip():
            # "LEFT RIGHT FIRE" written without commas: try each word as its own action
            sub = [normalize_action(w, meanings) for w in t.split()]
            if all(sub):
                names += sub
                continue
        if name is None:
            invalid = True
            errors.append(f"invalid action {t!r}")
            name = "NOOP"
        names.append(name)
    if len(names) > max_actions:
        errors.append(f"{len(names)} actions, kept the first {max_actions}")
        names = names[:max_actions]
    # too many actions is trimmed but not a fallback: every action played is one the model asked for
    return Parsed(thought, names, not invalid, errors, [str(t) for t in tokens])
