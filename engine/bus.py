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
from .tia import tia_peek, tia_poke

# A flat 64 KiB RAM bus (the ``rom`` array is the memory) for CPU test programs such as
# Klaus Dormann's functional test; never used by a console.
S_FLAT64K = 100


def _read(s, rom, fb, addr, draw):
    """A read through the full address decode (any address)."""
    if s[C_SCHEME] == S_FLAT64K:
        v = rom[addr & 0xFFFF]
    else:
        a = addr & 0x1FFF
        if a & 0x1000:
            off = a & 0x0FFF
            if s[C_FAST_LO] <= off < s[C_FAST_HI]:
                v = rom[s[C_BASE + (off >> 10)] + (off & 0x03FF)]
            else:
                v = cart_peek(s, rom, addr)
        elif (a & 0x80) == 0:
            v = tia_peek(s, fb, a, draw)
        elif (a & 0x200) == 0:
            v = s[RAM0 + (a & 0x7F)]
        else:
            v = riot_peek(s, a)
    s[DBUS] = v
    return v


def _write(s, rom, fb, addr, value, draw):
    """A write through the full address decode (any address)."""
    if s[C_SCHEME] == S_FLAT64K:
        rom[addr & 0xFFFF] = value
    else:
        a = addr & 0x1FFF
        if a & 0x1000:
            cart_poke(s, addr, value)
        elif (a & 0x80) == 0:
            tia_poke(s, fb, a, value, draw)
        elif (a & 0x200) == 0:
            s[RAM0 + (a & 0x7F)] = value
        else:
            riot_poke(s, a, value)
    s[DBUS] = value


read = jit(_read)
write = jit(_write)
# The same decode inlined into its caller: the CPU's device entry point (``cpu._device_c``) is a C
# callback taking raw pointers, and a call from it into ``read``/``write`` would pass every array as its
# exploded struct again.
read_inline = jit(inline="always")(_read)
write_inline = jit(inline="always")(_write)


@jit(inline="always")
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


@jit(inline="always")
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
