"""A tiny 6502 assembler for test cartridges (4K, reset vector at $F000), so quirk tests can run the
same program on our engine and on ale-py."""
from __future__ import annotations

from arcade_lab.engine.tia_regs import VSYNC, WSYNC

OPS = {  # mnemonic+mode -> opcode (only what the tests use)
    "lda#": 0xA9, "ldazp": 0xA5, "ldaabs": 0xAD, "ldx#": 0xA2, "ldy#": 0xA0, "stazp": 0x85, "staabs": 0x8D,
    "stxzp": 0x86, "styzp": 0x84, "inczp": 0xE6, "dex": 0xCA, "dey": 0x88, "inx": 0xE8, "bne": 0xD0,
    "beq": 0xF0, "bpl": 0x10, "bmi": 0x30, "jmp": 0x4C, "nop": 0xEA, "sei": 0x78, "cld": 0xD8, "txs": 0x9A,
    "sta,x": 0x95, "and#": 0x29, "lda,x": 0xB5, "tax": 0xAA, "txa": 0x8A, "jam": 0x02, "bit": 0x24,
    "eor#": 0x49, "ldxabs": 0xAE, "ldyabs": 0xAC, "bitabs": 0x2C, "php": 0x08, "pla": 0x68,
    "lsr": 0x4A, "ora#": 0x09, "cmp#": 0xC9, "bcc": 0x90, "eorzp": 0x45,
}


class Asm:
    def __init__(self, org: int = 0xF000):
        self.org = org
        self.code = bytearray()
        self.labels: dict[str, int] = {}
        self.fixups: list[tuple[int, str, str]] = []

    @property
    def pc(self) -> int:
        return self.org + len(self.code)

    def label(self, name: str) -> "Asm":
        self.labels[name] = self.pc
        return self

    def op(self, name: str, arg=None) -> "Asm":
        self.code.append(OPS[name])
        if name in ("bne", "beq", "bpl", "bmi", "bcc"):
            self.fixups.append((len(self.code), arg, "rel"))
            self.code.append(0)
        elif name.endswith("abs") or name == "jmp":
            if isinstance(arg, str):
                self.fixups.append((len(self.code), arg, "abs"))
                self.code += b"\0\0"
            else:
                self.code += bytes([arg & 0xFF, (arg >> 8) & 0xFF])
        elif arg is not None:
            self.code.append(arg & 0xFF)
        return self

    def frame_start(self) -> "Asm":
        """VSYNC for 3 lines; the frame boundary is the VSYNC-off write."""
        self.op("lda#", 2).op("stazp", WSYNC).op("stazp", VSYNC)
        for _ in range(3):
            self.op("stazp", WSYNC)
        return self.op("lda#", 0).op("stazp", VSYNC)

    def lines(self, n: int, tag: str) -> "Asm":
        """Wait ``n`` scanlines with WSYNC (uses X)."""
        return self.op("ldx#", n).label(tag).op("stazp", WSYNC).op("dex").op("bne", tag)

    def rom(self) -> bytes:
        for at, name, kind in self.fixups:
            target = self.labels[name]
            if kind == "rel":
                off = target - (self.org + at + 1)
                assert -128 <= off <= 127, name
                self.code[at] = off & 0xFF
            else:
                self.code[at:at + 2] = bytes([target & 0xFF, target >> 8])
        img = bytearray(4096)
        img[: len(self.code)] = self.code
        img[0xFFC:0xFFE] = bytes([self.org & 0xFF, self.org >> 8])
        img[0xFFE:0x1000] = bytes([self.org & 0xFF, self.org >> 8])
        img[0x800] ^= 0x5A  # make sure the halves differ: a 4K cartridge, not a mirrored 2K one
        return bytes(img)
