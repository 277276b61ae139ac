"""Compiled hot blocks for every user, not only those who run ``arcade-lab warm --blocks``: a console whose
ROM has no cached blocks asks (once per process) for a child process that compiles them at low priority
and exits. The console runs the interpreter meanwhile; consoles made after the child finishes, and an
environment's next reset, use the blocks.

One child per ROM on the machine, and one at a time (``MAX_CHILDREN``): the child holds a lock file beside
the modules, so eight workers starting one game start one compile, and a program making environments for
every game starts one compile, not one per game (a ROM that found the place taken is asked for again by
its next console). A compile that failed, or a cartridge whose scheme has no blocks,
leaves a note (``.failed``) and is not tried again for this version of the engine; a failure's log
(``.log``) says why.

Each engine version compiles into its own folder (``blocks.folder``): a console stamps its version's folder
as used, and a child that compiled blocks removes the folders of other versions nobody used for
``UNUSED_DAYS`` (an upgrade would otherwise leave up to ~250 MB behind per version).

``ARCADE_LAB_BLOCKS``: ``1`` (default) use cached blocks and compile missing ones in the background;
``cached`` use cached blocks only; ``0`` the interpreter alone.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import blocks

STALE_LOCK_S = 15 * 60  # a lock this old belongs to a child that died (a compile takes under a minute)
# Children compiling at once on the machine: a program that makes environments for a whole suite of games
# starts one, not one per game (each holds ~300 MB while it compiles). A console whose ROM found no free
# place asks again when the next console of that ROM is made.
MAX_CHILDREN = 1
_asked: set[str] = set()  # ROM MD5s this process has asked for
UNUSED_DAYS = 30  # another engine version's blocks folder unused this long is removed
USED = ".used"  # the stamp a console touches in its version's folder (once a process)
_stamped = False
_VERSION = re.compile(r"[0-9a-f]{16}")  # the folders ``blocks.folder`` names: nothing else is touched


def _files(md5: str) -> tuple[Path, Path, Path]:
    base = blocks.folder() / f"blocks_{md5}"
    return base.with_suffix(".lock"), base.with_suffix(".failed"), base.with_suffix(".log")


def wanted() -> bool:
    """Whether missing blocks are compiled in the background here: the setting allows it, and this is a
    Python that can start itself with ``-m`` (not a frozen bundle)."""
    return os.environ.get("ARCADE_LAB_BLOCKS", "1") == "1" and not getattr(sys, "frozen", False)


def compiling_here(game) -> None:
    """This process compiles ``game``'s blocks itself (``blocks.prepare``, whose counting run makes a
    console; ``arcade-lab warm --blocks``): no child is asked for them, which would compile the same module
    beside it."""
    from .console import _resolve  # (console imports this module)

    _asked.add(_resolve(game)[0].md5)


def request(md5: str, game: str | None) -> bool:
    """Start the background compile of ``md5``'s blocks (``game``: its id or ROM path) unless they are
    cached, asked for already, failed before, compiling elsewhere, or not wanted. Returns whether a child
    was started."""
    if md5 in _asked or game is None or not wanted() or blocks.cached(md5):
        return False
    lock, failed, log = _files(md5)
    if failed.exists():
        _asked.add(md5)
        return False
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime > STALE_LOCK_S:
            lock.unlink(missing_ok=True)
        if _compiling() >= MAX_CHILDREN:
            return False  # not asked: the next console of this ROM tries again
        _asked.add(md5)
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False  # another process's child is compiling it
    except OSError:
        return False  # an unwritable cache: the interpreter runs, as without blocks
    os.close(fd)
    try:
        with open(log, "w") as out:
            child = subprocess.Popen([sys.executable, "-m", __name__, md5, game], stdin=subprocess.DEVNULL,
                                     stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                     close_fds=True, env={**os.environ, "ARCADE_LAB_BLOCKS": "1"})
    except OSError:
        lock.unlink(missing_ok=True)
        return False
    # collected when it exits (no zombie); a program that exits first leaves it running to the end
    threading.Thread(target=child.wait, name="arcade-lab-blocks-compile", daemon=True).start()
    return True


def mark_used() -> None:
    """Stamp this engine version's blocks folder as in use (once a process; nothing where it does not exist
    yet or cannot be written): another installation's pruning keeps it."""
    global _stamped
    if _stamped:
        return
    _stamped = True
    try:
        here = blocks.folder()
        if here.is_dir():
            (here / USED).touch()
    except OSError:
        pass


def _last_used(folder: Path) -> float:
    """When ``folder`` was last used: its stamp, or its own time where that is later (it changes whenever a
    compile adds or removes a file)."""
    times = [folder.stat().st_mtime]
    stamp = folder / USED
    if stamp.exists():
        times.append(stamp.stat().st_mtime)
    return max(times)


def other_versions() -> list[Path]:
    """The blocks folders of engine versions other than this one (none where the cache cannot be read)."""
    here = blocks.folder()
    try:
        return [d for d in here.parent.iterdir() if d.is_dir() and d != here and _VERSION.fullmatch(d.name)]
    except OSError:
        return []


def prune(now: float | None = None) -> list[Path]:
    """Remove the blocks folders of other engine versions unused for ``UNUSED_DAYS``; returns them."""
    now = time.time() if now is None else now
    gone = []
    for d in other_versions():
        try:
            if now - _last_used(d) > UNUSED_DAYS * 86400:
                shutil.rmtree(d)
                gone.append(d)
        except OSError:
            pass  # in use or unreadable: left for another time
    return gone


def _compiling() -> int:
    """Children compiling now on this machine (their locks, less those left by children that died)."""
    now = time.time()
    live = 0
    for lock in blocks.folder().glob("blocks_*.lock"):
        try:
            live += now - lock.stat().st_mtime <= STALE_LOCK_S
        except OSError:  # it finished meanwhile
            pass
    return live


def asked(md5: str) -> bool:
    """Whether this process asked for ``md5``'s blocks (a console without them may look again)."""
    return md5 in _asked


def _compile(md5: str, game: str) -> int:
    lock, failed, log = _files(md5)
    try:
        if hasattr(os, "nice"):
            os.nice(10)  # the programs the user is running come first
        if blocks.prepare(game).startswith("not applicable"):  # noted, so no start asks again
            failed.write_text("no blocks for this cartridge's scheme\n")
        log.unlink(missing_ok=True)  # kept only to say why a compile failed
        prune()  # a compile is when a new engine version shows: the old ones' folders may go
        return 0
    except Exception as exc:  # noqa: BLE001 (any failure is noted, so it is not retried at every start)
        failed.write_text(f"{type(exc).__name__}: {exc}\n")
        raise
    finally:
        lock.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(_compile(sys.argv[1], sys.argv[2]))
