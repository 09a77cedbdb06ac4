package io.jccl.examples;

import io.jccl.Buf;
import io.jccl.Communicator;
import io.jccl.Jccl;
import io.jccl.ObjectCollectives;
import io.jccl.ReduceOp;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * MapReduce's word count with {@link ObjectCollectives}: rank 0 broadcasts the job's settings (a record), each rank
 * counts the words of its shard of a generated text into a {@code HashMap}, partitions its counts by word (a word's
 * counts all go to rank {@code hash % p}) and exchanges the partitions with {@code alltoall} of maps, the shuffle;
 * each rank then sums the counts of its words, and rank 0 gathers every rank's most frequent words.
 * <pre>
 *   ./jccl run -n 4 -- io.jccl.examples.WordCount [--words 200000] [--vocabulary 20000] [--top 5]
 * </pre>
 * Rank 0 then gathers every rank's partition, counts the whole text itself and checks every word's count. Exit
 * status 1 when one differs.
 */
public final class WordCount
{
    /** What every rank must agree on, from rank 0's command line. */
    record Settings(int wordsPerRank, int vocabulary, int top, long seed) implements Serializable
    {
    }

    private WordCount()
    {
    }

    public static void main(final String[] args)
    {
        final boolean ok;
        try (Communicator comm = Jccl.connect())
        {
            final ObjectCollectives objects = ObjectCollectives.of(comm);
            Settings settings = null;
            if (comm.rank() == 0)
            {
                final ExampleArgs options = new ExampleArgs(args);
                settings = new Settings(options.getInt("words", 200_000), options.getInt("vocabulary", 20_000),
                    options.getInt("top", 5), 42);
            }
            settings = objects.broadcast(settings, 0);
            ok = count(comm, objects, settings);
        }
        if (!ok)
        {
            System.exit(1);
        }
    }

    private static boolean count(final Communicator comm, final ObjectCollectives objects, final Settings settings)
    {
        final int ranks = comm.size();
        final long start = System.nanoTime();
        final Map<String, Long> local = countWords(comm.rank(), settings);

        final List<Map<String, Long>> partitions = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            partitions.add(new HashMap<>());
        }
        local.forEach((word, n) -> partitions.get(owner(word, ranks)).put(word, n));
        final long shuffleStart = System.nanoTime();
        final List<Map<String, Long>> received = objects.alltoall(partitions);
        final long shuffleNanos = System.nanoTime() - shuffleStart;

        final Map<String, Long> mine = new HashMap<>();
        for (final Map<String, Long> part : received)
        {
            part.forEach((word, n) -> mine.merge(word, n, Long::sum));
        }
        final long[] total = {mine.values().stream().mapToLong(Long::longValue).sum()};
        comm.allreduce(Buf.of(total), ReduceOp.SUM);
        final List<List<Map.Entry<String, Long>>> gatheredTops = objects.gather(top(mine, settings.top()), 0);
        final double seconds = (System.nanoTime() - start) / 1e9;
        final List<Map<String, Long>> everything = objects.gather(mine, 0);
        if (comm.rank() != 0)
        {
            return true;
        }

        final List<Map.Entry<String, Long>> best = new ArrayList<>();
        gatheredTops.forEach(best::addAll);
        best.sort(BY_COUNT);
        final Map<String, Long> expected = new HashMap<>();
        for (int r = 0; r < ranks; r++)
        {
            countWords(r, settings).forEach((word, n) -> expected.merge(word, n, Long::sum));
        }
        final Map<String, Long> merged = new HashMap<>();
        int misplaced = 0;
        for (int r = 0; r < ranks; r++)
        {
            for (final Map.Entry<String, Long> e : everything.get(r).entrySet())
            {
                misplaced += owner(e.getKey(), ranks) == r ? 0 : 1;
                merged.put(e.getKey(), e.getValue());
            }
        }
        final boolean ok = merged.equals(expected) && misplaced == 0 &&
            total[0] == (long)ranks * settings.wordsPerRank() &&
            best.subList(0, Math.min(settings.top(), best.size())).equals(top(expected, settings.top()));
        System.out.printf("word count on %d ranks: %d words, %d distinct, in %.3f s (shuffle %.3f ms on rank 0); " +
            "most frequent %s; %s%n", ranks, total[0], merged.size(), seconds, shuffleNanos / 1e6,
            best.subList(0, Math.min(settings.top(), best.size())),
            ok ? "every count matches the count on one rank" : "counts WRONG");
        return ok;
    }

    /** The words of {@code rank}'s shard counted: a skewed draw from the vocabulary, as natural text is. */
    static Map<String, Long> countWords(final int rank, final Settings settings)
    {
        final SplittableRandom random = new SplittableRandom(settings.seed() * 1_000_003 + rank);
        final Map<String, Long> counts = new HashMap<>();
        for (int i = 0; i < settings.wordsPerRank(); i++)
        {
            final double u = random.nextDouble();
            counts.merge("w" + (int)(settings.vocabulary() * u * u * u), 1L, Long::sum);
        }
        return counts;
    }

    /** The rank that sums {@code word}'s counts. */
    static int owner(final String word, final int ranks)
    {
        return Math.floorMod(word.hashCode(), ranks);
    }

    private static final Comparator<Map.Entry<String, Long>> BY_COUNT =
        Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey());

    /** The {@code k} most frequent words, ties by word, as serializable entries. */
    static List<Map.Entry<String, Long>> top(final Map<String, Long> counts, final int k)
    {
        return counts.entrySet().stream().sorted(BY_COUNT).limit(k)
            .map(e -> (Map.Entry<String, Long>)new java.util.AbstractMap.SimpleImmutableEntry<>(e.getKey(),
                e.getValue()))
            .toList();
    }
}
