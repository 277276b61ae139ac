"""The 20 AtariBench games (paper, Table 1) and our own per-game instructions for the prompt.

Each entry: the title the model sees, the objective, and what the controls do in that game. The
instructions are written from the games' manuals' rules in our own words; the action list shown to the
model is generated from the game's ALE minimal action set, so it always matches what ``Env`` accepts.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameSpec:
    id: str           # engine game id
    title: str
    category: str     # Shooter, Sports, Action, Maze (Table 1)
    objective: str
    fire: str = "fire"                # what FIRE does here
    move: str = "move your ship"      # what the directions do here
    notes: str = ""


GAMES: dict[str, GameSpec] = {g.id: g for g in [
    GameSpec("air_raid", "Air Raid", "Shooter",
             "Defend the city buildings at the bottom from the flying saucers. Shoot saucers for points and "
             "avoid their bombs.", fire="shoot a missile straight up", move="slide your launcher left or right"),
    GameSpec("assault", "Assault", "Shooter",
             "Shoot the enemy ships dropped by the mother ship at the top while dodging their fire. Firing too "
             "fast overheats your cannon (the heat bar at the bottom) and costs a life.",
             fire="shoot straight up", move="move left/right; UP also fires upward",
             notes="RIGHTFIRE / LEFTFIRE fire sideways along the ground at ground crawlers."),
    GameSpec("beam_rider", "Beam Rider", "Shooter",
             "Travel down the beams and destroy the white enemy saucers. Dodge or destroy debris and enemy "
             "shots. UP launches one of your few torpedoes (top right counter), which also hit the sector boss.",
             fire="shoot a laser lariat up your beam", move="jump to the neighbouring beam left or right"),
    GameSpec("demon_attack", "Demon Attack", "Shooter",
             "Shoot the winged demons above you. Avoid their lasers; demons that split into smaller birds dive "
             "at you.", fire="shoot a laser up (one shot at a time)", move="move your cannon left or right"),
    GameSpec("laser_gates", "Laser Gates", "Shooter",
             "Fly your Dante Dart through the tunnel, shooting obstacles and passing the laser gates when they "
             "are open. Hits drain your energy shield.", fire="shoot forward (to the right)",
             move="fly up/down/left/right"),
    GameSpec("name_this_game", "Name This Game", "Shooter",
             "Protect the treasure on the sea floor: shoot the octopus's tentacles before they reach the bottom, "
             "shoot the shark before it reaches you, and catch the air line from the boat above when it drops "
             "(your oxygen runs out otherwise).", fire="shoot upward", move="swim left or right"),
    GameSpec("phoenix", "Phoenix", "Shooter",
             "Shoot the birds and the alien mothership. Avoid bombs and diving birds.",
             fire="shoot upward", move="move left or right",
             notes="DOWN raises a shield for a moment (you cannot move while it is up)."),
    GameSpec("riverraid", "River Raid", "Shooter",
             "Fly up the river shooting ships, helicopters, jets, bridges and fuel depots for points. Do not "
             "touch the river banks. Fly over fuel depots to refuel; running out of fuel costs a life.",
             fire="shoot forward", move="LEFT/RIGHT steer, UP speeds up, DOWN slows down"),
    GameSpec("seaquest", "Seaquest", "Shooter",
             "Pilot your submarine: shoot sharks and enemy subs, rescue divers, and surface before your oxygen "
             "runs out (surface with six divers for a big bonus; surfacing with none costs a life).",
             fire="fire a torpedo in the direction you face", move="steer the submarine in all directions"),
    GameSpec("time_pilot", "Time Pilot", "Shooter",
             "Fly through the eras shooting enemy aircraft; after enough kills the era's mothership appears. "
             "Avoid collisions and enemy bullets. Your plane stays in the centre while the sky scrolls.",
             fire="shoot in the direction you fly", move="rotate your plane towards the pushed direction"),
    GameSpec("robotank", "Robotank", "Shooter",
             "You command a tank (first-person view with radar below). Find and destroy enemy robot tanks "
             "before they destroy you; damage to your tank is shown by the letters under the view.",
             fire="fire your cannon forward", move="LEFT/RIGHT turn, UP drives forward, DOWN backs up"),
    GameSpec("boxing", "Boxing", "Sports",
             "Top view of a boxing ring: you are the white boxer. Land punches on the black boxer (1 point for "
             "long jabs, 2 for close power punches) and avoid his. The round lasts two minutes.",
             fire="punch", move="move your boxer around the ring"),
    GameSpec("fishing_derby", "Fishing Derby", "Sports",
             "You fish from the left pier. Hook fish and reel them up before the shark eats them; deeper fish "
             "are worth more. First to 99 pounds wins.",
             fire="reel in faster once a fish is hooked", move="move the rod tip and line (left/right, up/down)"),
    GameSpec("tennis", "Tennis", "Sports",
             "You play the orange player. Move to the ball; you swing automatically when it reaches you. Win "
             "points by getting the ball past your opponent.", fire="serve the ball (when you serve)",
             move="run around your side of the court"),
    GameSpec("breakout", "Breakout", "Action",
             "Bounce the ball off your paddle to break the bricks at the top. Each brick gives points; do not "
             "let the ball fall past your paddle.", fire="launch (serve) a new ball — needed after each lost ball",
             move="move the paddle left or right"),
    GameSpec("freeway", "Freeway", "Action",
             "Guide your chicken (left side) across ten lanes of traffic. Each crossing scores a point; a car "
             "hit pushes the chicken back.", fire="(none)", move="UP walks forward, DOWN walks back"),
    GameSpec("gopher", "Gopher", "Action",
             "You are the farmer. The gopher tunnels underground to eat your carrots: fill its holes (move over "
             "them and press FIRE to shovel) and bonk it when it surfaces.", fire="shovel / bonk",
             move="move the farmer left or right"),
    GameSpec("journey_escape", "Journey Escape", "Action",
             "Lead the band members down the screen to the scarab escape vehicle before time runs out. Avoid "
             "groupies, photographers and promoters (they cost cash and time); managers make you invincible.",
             fire="(combined with a direction: move the same way)", move="move in all directions"),
    GameSpec("pacman", "Pac-Man", "Maze",
             "Eat the dots in the maze while avoiding the ghosts. Power pills let you eat the ghosts for a "
             "short while.", fire="(none)", move="steer through the maze corridors"),
    GameSpec("qbert", "Q*bert", "Maze",
             "Hop on every cube of the pyramid to change its colour to the target colour. Do not jump off the "
             "pyramid and avoid the red balls and Coily the snake.", fire="(no effect)",
             move="UP = up-right, RIGHT = down-right, LEFT = up-left, DOWN = down-left (diagonal hops)"),
]}

GAME_IDS: tuple[str, ...] = tuple(GAMES)

def describe_action(meaning: str, spec: GameSpec) -> str:
    """One line of the action list: the name the model must use and what it does in this game."""
    if meaning == "NOOP":
        return "NOOP: do nothing for this step"
    if meaning == "FIRE":
        return f"FIRE: {spec.fire}"
    dirs = meaning.replace("FIRE", "")
    pieces = [p for p in ("UP", "DOWN", "LEFT", "RIGHT") if p in dirs]
    text = "push " + "+".join(p.lower() for p in pieces)
    if meaning.endswith("FIRE"):
        text += " while pressing the button"
    return f"{meaning}: {text}"


def resolve(name: str) -> str:
    """A game id from an id, a title or a loose spelling ("Breakout", "BeamRider", "ms-pacman")."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key in GAMES:
        return key
    squash = key.replace("_", "")
    for gid, g in GAMES.items():
        if squash in (gid.replace("_", ""), g.title.lower().replace(" ", "").replace("*", "").replace("-", "")):
            return gid
    raise ValueError(f"{name!r} is not an AtariBench game; the 20 are: {', '.join(GAMES)}")
