"""8x8 tile transposes as single vector shuffles, for the vector environment's resize (``preprocess``).

numba cannot say "shuffle these lanes", and its compiler turns neither a byte transpose done with 64-bit
word exchanges nor a float transpose done element by element into vector shuffles: those two transposes
were most of a 20 µs resize. These intrinsics load a tile's eight rows as one 64-lane vector, permute it
with one ``shufflevector`` (which LLVM lowers to the target's permutes: for bytes one ``vpermi2b`` where
AVX-512 VBMI has it) and store the eight columns. The slow, obvious reference is ``numpy``'s transpose
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


def _concat(builder, a, b):
    """Two vectors of n lanes as one of 2n (a's lanes first)."""
    n = a.type.count
    return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(ir.IntType(32), 2 * n), list(range(2 * n))))


def _transpose_codegen(lane_ir):
    """codegen for ``f(src, src_at, src_stride, dst, dst_at, dst_stride)``: rows of eight ``lane_ir``
    elements at ``src_at + k * src_stride`` (k < 8, in elements) become rows ``dst_at + k * dst_stride``. The
    eight rows are joined into one 64-lane vector, permuted with one shuffle and split again."""
    row_ir = ir.VectorType(lane_ir, 8)
    i32 = ir.IntType(32)
    words = isinstance(lane_ir, ir.IntType) and lane_ir.width == 8

    def codegen(context, builder, signature, args):
        def int64(k):   # argument k as a 64-bit integer
            return context.cast(builder, args[k], signature.args[k], types.int64)

        sp = builder.bitcast(_base_pointer(context, builder, signature.args[0], args[0]), lane_ir.as_pointer())
        dp = builder.bitcast(_base_pointer(context, builder, signature.args[3], args[3]), lane_ir.as_pointer())
        s_at, s_st, d_at, d_st = int64(1), int64(2), int64(4), int64(5)
        i64 = ir.IntType(64)

        def row_pointer(base, at, stride, k):
            offset = builder.add(at, builder.mul(stride, ir.Constant(i64, k)))
            return builder.bitcast(builder.gep(base, [offset]), row_ir.as_pointer())

        rows = [builder.load(row_pointer(sp, s_at, s_st, k), align=1) for k in range(8)]
        if words:   # a byte row is one 64-bit word: eight words make the tile (LLVM's best code for bytes)
            tile = ir.Constant(ir.VectorType(i64, 8), None)
            for k, row in enumerate(rows):
                tile = builder.insert_element(tile, builder.bitcast(row, i64), ir.Constant(i32, k))
            tile = builder.bitcast(tile, ir.VectorType(lane_ir, 64))
        else:       # float rows joined pairwise (as concatenating shuffles: one two-source permute each)
            while len(rows) > 1:
                rows = [_concat(builder, rows[j], rows[j + 1]) for j in range(0, len(rows), 2)]
            tile = rows[0]
        moved = builder.shuffle_vector(tile, ir.Constant(tile.type, None),
                                       ir.Constant(ir.VectorType(i32, 64), _TRANSPOSE))
        if words:
            out = builder.bitcast(moved, ir.VectorType(i64, 8))
            rows = [builder.bitcast(builder.extract_element(out, ir.Constant(i32, k)), row_ir) for k in range(8)]
        else:
            rows = [builder.shuffle_vector(moved, ir.Constant(moved.type, None),
                                           ir.Constant(ir.VectorType(i32, 8), list(range(8 * k, 8 * k + 8))))
                    for k in range(8)]
        for k, row in enumerate(rows):
            builder.store(row, row_pointer(dp, d_at, d_st, k), align=1)
        return context.get_dummy_value()

    return codegen


def _typer(dtype, lane_ir):
    def typer(typingctx, src, src_at, src_stride, dst, dst_at, dst_stride):
        ok = (isinstance(src, types.Array) and isinstance(dst, types.Array) and src.dtype == dtype
              and dst.dtype == dtype and all(isinstance(a, types.Integer) for a in (src_at, src_stride, dst_at,
                                                                                      dst_stride)))
        if not ok:
            return None
        return types.void(src, src_at, src_stride, dst, dst_at, dst_stride), _transpose_codegen(lane_ir)

    return typer


def _named(typer, name, doc):
    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


transpose8_u8 = _named(_typer(types.uint8, ir.IntType(8)), "transpose8_u8",
                       "``dst[dst_at + c*dst_stride + r] = src[src_at + r*src_stride + c]`` for r, c < 8 (uint8 "
                       "arrays, no bounds check: the caller keeps the tile inside both).")
transpose8_f32 = _named(_typer(types.float32, ir.FloatType()), "transpose8_f32",
                        "As :func:`transpose8_u8` for float32 arrays.")
