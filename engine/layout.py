"""Layout of the machine state: one flat int64 array with named offsets.

Everything that decides what the console does next lives in this one array — CPU, RIOT, TIA, cartridge,
the system RNG, the input lines and the game-rules/episode counters — so a snapshot is a copy of its
prefix ``s[:N_SNAPSHOT]``; only process-local slots (kernel addresses, a cache) follow that prefix.
Frame buffers and ROM bytes live outside it (as in ALE, screens are not part of a state).
"""
from __future__ import annotations

_names: list[str] = []


def _alloc(name: str, n: int = 1) -> int:
    i = len(_names)
    _names.extend([name] * n)
    return i


# --- system / CPU -----------------------------------------------------------------------------
CYC = _alloc("cycles")              # system cycle counter, reset to 0 at every frame start
DBUS = _alloc("data_bus")           # last byte moved over the data bus (undriven TIA bits)
A = _alloc("A")
X = _alloc("X")
Y = _alloc("Y")
SP = _alloc("SP")
PC = _alloc("PC")
IR = _alloc("IR")
FN = _alloc("flag_N")
FV = _alloc("flag_V")
FB = _alloc("flag_B")
FD = _alloc("flag_D")
FI = _alloc("flag_I")
FNZ = _alloc("flag_notZ")           # nonzero <=> Z clear (ALE keeps "notZ")
FC = _alloc("flag_C")
EXEC = _alloc("exec_status")        # EX_STOP / EX_FATAL bits
LAST_READ = _alloc("last_access_was_read")
INSTR = _alloc("instructions")      # instructions executed (diagnostics)
JAMMED = _alloc("jammed_opcode")    # last JAM opcode hit + 1 (0 = none)

EX_STOP = 1
EX_FATAL = 2

# --- RIOT (M6532) ------------------------------------------------------------------------------
R_TIMER = _alloc("riot_timer")
R_SHIFT = _alloc("riot_shift")
R_SETCYC = _alloc("riot_set_cycle")
R_INTCYC = _alloc("riot_int_reset_cycle")
R_READAFTER = _alloc("riot_read_after_int")
R_DDRA = _alloc("riot_ddra")
R_DDRB = _alloc("riot_ddrb")

# --- TIA: frame bookkeeping --------------------------------------------------------------------
T_FRAMESTART = _alloc("clock_frame_started")
T_STARTDISP = _alloc("clock_start_display")
T_STOPDISP = _alloc("clock_stop_display")
T_LASTUPD = _alloc("clock_last_update")
T_TOEOL = _alloc("clocks_to_end_of_line")
T_VSYNCFIN = _alloc("vsync_finish_clock")
T_LINESLAST = _alloc("scanlines_last_frame")
T_CURLINE = _alloc("current_scanline")
T_FP = _alloc("frame_pointer")      # pixel offset inside the current frame buffer
T_FBCUR = _alloc("current_buffer")  # which of the two frame buffers is being drawn
T_PARTIAL = _alloc("partial_frame")
T_GREYED = _alloc("frame_greyed")
T_YSTART = _alloc("ystart")
T_HEIGHT = _alloc("height")
T_FRAMEHEIGHT = _alloc("frame_height")  # max(height, 200): the rows ALE copies out
T_MAXLINES = _alloc("max_scanlines")
T_COLORLOSS = _alloc("color_loss")
T_HMBLANKS = _alloc("allow_hmove_blanks")
T_FRAMES = _alloc("tia_frames")

# --- TIA: registers ----------------------------------------------------------------------------
T_ENABLED = _alloc("enabled_objects")
T_VSYNC = _alloc("VSYNC")
T_VBLANK = _alloc("VBLANK")
T_NUSIZ0 = _alloc("NUSIZ0")
T_NUSIZ1 = _alloc("NUSIZ1")
T_COLUBK = _alloc("COLUBK")         # the four colour registers, in ALE's myColor[] order
T_COLUPF = _alloc("COLUPF")
T_COLUP0 = _alloc("COLUP0")
T_COLUP1 = _alloc("COLUP1")
T_CTRLPF = _alloc("CTRLPF")
T_PPS = _alloc("pf_priority_score")
T_REFP0 = _alloc("REFP0")
T_REFP1 = _alloc("REFP1")
T_PF = _alloc("PF")
T_GRP0 = _alloc("GRP0")
T_GRP1 = _alloc("GRP1")
T_DGRP0 = _alloc("DGRP0")
T_DGRP1 = _alloc("DGRP1")
T_ENAM0 = _alloc("ENAM0")
T_ENAM1 = _alloc("ENAM1")
T_ENABL = _alloc("ENABL")
T_DENABL = _alloc("DENABL")
T_HMP0 = _alloc("HMP0")
T_HMP1 = _alloc("HMP1")
T_HMM0 = _alloc("HMM0")
T_HMM1 = _alloc("HMM1")
T_HMBL = _alloc("HMBL")
T_VDELP0 = _alloc("VDELP0")
T_VDELP1 = _alloc("VDELP1")
T_VDELBL = _alloc("VDELBL")
T_RESMP0 = _alloc("RESMP0")
T_RESMP1 = _alloc("RESMP1")
T_COLLISION = _alloc("collision")
T_POSP0 = _alloc("POSP0")
T_POSP1 = _alloc("POSP1")
T_POSM0 = _alloc("POSM0")
T_POSM1 = _alloc("POSM1")
T_POSBL = _alloc("POSBL")
T_CURGRP0 = _alloc("current_GRP0")
T_CURGRP1 = _alloc("current_GRP1")
# The "current mask" of each object is a table row chosen when a register is written; we keep the
# parameters that chose it (the object may move later without the mask following, as in ALE).
T_P0M_POS = _alloc("p0_mask_pos")
T_P0M_MODE = _alloc("p0_mask_mode")
T_P0M_SKIP = _alloc("p0_mask_skip_first")
T_P1M_POS = _alloc("p1_mask_pos")
T_P1M_MODE = _alloc("p1_mask_mode")
T_P1M_SKIP = _alloc("p1_mask_skip_first")
T_M0M_POS = _alloc("m0_mask_pos")
T_M0M_NUM = _alloc("m0_mask_number")
T_M0M_SIZE = _alloc("m0_mask_size")
T_M0M_OFF = _alloc("m0_mask_disabled")
T_M1M_POS = _alloc("m1_mask_pos")
T_M1M_NUM = _alloc("m1_mask_number")
T_M1M_SIZE = _alloc("m1_mask_size")
T_BLM_POS = _alloc("bl_mask_pos")
T_BLM_SIZE = _alloc("bl_mask_size")
T_PFM_REFL = _alloc("pf_mask_reflect")
T_LASTHMOVE = _alloc("last_hmove_clock")
T_HMBLANK_ON = _alloc("hmove_blank_enabled")
T_COSMIC_ON = _alloc("cosmic_ark_enabled")
T_COSMIC_CNT = _alloc("cosmic_ark_counter")
T_DUMP_ON = _alloc("dump_enabled")
T_DUMP_CYC = _alloc("dump_disabled_cycle")
T_AUDC0 = _alloc("AUDC0")
T_AUDC1 = _alloc("AUDC1")
T_AUDF0 = _alloc("AUDF0")
T_AUDF1 = _alloc("AUDF1")
T_AUDV0 = _alloc("AUDV0")
T_AUDV1 = _alloc("AUDV1")
AUD_ON = _alloc("audio_log_on")      # when set, AUDx writes are logged with their cycle (for sound)
AUD_N = _alloc("audio_log_count")

# --- cartridge ---------------------------------------------------------------------------------
C_SCHEME = _alloc("cart_scheme")
C_BANK = _alloc("cart_bank")        # 4K bank (F8/F6/F4/DPC families)
C_RESETBANK = _alloc("cart_reset_bank")
C_SLICE = _alloc("cart_e0_slices", 4)
C_XRAM_SIZE = _alloc("cart_extra_ram_size")
# Fast read path: cartridge offsets in [C_FAST_LO, C_FAST_HI) read rom[C_BASE[off >> 10] + (off & 0x3FF)]
# directly (no device side effects there); everything else goes through the scheme's device code.
C_FAST_LO = _alloc("cart_fast_lo")
C_FAST_HI = _alloc("cart_fast_hi")
C_BASE = _alloc("cart_slice_base", 4)
C_PAGE = _alloc("cart_page_map", 64)  # per 64-byte page of $1000-$1FFF: ROM offset read directly, or -1
D_TOPS = _alloc("dpc_tops", 8)
D_BOTTOMS = _alloc("dpc_bottoms", 8)
D_COUNTERS = _alloc("dpc_counters", 8)
D_FLAGS = _alloc("dpc_flags", 8)
D_MUSIC = _alloc("dpc_music_mode", 3)
D_RNG = _alloc("dpc_random")
D_SYSCYC = _alloc("dpc_system_cycles")
D_FRAC = _alloc("dpc_fractional_clocks")  # a float64, stored bit-for-bit

# --- console inputs (set by the environment every frame) ----------------------------------------
IN_SWCHA = _alloc("in_swcha")       # port A pins as the controllers drive them
IN_SWITCHES = _alloc("in_switches")  # console switch byte (ALE keeps it between reads)
IN_FIRE = _alloc("in_fire", 2)      # INPT4/INPT5 bit 7 (1 = not pressed)
IN_RES = _alloc("in_resistance", 4)  # INPT0..3 paddle resistances
CFG_CTRL = _alloc("cfg_controller", 2)  # per port: 0 joystick, 1 paddles
CFG_PLAYER = _alloc("cfg_port_player", 2)  # which player's events each port reads (swap ports)
CFG_SWAPPADDLES = _alloc("cfg_swap_paddles")
# Input events, as ALE's Event table names them (player 0 = "Zero", player 1 = "One").
EV_J_UP = _alloc("ev_joy_up", 2)
EV_J_DOWN = _alloc("ev_joy_down", 2)
EV_J_LEFT = _alloc("ev_joy_left", 2)
EV_J_RIGHT = _alloc("ev_joy_right", 2)
EV_J_FIRE = _alloc("ev_joy_fire", 2)
EV_P_FIRE = _alloc("ev_paddle_fire", 4)
EV_P_RES = _alloc("ev_paddle_resistance", 4)
EV_RESET = _alloc("ev_reset")
EV_SELECT = _alloc("ev_select")
EV_DIFF_A = _alloc("ev_difficulty_a", 2)   # [left, right]
EV_DIFF_B = _alloc("ev_difficulty_b", 2)
EV_COLOR = _alloc("ev_color")
EV_BW = _alloc("ev_black_white")
EV_FIRST = EV_J_UP
EV_LAST = EV_BW + 1

# --- system RNG (std::mt19937 seeded 4753849) -------------------------------------------------
MT_IDX = _alloc("mt_index")
MT0 = _alloc("mt_state", 624)

# --- memories -----------------------------------------------------------------------------------
RAM0 = _alloc("riot_ram", 128)
XRAM0 = _alloc("cart_ram", 256)

# --- environment (ALE's StellaEnvironment/ALEState + the game's RomSettings fields) -------------
E_FRAME = _alloc("frame_number")
E_EPFRAME = _alloc("episode_frame_number")
E_MODE = _alloc("mode")
E_DIFF = _alloc("difficulty")
E_PADDLE = _alloc("paddle_position", 2)
E_PADDLE_MIN = _alloc("paddle_min")
E_PADDLE_MAX = _alloc("paddle_max")
E_LAST_ACT = _alloc("sticky_action", 2)
E_LAST_DELTA = _alloc("sticky_paddle_delta", 2)  # |paddle step| the sticky action carries
E_FRAMESKIP = _alloc("frame_skip")
E_STICKY_THRESH = _alloc("sticky_threshold")  # keep the new action when mt19937() >= this
E_USE_PADDLES = _alloc("use_paddles")
E_PAL = _alloc("pal")
E_GAME = _alloc("game_index")
E_MAXFRAMES = _alloc("max_frames_per_episode")
E_TRUNC_LIFE = _alloc("truncate_on_life_loss")
E_MAXLIVES = _alloc("lives_at_start")
G0 = _alloc("game_rules", 48)       # reward, score, terminal, lives, game-specific fields

# Process-local slots, after everything a snapshot holds: the addresses of this process's compiled C
# kernels (see _jit.py), and a cache. A snapshot is the prefix s[:N_SNAPSHOT]; a restore leaves these.
N_SNAPSHOT = len(_names)
FN_RUN_FRAME = _alloc("kernel_run_frame")
FN_SYSTEM_RESET = _alloc("kernel_system_reset")
FN_GAME_STEP = _alloc("kernel_game_step")
FN_GAME_RESET = _alloc("kernel_game_reset")
FN_GAME_LIVES = _alloc("kernel_game_lives")
FN_GAME_SET_MODE = _alloc("kernel_game_set_mode")  # 0 for a game without modes
FN_DEVICE = _alloc("kernel_device_access")      # the CPU's TIA/RIOT/cartridge-device accesses (cpu.py)
FN_TIA_UNDRAWN = _alloc("kernel_tia_write_undrawn")  # its TIA writes on undrawn frames, drawing compiled out
FN_EXECUTE = _alloc("kernel_execute")            # the 6502 loop for one frame (machine.py)
# A ROM's compiled hot blocks (blocks.py), 0 without: their function, the table the loop finds them by
# (per ROM image offset, the block's length or 0; its address and length), the C entry points they write
# through, and the counters a selection run fills (per offset: instructions run, then arrivals).
FN_BLOCKS = _alloc("kernel_blocks")
BLOCK_TABLE = _alloc("block_table_address")
BLOCK_TABLE_N = _alloc("block_table_length")
FN_BLOCK_WRITE = _alloc("kernel_block_write")
FN_BLOCK_STORED = _alloc("kernel_block_stored")
BLOCK_COUNTS = _alloc("block_counts_address")
FN_FIRST, FN_LAST = FN_RUN_FRAME, BLOCK_COUNTS + 1
# Derived, not state: each object's coverage of a line (tia._undrawn_collisions) keyed by the inputs it
# was built from, reused while they stay the same (P0, P1, M0, M1, BL, PF) — valid whatever was restored.
CV_KEY = _alloc("cover_cache_key", 6)
CV_WORDS = _alloc("cover_cache_words", 18)
# Derived, not state: the playfield's pixels under either reflection (tia.quiet), keyed by PF | 1 << 40.
QV_PF_KEY = _alloc("quiet_pf_key")
QV_PF_WORDS = _alloc("quiet_pf_words", 3)
# Derived, not state: the collision pairs (tia_tables._collision_table's bits) tia.quiet last found kept
# apart where the objects now are. A change of an object's place or size (the mask setters, the playfield
# store) clears its pairs; every cpu_exec.execute call starts with none, so no restore can stale it.
QV_OK = _alloc("quiet_pairs_ok")
# The current line's undrawn coverage per object (same order, three words each) and which objects have
# some: collisions are latched from it once per line (tia.flush_coverage). Empty after every run_frame,
# so a snapshot never misses a pending collision.
ACC_OBJS = _alloc("line_cover_objects")
ACC_WORDS = _alloc("line_cover_words", 18)
# The clock of the last TIA write the CPU stored itself without drawing up to it (cpu._wr, tia.UNSEEN);
# run_frame draws up to it when its call ends, so the state between calls is as if it had.
DEFER_CLK = _alloc("deferred_update_clock")
# Derived, not state: the frame's clock constants the CPU's write path reads, set by every
# cpu_exec.execute call (the frame start cannot move during one): the first CPU cycle of the frame's line
# 0 rounded up (tia.write_x), the same truncated as ALE's WSYNC counts it, and the clock past the line limit.
X_CYC0 = _alloc("frame_start_cycle_ceil")
X_CYC0_TRUNC = _alloc("frame_start_cycle_trunc")
X_LIMIT = _alloc("line_limit_clock")
# Non-zero while ale_core.env_reset_observed runs the frames before its last two: run_frame leaves them
# undrawn (their pixels are overwritten before anyone looks; a reset not exact that way is replayed drawn).
NODRAW = _alloc("reset_frames_undrawn")

N_STATE = len(_names)
# 2: FN_DEVICE added; 3: the kernel addresses moved out of the snapshot (console.State reads 1 and 2 too)
STATE_VERSION = 3

FB_ROWS = 300
FB_SIZE = 160 * FB_ROWS + 160       # slack: ALE's word writes may run a few pixels past a line
# Row 2 of the frame-buffer array is scratch: the renderer's 160-byte sprite row, then the audio
# register-write log (5 bytes per write: cycle as 3 bytes, register, value).
AUD_LOG_OFFSET = 256
AUD_LOG_MAX = 4096


def describe(i: int) -> str:
    return _names[i]
