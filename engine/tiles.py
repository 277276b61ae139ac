"""8x8 tile transposes as single vector shuffles, for the vector environment's resize (``preprocess``).

numba cannot say "shuffle these lanes", and its compiler turns neither a byte transpose done with 64-bit
word exchanges nor a float transpose done element by element into vector shuffles: those two transposes
were most of a 20 µs resize. These intrinsics load a tile's eight rows as one 64-lane vector, permute it
with one ``shufflevector`` (which LLVM lowers to the target's permutes: one ``vpermb`` where AVX-512 VBMI
has it) and store the eight columns. The slow, obvious reference is ``numpy``'s transpose
(``tests/test_vector_options.py``).
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_TRANSPOSE = [r * 8 + c for c in range(8) for r in range(8)]   # out lane c*8 + r takes in lane r*8 + c


def _base_pointer(context, builder, aryty, value):
    ary = context.make_array(aryty)(context, builder, value)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [context.get_constant(types.intp, 0)])


def _transpose_codegen(lane_bits: int, lane_ir):
    """codegen for ``f(src, src_at, src_stride, dst, dst_at, dst_stride)``: rows of eight ``lane_ir``
    elements at ``src_at + k * src_stride`` (k < 8, in elements) become rows ``dst_at + k * dst_stride``."""
    row_ir = ir.IntType(8 * lane_bits) if lane_bits == 8 else ir.VectorType(lane_ir, 8)

    def codegen(context, builder, signature, args):
        src, src_at, src_stride, dst, dst_at, dst_stride = args
        sty, _, _, dty, _, _ = signature.args
        sp = builder.bitcast(_base_pointer(context, builder, sty, src), lane_ir.as_pointer())
        dp = builder.bitcast(_base_pointer(context, builder, dty, dst), lane_ir.as_pointer())
        i64 = ir.IntType(64)
        s_at, s_st = [context.cast(builder, a, t, types.int64) for a, t in zip(args[1:3], signature.args[1:3])]
        d_at, d_st = [context.cast(builder, a, t, types.int64) for a, t in zip(args[4:6], signature.args[4:6])]
        wide = ir.VectorType(lane_ir, 64)
        rows = ir.VectorType(row_ir, 8) if lane_bits == 8 else None
        tile = ir.Constant(rows, None) if lane_bits == 8 else ir.Constant(wide, None)
        for k in range(8):
            at = builder.add(s_at, builder.mul(s_st, ir.Constant(i64, k)))
            p = builder.bitcast(builder.gep(sp, [at]), row_ir.as_pointer())
            row = builder.load(p, align=1)
            if lane_bits == 8:
                tile = builder.insert_element(tile, row, ir.Constant(ir.IntType(32), k))
            else:   # eight floats into lanes k*8 .. k*8+7
                for j in range(8):
                    tile = builder.insert_element(tile, builder.extract_element(row, ir.Constant(ir.IntType(32), j)),
                                                  ir.Constant(ir.IntType(32), k * 8 + j))
        lanes = builder.bitcast(tile, wide) if lane_bits == 8 else tile
        moved = builder.shuffle_vector(lanes, ir.Constant(wide, None),
                                       ir.Constant(ir.VectorType(ir.IntType(32), 64), _TRANSPOSE))
        out = builder.bitcast(moved, rows) if lane_bits == 8 else moved
        for k in range(8):
            at = builder.add(d_at, builder.mul(d_st, ir.Constant(i64, k)))
            p = builder.bitcast(builder.gep(dp, [at]), row_ir.as_pointer())
            if lane_bits == 8:
                row = builder.extract_element(out, ir.Constant(ir.IntType(32), k))
            else:
                row = ir.Constant(row_ir, None)
                for j in range(8):
                    row = builder.insert_element(row, builder.extract_element(out, ir.Constant(ir.IntType(32),
                                                                                                k * 8 + j)),
                                                 ir.Constant(ir.IntType(32), j))
            builder.store(row, p, align=1)
        return context.get_dummy_value()

    return codegen


def _typer(dtype, lane_bits, lane_ir):
    def typer(typingctx, src, src_at, src_stride, dst, dst_at, dst_stride):
        ok = (isinstance(src, types.Array) and isinstance(dst, types.Array) and src.dtype == dtype
              and dst.dtype == dtype and all(isinstance(a, types.Integer) for a in (src_at, src_stride, dst_at,
                                                                                      dst_stride)))
        if not ok:
            return None
        return types.void(src, src_at, src_stride, dst, dst_at, dst_stride), _transpose_codegen(lane_bits, lane_ir)

    return typer


def _named(typer, name, doc):
    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


transpose8_u8 = _named(_typer(types.uint8, 8, ir.IntType(8)), "transpose8_u8",
                       "``dst[dst_at + c*dst_stride + r] = src[src_at + r*src_stride + c]`` for r, c < 8 (uint8 "
                       "arrays, no bounds check: the caller keeps the tile inside both).")
transpose8_f32 = _named(_typer(types.float32, 32, ir.FloatType()), "transpose8_f32",
                        "As :func:`transpose8_u8` for float32 arrays.")
