package io.jccl;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;

/**
 * Turns objects into bytes and back, for {@link ObjectCollectives}. An implementation throws a
 * {@link RuntimeException} when it cannot encode an object or decode bytes; it must be safe to use from every
 * communicator's thread at once (the ones given here keep no state).
 * <p>
 * Plug in any serializer the ranks share (Kryo, Jackson, Protocol Buffers, a hand-written format): every rank of a
 * job must decode with the codec that encoded, and all of them must know the classes.
 */
public interface ObjectCodec
{
    /** The object's bytes: every byte of the returned array is sent, and the caller does not modify it. */
    byte[] encode(Object object);

    /** The object that {@code length} bytes of {@code bytes} from {@code offset} encode. */
    Object decode(byte[] bytes, int offset, int length);

    /**
     * Java serialization ({@link ObjectOutputStream}): any {@link java.io.Serializable} object, records, collections
     * and null. Each object carries its class descriptors, so every call is self-contained. Deserialization runs the
     * classes' own code (readObject, readResolve), as Python's pickle does for torch.distributed's object
     * collectives: use it among ranks of one job that trust each other, and a JVM-wide filter
     * ({@code -Djdk.serialFilter=...}) to restrict the classes it may create.
     */
    static ObjectCodec javaSerialization()
    {
        return JavaSerialization.INSTANCE;
    }

    /** {@link #javaSerialization()}. */
    enum JavaSerialization implements ObjectCodec
    {
        INSTANCE;

        @Override
        public byte[] encode(final Object object)
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes))
            {
                out.writeObject(object);
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        @Override
        public Object decode(final byte[] bytes, final int offset, final int length)
        {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes, offset, length)))
            {
                return in.readObject();
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
            catch (final ClassNotFoundException e)
            {
                throw new IllegalStateException("class " + e.getMessage() + " is not on this rank's class path", e);
            }
        }
    }
}
