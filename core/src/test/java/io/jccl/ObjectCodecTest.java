package io.jccl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.NotSerializableException;
import java.io.Serializable;
import java.io.StreamCorruptedException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class ObjectCodecTest
{
    private static final ObjectCodec CODEC = ObjectCodec.javaSerialization();

    record Point(int x, double y, String label) implements Serializable
    {
    }

    @Test
    void javaSerializationRoundTripsRecordsCollectionsAndNullFromAnOffset()
    {
        final Object value = Map.of("points", List.of(new Point(1, 2.5, "a"), new Point(-3, 0, "ü")), "n", 7L);
        for (final Object object : new Object[] {value, null, "", new byte[100_000]})
        {
            final byte[] bytes = CODEC.encode(object);
            final byte[] padded = new byte[bytes.length + 13];
            System.arraycopy(bytes, 0, padded, 5, bytes.length);
            final Object back = CODEC.decode(padded, 5, bytes.length);
            if (object instanceof byte[] array)
            {
                assertTrue(Arrays.equals(array, (byte[])back));
            }
            else
            {
                assertEquals(object, back);
            }
        }
        assertNull(CODEC.decode(CODEC.encode(null), 0, CODEC.encode(null).length));
    }

    @Test
    void anObjectThatIsNotSerializableIsRefusedNamingItsClass()
    {
        final UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> CODEC.encode(List.of(new Object())));
        assertInstanceOf(NotSerializableException.class, e.getCause());
        assertTrue(e.getMessage().contains("java.lang.Object"), e.getMessage());
    }

    @Test
    void bytesThatAreNoSerializedObjectAreRefused()
    {
        final UncheckedIOException e = assertThrows(UncheckedIOException.class,
            () -> CODEC.decode(new byte[] {1, 2, 3, 4, 5}, 0, 5));
        assertInstanceOf(StreamCorruptedException.class, e.getCause());
    }
}
