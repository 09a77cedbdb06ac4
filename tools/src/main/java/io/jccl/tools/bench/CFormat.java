package io.jccl.tools.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/** C's {@code printf("%g")}, which Java's formatter does not reproduce (it keeps trailing zeros). */
public final class CFormat
{
    private static final int PRECISION = 6;

    private CFormat()
    {
    }

    /**
     * {@code value} as C's {@code %g} prints it: 6 significant digits, trailing zeros dropped, exponent form when
     * the exponent is below -4 or at least 6 ({@code 1e+06}, {@code 1.5e-05}).
     */
    public static String g(final double value)
    {
        if (Double.isNaN(value))
        {
            return "nan";
        }
        if (Double.isInfinite(value))
        {
            return value > 0 ? "inf" : "-inf";
        }
        if (value == 0)
        {
            return (1 / value < 0) ? "-0" : "0";
        }
        final BigDecimal rounded = new BigDecimal(value).round(new MathContext(PRECISION, RoundingMode.HALF_EVEN));
        final int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= PRECISION)
        {
            final String mantissa = stripZeros(rounded.movePointLeft(exponent).toPlainString());
            final int magnitude = Math.abs(exponent);
            return mantissa + (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + magnitude;
        }
        return stripZeros(rounded.setScale(Math.max(0, PRECISION - 1 - exponent), RoundingMode.HALF_EVEN)
            .toPlainString());
    }

    /** {@code %Ng}: {@link #g} right-aligned in {@code width} characters. */
    public static String g(final double value, final int width)
    {
        final String text = g(value);
        return text.length() >= width ? text : " ".repeat(width - text.length()) + text;
    }

    /**
     * {@code %W.Pf}: {@code value} with {@code decimals} decimals, rounded as glibc rounds (the exact binary value,
     * half to even; Java's formatter rounds half up), right-aligned in {@code width} characters.
     */
    public static String f(final double value, final int width, final int decimals)
    {
        final String text = Double.isFinite(value) ?
            new BigDecimal(value).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString() :
            Double.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
        return text.length() >= width ? text : " ".repeat(width - text.length()) + text;
    }

    private static String stripZeros(final String number)
    {
        if (number.indexOf('.') < 0)
        {
            return number;
        }
        int end = number.length();
        while (number.charAt(end - 1) == '0')
        {
            end--;
        }
        if (number.charAt(end - 1) == '.')
        {
            end--;
        }
        return number.substring(0, end);
    }
}
