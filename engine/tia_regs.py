"""The TIA's registers by their hardware names: write registers as the low six address bits
(``addr & 0x3F``), read registers as the low four (``addr & 0x0F``)."""
from __future__ import annotations

# write registers
VSYNC, VBLANK, WSYNC, RSYNC = 0x00, 0x01, 0x02, 0x03
NUSIZ0, NUSIZ1 = 0x04, 0x05
COLUP0, COLUP1, COLUPF, COLUBK = 0x06, 0x07, 0x08, 0x09
CTRLPF, REFP0, REFP1 = 0x0A, 0x0B, 0x0C
PF0, PF1, PF2 = 0x0D, 0x0E, 0x0F
RESP0, RESP1, RESM0, RESM1, RESBL = 0x10, 0x11, 0x12, 0x13, 0x14
AUDC0, AUDC1, AUDF0, AUDF1, AUDV0, AUDV1 = 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A
GRP0, GRP1, ENAM0, ENAM1, ENABL = 0x1B, 0x1C, 0x1D, 0x1E, 0x1F
HMP0, HMP1, HMM0, HMM1, HMBL = 0x20, 0x21, 0x22, 0x23, 0x24
VDELP0, VDELP1, VDELBL = 0x25, 0x26, 0x27
RESMP0, RESMP1 = 0x28, 0x29
HMOVE, HMCLR, CXCLR = 0x2A, 0x2B, 0x2C
N_WRITE = 0x40  # addresses 0x2D..0x3F name no register

# read registers: the collision latches, then the paddle and fire-button inputs
CXM0P, CXM1P, CXP0FB, CXP1FB, CXM0FB, CXM1FB, CXBLPF, CXPPMM = range(8)
INPT0, INPT1, INPT2, INPT3, INPT4, INPT5 = range(8, 14)
