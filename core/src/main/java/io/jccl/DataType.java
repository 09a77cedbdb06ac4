package io.jccl;

/**
 * Element types a collective can carry. {@link #FLOAT16} and {@link #BFLOAT16} are stored in 16 bits and
 * reduced in float32: each element is widened, combined, and rounded once when stored. {@link #UINT8},
 * {@link #UINT32} and {@link #UINT64} are unsigned integers (NCCL's ncclUint8, ncclUint32, ncclUint64; MPI_UINT8_T,
 * MPI_UINT32_T, MPI_UINT64_T) in Java's {@code byte}, {@code int} and {@code long}: MIN, MAX and AVG's division
 * read them unsigned, as {@link Integer#compareUnsigned} and {@link Long#divideUnsigned} do; SUM, PROD and the
 * bitwise operators give the same bits as on the signed types. A heap array carries them as
 * {@code Buf.of(bytes).as(DataType.UINT8)}.
 */
public enum DataType
{
    INT8(1, "int8"),
    INT32(4, "int32"),
    INT64(8, "int64"),
    FLOAT16(2, "float16"),
    BFLOAT16(2, "bfloat16"),
    FLOAT32(4, "float32"),
    FLOAT64(8, "float64"),
    UINT8(1, "uint8"),
    UINT32(4, "uint32"),
    UINT64(8, "uint64");

    private static final DataType[] VALUES = values();

    private final int size;
    private final String label;

    DataType(final int size, final String label)
    {
        this.size = size;
        this.label = label;
    }

    /** Bytes per element. */
    public int size()
    {
        return size;
    }

    /** The lower-case name used on the command line and in CSV (int8, float32, bfloat16, ...). */
    public String label()
    {
        return label;
    }

    public boolean isFloatingPoint()
    {
        return this == FLOAT16 || this == BFLOAT16 || this == FLOAT32 || this == FLOAT64;
    }

    public boolean isUnsigned()
    {
        return this == UINT8 || this == UINT32 || this == UINT64;
    }

    /** The signed integer type of this unsigned type's width (UINT32: INT32); any other type itself. */
    public DataType signed()
    {
        return switch (this)
        {
            case UINT8 -> INT8;
            case UINT32 -> INT32;
            case UINT64 -> INT64;
            default -> this;
        };
    }

    /** Parses a label or an enum name, case-insensitively ("float32", "FLOAT32", "fp32", "bf16", "f16"). */
    public static DataType parse(final String text)
    {
        final String s = text.trim().toLowerCase(java.util.Locale.ROOT);
        switch (s)
        {
            case "fp32", "float" -> { return FLOAT32; }
            case "fp64", "double" -> { return FLOAT64; }
            case "fp16", "f16", "half" -> { return FLOAT16; }
            case "bf16" -> { return BFLOAT16; }
            case "int", "i32" -> { return INT32; }
            case "long", "i64" -> { return INT64; }
            case "byte", "i8", "char" -> { return INT8; }
            case "u8", "ubyte" -> { return UINT8; }
            case "u32", "uint" -> { return UINT32; }
            case "u64", "ulong" -> { return UINT64; }
            default -> { }
        }
        for (final DataType t : VALUES)
        {
            if (t.label.equals(s))
            {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown datatype '" + text + "': expected one of int8, int32, int64, " +
            "float16, bfloat16, float32, float64, uint8, uint32, uint64");
    }

    static DataType ofOrdinal(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
