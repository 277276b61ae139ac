"""The 6502 opcode table as ALE's "Low" CPU runs it: operation, addressing mode, base cycles.

Data, not code: the compiled CPU (``cpu.py``) and the disassembler both read these arrays. Cycle counts are
ALE's table (the standard NMOS one, except LAX zp = 4 cycles, and 2 for the JAMs).
"""
from __future__ import annotations

import numpy as np

# Addressing modes.
IMP, IMM, ZP, ZPX, ZPY, ABS, ABX, ABY, IND, IZX, IZY, REL = range(12)
MODE_NAMES = ["imp", "imm", "zp", "zp,X", "zp,Y", "abs", "abs,X", "abs,Y", "(ind)", "(zp,X)", "(zp),Y", "rel"]
MODE_BYTES = [1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2, 2]

# Operand access: none (address only / implied), read, write, read-modify-write.
ACC_NONE, ACC_R, ACC_W, ACC_RMW = range(4)

OPS = [
    "ADC", "AND", "ASL", "ASLA", "BCC", "BCS", "BEQ", "BIT", "BMI", "BNE", "BPL", "BRK", "BVC", "BVS", "CLC",
    "CLD", "CLI", "CLV", "CMP", "CPX", "CPY", "DEC", "DEX", "DEY", "EOR", "INC", "INX", "INY", "JMP", "JSR",
    "LDA", "LDX", "LDY", "LSR", "LSRA", "NOP", "ORA", "PHA", "PHP", "PLA", "PLP", "ROL", "ROLA", "ROR", "RORA",
    "RTI", "RTS", "SBC", "SEC", "SED", "SEI", "STA", "STX", "STY", "TAX", "TAY", "TSX", "TXA", "TXS", "TYA",
    # undocumented ones ALE implements
    "ANC", "ANE", "ARR", "ASR", "DCP", "ISB", "LAS", "LAX", "LXA", "RLA", "RRA", "SAX", "SBX", "SHA", "SHS",
    "SHX", "SHY", "SLO", "SRE",
    "JAM",
]
OP = {name: i for i, name in enumerate(OPS)}

_WRITE_OPS = {"STA", "STX", "STY", "SAX", "SHA", "SHS", "SHX", "SHY"}
_RMW_OPS = {"ASL", "DEC", "INC", "LSR", "ROL", "ROR", "SLO", "RLA", "SRE", "RRA", "DCP", "ISB"}

# opcode -> (operation, mode); the 12 JAMs are filled in below.
_TABLE = {
    0x69: ("ADC", IMM), 0x65: ("ADC", ZP), 0x75: ("ADC", ZPX), 0x6D: ("ADC", ABS), 0x7D: ("ADC", ABX),
    0x79: ("ADC", ABY), 0x61: ("ADC", IZX), 0x71: ("ADC", IZY),
    0x29: ("AND", IMM), 0x25: ("AND", ZP), 0x35: ("AND", ZPX), 0x2D: ("AND", ABS), 0x3D: ("AND", ABX),
    0x39: ("AND", ABY), 0x21: ("AND", IZX), 0x31: ("AND", IZY),
    0x0A: ("ASLA", IMP), 0x06: ("ASL", ZP), 0x16: ("ASL", ZPX), 0x0E: ("ASL", ABS), 0x1E: ("ASL", ABX),
    0x90: ("BCC", REL), 0xB0: ("BCS", REL), 0xF0: ("BEQ", REL), 0x30: ("BMI", REL), 0xD0: ("BNE", REL),
    0x10: ("BPL", REL), 0x50: ("BVC", REL), 0x70: ("BVS", REL),
    0x24: ("BIT", ZP), 0x2C: ("BIT", ABS), 0x00: ("BRK", IMP),
    0x18: ("CLC", IMP), 0xD8: ("CLD", IMP), 0x58: ("CLI", IMP), 0xB8: ("CLV", IMP),
    0xC9: ("CMP", IMM), 0xC5: ("CMP", ZP), 0xD5: ("CMP", ZPX), 0xCD: ("CMP", ABS), 0xDD: ("CMP", ABX),
    0xD9: ("CMP", ABY), 0xC1: ("CMP", IZX), 0xD1: ("CMP", IZY),
    0xE0: ("CPX", IMM), 0xE4: ("CPX", ZP), 0xEC: ("CPX", ABS),
    0xC0: ("CPY", IMM), 0xC4: ("CPY", ZP), 0xCC: ("CPY", ABS),
    0xC6: ("DEC", ZP), 0xD6: ("DEC", ZPX), 0xCE: ("DEC", ABS), 0xDE: ("DEC", ABX),
    0xCA: ("DEX", IMP), 0x88: ("DEY", IMP),
    0x49: ("EOR", IMM), 0x45: ("EOR", ZP), 0x55: ("EOR", ZPX), 0x4D: ("EOR", ABS), 0x5D: ("EOR", ABX),
    0x59: ("EOR", ABY), 0x41: ("EOR", IZX), 0x51: ("EOR", IZY),
    0xE6: ("INC", ZP), 0xF6: ("INC", ZPX), 0xEE: ("INC", ABS), 0xFE: ("INC", ABX),
    0xE8: ("INX", IMP), 0xC8: ("INY", IMP),
    0x4C: ("JMP", ABS), 0x6C: ("JMP", IND), 0x20: ("JSR", ABS),
    0xA9: ("LDA", IMM), 0xA5: ("LDA", ZP), 0xB5: ("LDA", ZPX), 0xAD: ("LDA", ABS), 0xBD: ("LDA", ABX),
    0xB9: ("LDA", ABY), 0xA1: ("LDA", IZX), 0xB1: ("LDA", IZY),
    0xA2: ("LDX", IMM), 0xA6: ("LDX", ZP), 0xB6: ("LDX", ZPY), 0xAE: ("LDX", ABS), 0xBE: ("LDX", ABY),
    0xA0: ("LDY", IMM), 0xA4: ("LDY", ZP), 0xB4: ("LDY", ZPX), 0xAC: ("LDY", ABS), 0xBC: ("LDY", ABX),
    0x4A: ("LSRA", IMP), 0x46: ("LSR", ZP), 0x56: ("LSR", ZPX), 0x4E: ("LSR", ABS), 0x5E: ("LSR", ABX),
    0xEA: ("NOP", IMP), 0x1A: ("NOP", IMP), 0x3A: ("NOP", IMP), 0x5A: ("NOP", IMP), 0x7A: ("NOP", IMP),
    0xDA: ("NOP", IMP), 0xFA: ("NOP", IMP),
    0x80: ("NOP", IMM), 0x82: ("NOP", IMM), 0x89: ("NOP", IMM), 0xC2: ("NOP", IMM), 0xE2: ("NOP", IMM),
    0x04: ("NOP", ZP), 0x44: ("NOP", ZP), 0x64: ("NOP", ZP),
    0x14: ("NOP", ZPX), 0x34: ("NOP", ZPX), 0x54: ("NOP", ZPX), 0x74: ("NOP", ZPX), 0xD4: ("NOP", ZPX),
    0xF4: ("NOP", ZPX), 0x0C: ("NOP", ABS),
    0x1C: ("NOP", ABX), 0x3C: ("NOP", ABX), 0x5C: ("NOP", ABX), 0x7C: ("NOP", ABX), 0xDC: ("NOP", ABX),
    0xFC: ("NOP", ABX),
    0x09: ("ORA", IMM), 0x05: ("ORA", ZP), 0x15: ("ORA", ZPX), 0x0D: ("ORA", ABS), 0x1D: ("ORA", ABX),
    0x19: ("ORA", ABY), 0x01: ("ORA", IZX), 0x11: ("ORA", IZY),
    0x48: ("PHA", IMP), 0x08: ("PHP", IMP), 0x68: ("PLA", IMP), 0x28: ("PLP", IMP),
    0x2A: ("ROLA", IMP), 0x26: ("ROL", ZP), 0x36: ("ROL", ZPX), 0x2E: ("ROL", ABS), 0x3E: ("ROL", ABX),
    0x6A: ("RORA", IMP), 0x66: ("ROR", ZP), 0x76: ("ROR", ZPX), 0x6E: ("ROR", ABS), 0x7E: ("ROR", ABX),
    0x40: ("RTI", IMP), 0x60: ("RTS", IMP),
    0xE9: ("SBC", IMM), 0xEB: ("SBC", IMM), 0xE5: ("SBC", ZP), 0xF5: ("SBC", ZPX), 0xED: ("SBC", ABS),
    0xFD: ("SBC", ABX), 0xF9: ("SBC", ABY), 0xE1: ("SBC", IZX), 0xF1: ("SBC", IZY),
    0x38: ("SEC", IMP), 0xF8: ("SED", IMP), 0x78: ("SEI", IMP),
    0x85: ("STA", ZP), 0x95: ("STA", ZPX), 0x8D: ("STA", ABS), 0x9D: ("STA", ABX), 0x99: ("STA", ABY),
    0x81: ("STA", IZX), 0x91: ("STA", IZY),
    0x86: ("STX", ZP), 0x96: ("STX", ZPY), 0x8E: ("STX", ABS),
    0x84: ("STY", ZP), 0x94: ("STY", ZPX), 0x8C: ("STY", ABS),
    0xAA: ("TAX", IMP), 0xA8: ("TAY", IMP), 0xBA: ("TSX", IMP), 0x8A: ("TXA", IMP), 0x9A: ("TXS", IMP),
    0x98: ("TYA", IMP),
    # undocumented
    0x0B: ("ANC", IMM), 0x2B: ("ANC", IMM), 0x8B: ("ANE", IMM), 0x6B: ("ARR", IMM), 0x4B: ("ASR", IMM),
    0xCF: ("DCP", ABS), 0xDF: ("DCP", ABX), 0xDB: ("DCP", ABY), 0xC7: ("DCP", ZP), 0xD7: ("DCP", ZPX),
    0xC3: ("DCP", IZX), 0xD3: ("DCP", IZY),
    0xEF: ("ISB", ABS), 0xFF: ("ISB", ABX), 0xFB: ("ISB", ABY), 0xE7: ("ISB", ZP), 0xF7: ("ISB", ZPX),
    0xE3: ("ISB", IZX), 0xF3: ("ISB", IZY),
    0xBB: ("LAS", ABY),
    0xAF: ("LAX", ABS), 0xBF: ("LAX", ABY), 0xA7: ("LAX", ZP), 0xB7: ("LAX", ZPY), 0xA3: ("LAX", IZX),
    0xB3: ("LAX", IZY),
    0xAB: ("LXA", IMM),
    0x2F: ("RLA", ABS), 0x3F: ("RLA", ABX), 0x3B: ("RLA", ABY), 0x27: ("RLA", ZP), 0x37: ("RLA", ZPX),
    0x23: ("RLA", IZX), 0x33: ("RLA", IZY),
    0x6F: ("RRA", ABS), 0x7F: ("RRA", ABX), 0x7B: ("RRA", ABY), 0x67: ("RRA", ZP), 0x77: ("RRA", ZPX),
    0x63: ("RRA", IZX), 0x73: ("RRA", IZY),
    0x8F: ("SAX", ABS), 0x87: ("SAX", ZP), 0x97: ("SAX", ZPY), 0x83: ("SAX", IZX),
    0xCB: ("SBX", IMM),
    0x9F: ("SHA", ABY), 0x93: ("SHA", IZY), 0x9B: ("SHS", ABY), 0x9E: ("SHX", ABY), 0x9C: ("SHY", ABX),
    0x0F: ("SLO", ABS), 0x1F: ("SLO", ABX), 0x1B: ("SLO", ABY), 0x07: ("SLO", ZP), 0x17: ("SLO", ZPX),
    0x03: ("SLO", IZX), 0x13: ("SLO", IZY),
    0x4F: ("SRE", ABS), 0x5F: ("SRE", ABX), 0x5B: ("SRE", ABY), 0x47: ("SRE", ZP), 0x57: ("SRE", ZPX),
    0x43: ("SRE", IZX), 0x53: ("SRE", IZY),
}
JAM_OPCODES = (0x02, 0x12, 0x22, 0x32, 0x42, 0x52, 0x62, 0x72, 0x92, 0xB2, 0xD2, 0xF2)
for _op in JAM_OPCODES:
    _TABLE[_op] = ("JAM", IMP)
assert len(_TABLE) == 256

# ALE's cycle table (processor cycles charged before the instruction's operand accesses).
_CYCLE_ROWS = """
7 6 2 8 3 3 5 5 3 2 2 2 4 4 6 6
2 5 2 8 4 4 6 6 2 4 2 7 4 4 7 7
6 6 2 8 3 3 5 5 4 2 2 2 4 4 6 6
2 5 2 8 4 4 6 6 2 4 2 7 4 4 7 7
6 6 2 8 3 3 5 5 3 2 2 2 3 4 6 6
2 5 2 8 4 4 6 6 2 4 2 7 4 4 7 7
6 6 2 8 3 3 5 5 4 2 2 2 5 4 6 6
2 5 2 8 4 4 6 6 2 4 2 7 4 4 7 7
2 6 2 6 3 3 3 3 2 2 2 2 4 4 4 4
2 6 2 6 4 4 4 4 2 5 2 5 5 5 5 5
2 6 2 6 3 3 3 4 2 2 2 2 4 4 4 4
2 5 2 5 4 4 4 4 2 4 2 4 4 4 4 4
2 6 2 8 3 3 5 5 2 2 2 2 4 4 6 6
2 5 2 8 4 4 6 6 2 4 2 7 4 4 7 7
2 6 2 8 3 3 5 5 2 2 2 2 4 4 6 6
2 5 2 8 4 4 6 6 2 4 2 7 4 4 7 7
"""

CYCLES = np.array([int(v) for v in _CYCLE_ROWS.split()], dtype=np.int64)
OPERATION = np.array([OP[_TABLE[i][0]] for i in range(256)], dtype=np.int64)
MODE = np.array([_TABLE[i][1] for i in range(256)], dtype=np.int64)


def _access(name: str, mode: int) -> int:
    if mode in (IMP, REL, IND) or name in ("JMP", "JSR"):
        return ACC_NONE if mode != REL else ACC_R
    if name in _WRITE_OPS:
        return ACC_W
    if name in _RMW_OPS:
        return ACC_RMW
    return ACC_R


ACCESS = np.array([_access(_TABLE[i][0], _TABLE[i][1]) for i in range(256)], dtype=np.int64)
UNDOCUMENTED = np.array([OP[_TABLE[i][0]] >= OP["ANC"] or (_TABLE[i][0] == "NOP" and i != 0xEA)
                         for i in range(256)], dtype=np.bool_)


def disassemble(read, addr: int) -> tuple[str, int]:
    """One instruction at ``addr`` (``read(a) -> byte``): its text and length."""
    op = read(addr)
    name, mode = _TABLE[op]
    n = MODE_BYTES[mode]
    lo = read((addr + 1) & 0xFFFF) if n > 1 else 0
    hi = read((addr + 2) & 0xFFFF) if n > 2 else 0
    w = lo | (hi << 8)
    text = {
        IMP: "", IMM: f"#${lo:02X}", ZP: f"${lo:02X}", ZPX: f"${lo:02X},X", ZPY: f"${lo:02X},Y",
        ABS: f"${w:04X}", ABX: f"${w:04X},X", ABY: f"${w:04X},Y", IND: f"(${w:04X})",
        IZX: f"(${lo:02X},X)", IZY: f"(${lo:02X}),Y",
        REL: f"${(addr + 2 + (lo - 256 if lo & 0x80 else lo)) & 0xFFFF:04X}",
    }[mode]
    return (f"{name} {text}".strip(), n)
