package io.jccl.model;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The little JSON jccl reads and writes (tuning files, JMH results, {@code fit --format json}), without a library:
 * objects become {@code LinkedHashMap<String, Object>} (keys in file order), arrays {@code List<Object>}, numbers
 * {@code Double}, and {@code true}/{@code false}/{@code null} themselves. {@link #write} takes the same types plus
 * any {@link Number}, and indents objects and arrays of objects for people to read.
 */
public final class Json
{
    /** Numbers are written with 6 significant digits: measurements are not more precise than that. */
    private static final MathContext SIGNIFICANT = new MathContext(6);

    private final String text;
    private int index;

    private Json(final String text)
    {
        this.text = text;
    }

    /** Parses one JSON value; throws {@link IllegalArgumentException} with the offset of the first error. */
    public static Object parse(final String text)
    {
        final Json parser = new Json(text);
        final Object value = parser.value();
        parser.skipSpace();
        if (parser.index != text.length())
        {
            throw parser.error("unexpected text after the value");
        }
        return value;
    }

    /** JSON text of {@code value}, indented by two spaces per level, ending without a newline. */
    public static String write(final Object value)
    {
        final StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.toString();
    }

    /** {@code map.get(key)} as an object, failing with the key's name when it is missing or not an object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(final Map<String, Object> map, final String key)
    {
        final Object value = map.get(key);
        if (!(value instanceof Map))
        {
            throw new IllegalArgumentException("'" + key + "' must be an object");
        }
        return (Map<String, Object>)value;
    }

    /** {@code map.get(key)} as an array, failing with the key's name when it is missing or not an array. */
    @SuppressWarnings("unchecked")
    public static List<Object> array(final Map<String, Object> map, final String key)
    {
        final Object value = map.get(key);
        if (!(value instanceof List))
        {
            throw new IllegalArgumentException("'" + key + "' must be an array");
        }
        return (List<Object>)value;
    }

    /** {@code map.get(key)} as a number, failing with the key's name when it is missing or not a number. */
    public static double number(final Map<String, Object> map, final String key)
    {
        final Object value = map.get(key);
        if (!(value instanceof Number))
        {
            throw new IllegalArgumentException("'" + key + "' must be a number");
        }
        return ((Number)value).doubleValue();
    }

    /** {@code map.get(key)} as a string, failing with the key's name when it is missing or not a string. */
    public static String string(final Map<String, Object> map, final String key)
    {
        final Object value = map.get(key);
        if (!(value instanceof String))
        {
            throw new IllegalArgumentException("'" + key + "' must be a string");
        }
        return (String)value;
    }

    private Object value()
    {
        skipSpace();
        if (index >= text.length())
        {
            throw error("unexpected end of text");
        }
        final char c = text.charAt(index);
        return switch (c)
        {
            case '{' -> objectValue();
            case '[' -> arrayValue();
            case '"' -> stringValue();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> numberValue();
        };
    }

    private Map<String, Object> objectValue()
    {
        final Map<String, Object> map = new LinkedHashMap<>();
        index++;
        skipSpace();
        if (peek() == '}')
        {
            index++;
            return map;
        }
        while (true)
        {
            skipSpace();
            if (peek() != '"')
            {
                throw error("expected a string key");
            }
            final String key = stringValue();
            skipSpace();
            expect(':');
            map.put(key, value());
            skipSpace();
            if (peek() == ',')
            {
                index++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private List<Object> arrayValue()
    {
        final List<Object> list = new ArrayList<>();
        index++;
        skipSpace();
        if (peek() == ']')
        {
            index++;
            return list;
        }
        while (true)
        {
            list.add(value());
            skipSpace();
            if (peek() == ',')
            {
                index++;
                continue;
            }
            expect(']');
            return list;
        }
    }

    private String stringValue()
    {
        index++;
        final StringBuilder out = new StringBuilder();
        while (true)
        {
            if (index >= text.length())
            {
                throw error("unterminated string");
            }
            final char c = text.charAt(index++);
            if (c == '"')
            {
                return out.toString();
            }
            if (c != '\\')
            {
                out.append(c);
                continue;
            }
            if (index >= text.length())
            {
                throw error("unterminated escape");
            }
            final char e = text.charAt(index++);
            switch (e)
            {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' ->
                {
                    if (index + 4 > text.length())
                    {
                        throw error("short \\u escape");
                    }
                    out.append((char)Integer.parseInt(text.substring(index, index + 4), 16));
                    index += 4;
                }
                default -> out.append(e);
            }
        }
    }

    private Object literal(final String word, final Object value)
    {
        if (!text.startsWith(word, index))
        {
            throw error("expected " + word);
        }
        index += word.length();
        return value;
    }

    private Double numberValue()
    {
        final int start = index;
        while (index < text.length() && "+-0123456789.eE".indexOf(text.charAt(index)) >= 0)
        {
            index++;
        }
        try
        {
            return Double.valueOf(text.substring(start, index));
        }
        catch (final NumberFormatException ex)
        {
            index = start;
            throw error("expected a value");
        }
    }

    private char peek()
    {
        return index < text.length() ? text.charAt(index) : '\0';
    }

    private void expect(final char c)
    {
        if (peek() != c)
        {
            throw error("expected '" + c + "'");
        }
        index++;
    }

    private void skipSpace()
    {
        while (index < text.length() && Character.isWhitespace(text.charAt(index)))
        {
            index++;
        }
    }

    private IllegalArgumentException error(final String message)
    {
        return new IllegalArgumentException("JSON: " + message + " at offset " + index);
    }

    private static void write(final StringBuilder out, final Object value, final int depth)
    {
        if (value == null)
        {
            out.append("null");
        }
        else if (value instanceof String s)
        {
            quote(out, s);
        }
        else if (value instanceof Boolean)
        {
            out.append(value);
        }
        else if (value instanceof Number n)
        {
            number(out, n);
        }
        else if (value instanceof Map<?, ?> map)
        {
            writeObject(out, map, depth);
        }
        else if (value instanceof List<?> list)
        {
            writeArray(out, list, depth);
        }
        else
        {
            throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
        }
    }

    private static void writeObject(final StringBuilder out, final Map<?, ?> map, final int depth)
    {
        if (map.isEmpty())
        {
            out.append("{}");
            return;
        }
        final boolean flat = map.values().stream().noneMatch(v -> v instanceof Map || v instanceof List);
        out.append('{');
        boolean first = true;
        for (final Map.Entry<?, ?> entry : map.entrySet())
        {
            out.append(first ? "" : ",");
            if (flat)
            {
                out.append(first ? "" : " ");
            }
            else
            {
                newline(out, depth + 1);
            }
            first = false;
            quote(out, String.valueOf(entry.getKey()));
            out.append(": ");
            write(out, entry.getValue(), depth + 1);
        }
        if (!flat)
        {
            newline(out, depth);
        }
        out.append('}');
    }

    private static void writeArray(final StringBuilder out, final List<?> list, final int depth)
    {
        final boolean flat = list.stream().noneMatch(v -> v instanceof Map || v instanceof List);
        out.append('[');
        for (int i = 0; i < list.size(); i++)
        {
            out.append(i == 0 ? "" : flat ? ", " : ",");
            if (!flat)
            {
                newline(out, depth + 1);
            }
            write(out, list.get(i), depth + 1);
        }
        if (!flat && !list.isEmpty())
        {
            newline(out, depth);
        }
        out.append(']');
    }

    private static void newline(final StringBuilder out, final int depth)
    {
        out.append('\n');
        out.append("  ".repeat(depth));
    }

    private static void number(final StringBuilder out, final Number n)
    {
        if (n instanceof Long || n instanceof Integer)
        {
            out.append(n.longValue());
            return;
        }
        final double d = n.doubleValue();
        if (Double.isNaN(d) || Double.isInfinite(d))
        {
            out.append("null");
        }
        else if (d == Math.rint(d) && Math.abs(d) < 1e15)
        {
            out.append((long)d);
        }
        else
        {
            final BigDecimal rounded = new BigDecimal(d).round(SIGNIFICANT).stripTrailingZeros();
            out.append(Math.abs(d) >= 1e-4 ? rounded.toPlainString() : rounded.toString());
        }
    }

    private static void quote(final StringBuilder out, final String s)
    {
        out.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default ->
                {
                    if (c < 0x20)
                    {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
                    }
                    else
                    {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
