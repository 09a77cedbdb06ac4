package io.jccl.algorithms;

import io.jccl.Collective;
import io.jccl.algorithms.broadcast.ChainBroadcast;
import io.jccl.algorithms.pattern.Exchange;
import io.jccl.algorithms.scan.ChainScan;
import io.jccl.spi.CollectiveAlgorithm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every algorithm jccl has, by collective and name, with a stable numeric id (its position in the listing, used
 * in logs and in the bench output). Names are unique per collective: {@code allreduce:ring} and
 * {@code allgather:ring} are different algorithms.
 */
public final class AlgorithmRegistry
{
    private static final AlgorithmRegistry INSTANCE = new AlgorithmRegistry(catalog());

    private final List<CollectiveAlgorithm> all;
    private final Map<Collective, Map<String, CollectiveAlgorithm>> byCollective = new EnumMap<>(Collective.class);

    AlgorithmRegistry(final List<CollectiveAlgorithm> algorithms)
    {
        this.all = List.copyOf(algorithms);
        for (final Collective c : Collective.values())
        {
            byCollective.put(c, new LinkedHashMap<>());
        }
        for (final CollectiveAlgorithm algorithm : all)
        {
            for (final Collective c : algorithm.collectives())
            {
                final CollectiveAlgorithm previous = byCollective.get(c).put(algorithm.name(), algorithm);
                if (previous != null)
                {
                    throw new IllegalStateException("two " + c.label() + " algorithms named " + algorithm.name());
                }
            }
        }
    }

    public static AlgorithmRegistry instance()
    {
        return INSTANCE;
    }

    private static List<CollectiveAlgorithm> catalog()
    {
        final List<CollectiveAlgorithm> list = new ArrayList<>();
        list.addAll(SharedMemoryAlgorithms.all());
        list.addAll(RingFamilyAlgorithms.all());
        list.addAll(TreeFamilyAlgorithms.all());
        return list;
    }

    /** All algorithms, in id order. */
    public List<CollectiveAlgorithm> all()
    {
        return all;
    }

    /** Id of an algorithm: its position in {@link #all()}. */
    public int id(final CollectiveAlgorithm algorithm)
    {
        return all.indexOf(algorithm);
    }

    /** Algorithms of one collective, by name, in id order. */
    public Map<String, CollectiveAlgorithm> of(final Collective collective)
    {
        return Collections.unmodifiableMap(byCollective.get(collective));
    }

    /** The algorithm {@code name} of {@code collective}; throws listing the valid names when there is none. */
    public CollectiveAlgorithm find(final Collective collective, final String name)
    {
        final CollectiveAlgorithm algorithm = byCollective.get(collective).get(name);
        if (algorithm == null)
        {
            throw new IllegalArgumentException("no " + collective.label() + " algorithm named '" + name +
                "'; known: " + String.join(", ", byCollective.get(collective).keySet()));
        }
        return algorithm;
    }

    /**
     * A new instance of the algorithm {@code name} of {@code collective} cutting its messages into chunks of
     * {@code chunkBytes}, when its chunk size is fixed at construction (the ring-family algorithms and the chain
     * broadcast and scan); null for the others, which take a chunk size per call ({@code CollectiveArgs.chunkBytes})
     * or none.
     *
     * @throws IllegalArgumentException when there is no such algorithm, or the chunk size is not one it can take.
     */
    public CollectiveAlgorithm withChunkBytes(final Collective collective, final String name, final long chunkBytes)
    {
        find(collective, name);
        if (chunkBytes <= 0 || chunkBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(collective.label() + ":" + name + ": chunk size " + chunkBytes +
                " is out of range");
        }
        if (matching(RingFamilyAlgorithms.all(), collective, name) != null)
        {
            return matching(RingFamilyAlgorithms.all((int)chunkBytes), collective, name);
        }
        if (matching(List.of(new ChainScan()), collective, name) != null)
        {
            return new ChainScan(Exchange.checkChunkBytes((int)chunkBytes));
        }
        return matching(List.of(new ChainBroadcast()), collective, name) != null ? new ChainBroadcast(chunkBytes) : null;
    }

    private static CollectiveAlgorithm matching(
        final List<CollectiveAlgorithm> algorithms, final Collective collective, final String name)
    {
        for (final CollectiveAlgorithm algorithm : algorithms)
        {
            if (algorithm.name().equals(name) && algorithm.collectives().contains(collective))
            {
                return algorithm;
            }
        }
        return null;
    }
}
