"""The one bus path: 13-bit address decode to TIA, RIOT RAM, RIOT I/O and cartridge (ALE's page map).

Every transfer latches the data bus (TIA reads return its low six bits as noise). The full 16-bit
address reaches the cartridge (FE decodes A13). ``peek``/``poke`` are inlined into the CPU: ROM reads
outside device pages and RAM accesses never leave the CPU loop; TIA, RIOT I/O and cartridge device
pages (hotspots, Superchip RAM, DPC) are calls.
"""
from __future__ import annotations

from ._jit import jit
from .cart_bus import cart_peek, cart_poke
from .layout import C_BASE, C_FAST_HI, C_FAST_LO, C_PAGE, C_SCHEME, DBUS, RAM0
from .riot import riot_peek, riot_poke
from .tia import tia_access

# A flat 64 KiB RAM bus (the ``rom`` array is the memory) for CPU test programs such as
# Klaus Dormann's functional test; never used by a console.
S_FLAT64K = 100


def _access(s, rom, fb, addr, value, write, draw):
    """One transfer through the full address decode (any address); returns the byte on the bus.
    Reads and writes share one body so that the TIA path (and its drawing) is inlined once."""
    if s[C_SCHEME] == S_FLAT64K:
        if write:
            rom[addr & 0xFFFF] = value
        else:
            value = rom[addr & 0xFFFF]
    else:
        a = addr & 0x1FFF
        if a & 0x1000:
            off = a & 0x0FFF
            if write:
                cart_poke(s, addr, value)
            elif s[C_FAST_LO] <= off < s[C_FAST_HI]:
                value = rom[s[C_BASE + (off >> 10)] + (off & 0x03FF)]
            else:
                value = cart_peek(s, rom, addr)
        elif (a & 0x80) == 0:
            value = tia_access(s, fb, a, value, write, draw)
        elif (a & 0x200) == 0:
            if write:
                s[RAM0 + (a & 0x7F)] = value
            else:
                value = s[RAM0 + (a & 0x7F)]
        elif write:
            riot_poke(s, a, value)
        else:
            value = riot_peek(s, a)
    s[DBUS] = value
    return value


access = jit(_access)
# The same decode inlined into its caller: the CPU's device entry point (``cpu._device_c``) is a C
# callback taking raw pointers, and a call from it into ``access`` would pass every array as its
# exploded struct again.
access_inline = jit(inline="always")(_access)


@jit
def read(s, rom, fb, addr, draw):
    return access(s, rom, fb, addr, 0, False, draw)


@jit
def write(s, rom, fb, addr, value, draw):
    access(s, rom, fb, addr, value, True, draw)


@jit(forceinline=True)
def peek(s, rom, fb, addr, draw):
    """Inlined into the CPU: cartridge ROM outside device pages and RIOT RAM stay in the loop."""
    a = addr & 0x1FFF
    if a & 0x1000:
        base = s[C_PAGE + ((a >> 6) & 63)]
        if base >= 0:
            v = rom[base + (a & 63)]
            s[DBUS] = v
            return v
    elif (a & 0x280) == 0x80 and s[C_SCHEME] != S_FLAT64K:
        v = s[RAM0 + (a & 0x7F)]
        s[DBUS] = v
        return v
    return read(s, rom, fb, addr, draw)


@jit(forceinline=True)
def poke(s, rom, fb, addr, value, draw):
    a = addr & 0x1FFF
    if s[C_SCHEME] == S_FLAT64K:
        rom[addr & 0xFFFF] = value
        s[DBUS] = value
    elif (a & 0x1280) == 0x80:
        s[RAM0 + (a & 0x7F)] = value
        s[DBUS] = value
    else:
        write(s, rom, fb, addr, value, draw)
