package io.jccl.engine;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Configuration;

import java.util.Arrays;

/**
 * Splits a communicator into groups, as NCCL's {@code ncclCommSplit}: every group gets resources of its own, a job
 * segment and a transport, so every algorithm (the shared-memory ones included) runs on it unchanged and groups never
 * see each other's traffic.
 * <p>
 * How: the ranks allgather (color, key) on the parent; each group orders its members by (key, parent rank) and
 * connects a new transport on the segment of a derived job id, {@code <parent job id>.s<n>.<color>}, where n counts
 * the splits of this parent (every member counts the same, since splits are collective calls). The group's rank 0
 * creates the segment, the others attach, exactly as a job starts; liveness then watches the group's own members.
 * The new communicator is independent of its parent: either may be closed first.
 */
final class SubCommunicators
{
    /** Split of this parent that the next call makes; shared by a communicator and its views. */
    private int splits;

    private final Configuration configuration;

    SubCommunicators(final Configuration configuration)
    {
        this.configuration = configuration;
    }

    /** Collective over {@code parent}: this rank's communicator of group {@code color}, or null when color < 0. */
    ShmCommunicator split(final Communicator parent, final int color, final int key)
    {
        final int size = parent.size();
        final int[] mine = {color, key};
        final int[] all = new int[2 * size];
        parent.allgather(Buf.of(mine), Buf.of(all));
        final int split = ++splits;
        if (color < 0)
        {
            return null;
        }
        final int[] members = members(all, color);
        final int rank = indexOf(members, parent.rank());
        final Configuration child = configuration
            .with(Configuration.RANK_PROP_NAME, Integer.toString(rank))
            .with(Configuration.WORLD_SIZE_PROP_NAME, Integer.toString(members.length))
            .with(Configuration.JOB_ID_PROP_NAME, childJobId(configuration.jobId(), split, color));
        return ShmCommunicator.connect(child);
    }

    /** The parent ranks of group {@code color}, ordered by (key, parent rank). */
    static int[] members(final int[] colorKeyPairs, final int color)
    {
        final int size = colorKeyPairs.length / 2;
        return java.util.stream.IntStream.range(0, size)
            .filter(r -> colorKeyPairs[2 * r] == color)
            .boxed()
            .sorted((a, b) -> colorKeyPairs[2 * a + 1] != colorKeyPairs[2 * b + 1] ?
                Integer.compare(colorKeyPairs[2 * a + 1], colorKeyPairs[2 * b + 1]) : Integer.compare(a, b))
            .mapToInt(Integer::intValue)
            .toArray();
    }

    private static int indexOf(final int[] values, final int value)
    {
        for (int i = 0; i < values.length; i++)
        {
            if (values[i] == value)
            {
                return i;
            }
        }
        throw new IllegalStateException(value + " is not among " + Arrays.toString(values));
    }

    /**
     * The job id of split {@code split}, group {@code color} of job {@code parent}: readable while it fits the 64
     * characters a job id may have, else the parent's prefix and a hash of the whole (the same on every member).
     */
    static String childJobId(final String parent, final int split, final int color)
    {
        final String id = parent + ".s" + split + "." + color;
        if (id.length() <= 64)
        {
            return id;
        }
        long hash = 0xcbf29ce484222325L;  // FNV-1a 64
        for (int i = 0; i < id.length(); i++)
        {
            hash = (hash ^ id.charAt(i)) * 0x100000001b3L;
        }
        return parent.substring(0, 40) + ".h" + Long.toHexString(hash);
    }
}
