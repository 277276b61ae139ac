"""The one bus path: 13-bit address decode to TIA, RIOT RAM, RIOT I/O and cartridge (ALE's page map).

Every transfer latches the data bus (TIA reads return its low six bits as noise). The full 16-bit
address reaches the cartridge (FE decodes A13).
"""
from __future__ import annotations

from ._jit import jit
from .cart_bus import cart_peek, cart_poke
from .layout import C_SCHEME, DBUS, RAM0

# A flat 64 KiB RAM bus (the ``rom`` array is the memory) for CPU test programs such as
# Klaus Dormann's functional test; never used by a console.
S_FLAT64K = 100
from .riot import riot_peek, riot_poke
from .tia import tia_peek, tia_poke


@jit(inline='always')
def peek(s, rom, fb, addr, draw):
    if s[C_SCHEME] == S_FLAT64K:
        v = rom[addr & 0xFFFF]
        s[DBUS] = v
        return v
    a = addr & 0x1FFF
    if a & 0x1000:
        v = cart_peek(s, rom, addr)
    elif (a & 0x80) == 0:
        v = tia_peek(s, fb, a, draw)
    elif (a & 0x200) == 0:
        v = s[RAM0 + (a & 0x7F)]
    else:
        v = riot_peek(s, a)
    s[DBUS] = v
    return v


@jit(inline='always')
def poke(s, rom, fb, addr, value, draw):
    if s[C_SCHEME] == S_FLAT64K:
        rom[addr & 0xFFFF] = value
        s[DBUS] = value
        return
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
