package io.jccl.shm;

import io.jccl.Configuration;
import io.jccl.JcclException;
import org.agrona.UnsafeApi;

import java.nio.charset.StandardCharsets;

import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.AGREED_SETTINGS_OFFSET;
import static io.jccl.shm.SegmentDescriptor.RankRecordDescriptor.AGREED_SETTINGS_WORDS;

/**
 * The settings that every rank of a job must share, because they decide which algorithm a call runs, how it cuts its
 * data, or when the pace probe's collectives fall: ranks that differ in one run different protocols under call
 * signatures that agree (a 2-rank allreduce run in parts on one rank, or forced to ring on one, waited out
 * {@code jccl.timeout.ms} on both). Each rank publishes one word per setting in its rank record
 * ({@link SegmentDescriptor.RankRecordDescriptor#AGREED_SETTINGS_OFFSET}) before it attaches, and compares every
 * peer's words with its own once all have attached ({@link #check}); a difference fails the connect on every rank,
 * naming the setting. The launcher gives every rank the same environment: this catches ranks started otherwise, or
 * given different {@code Configuration.builder()} values.
 * <p>
 * A digest of the jccl build a rank runs ({@link #build}) is compared before the settings: ranks of different builds
 * are refused for that alone, since their settings may mean different things.
 * <p>
 * A number is published as it is; a text (forced algorithms, the tuning file's choices) as a 64-bit hash of it, so
 * that a difference can be named but only this rank's value shown.
 */
public final class AgreedSettings
{
    private final String[] names = new String[AGREED_SETTINGS_WORDS];
    private final long[] words = new long[AGREED_SETTINGS_WORDS];
    private final String[] shown = new String[AGREED_SETTINGS_WORDS];
    private final boolean[] texts = new boolean[AGREED_SETTINGS_WORDS];
    private int count;
    /** The word of {@link #build}, or -1. */
    private int buildWord = -1;

    /**
     * The transport's own, which the algorithms choose by: the size from which messages travel single copy, and the
     * staging area's (the segment has rank 0's, but each rank's choices count its own).
     */
    public static AgreedSettings of(final Configuration configuration)
    {
        final String singleCopy = Configuration.SINGLE_COPY_BYTES_PROP_NAME;
        // set or not, as well as its value: unset, the default depends on whether ranks outnumber cores
        return new AgreedSettings()
            .text(singleCopy, configuration.get(singleCopy) == null ? null :
                Long.toString(configuration.getLong(singleCopy, 0)))
            .number(Configuration.STAGING_BYTES_PROP_NAME, JobSegment.stagingBytes(configuration));
    }

    /** Adds a number every rank must have alike. */
    public AgreedSettings number(final String name, final long value)
    {
        return add(name, value, Long.toString(value), false);
    }

    /** Adds a text every rank must have alike; null when unset. */
    public AgreedSettings text(final String name, final String value)
    {
        return add(name, value == null ? 0 : hash(value), value == null ? "unset" : "'" + value + "'", true);
    }

    /**
     * Adds the digest of the jccl build this rank runs, described as {@code shown} (where its code came from), which
     * every rank must share; at most once.
     */
    public AgreedSettings build(final long digest, final String shown)
    {
        if (buildWord >= 0)
        {
            throw new IllegalStateException("one build digest");
        }
        buildWord = count;
        return add("jccl build", digest, shown, true);
    }

    /** Adds what a setting names, whose {@code content} every rank must have alike, shown as {@code shown}. */
    public AgreedSettings digest(final String name, final String content, final String shown)
    {
        return add(name, hash(content), shown, true);
    }

    private AgreedSettings add(final String name, final long word, final String show, final boolean text)
    {
        if (count == AGREED_SETTINGS_WORDS)
        {
            throw new IllegalStateException("at most " + AGREED_SETTINGS_WORDS + " agreed settings");
        }
        names[count] = name;
        words[count] = word;
        shown[count] = show;
        texts[count] = text;
        count++;
        return this;
    }

    /** Writes this rank's words into its record; before it attaches, whose release store publishes them. */
    void publish(final long record)
    {
        for (int i = 0; i < AGREED_SETTINGS_WORDS; i++)
        {
            UnsafeApi.putLong(null, record + AGREED_SETTINGS_OFFSET + (long) i * Long.BYTES, i < count ? words[i] : 0);
        }
    }

    /**
     * Compares the words of every peer's record with this rank's, after every rank has attached (acquire, through
     * the bootstrap word); throws for the lowest rank of another build, else for the lowest rank that differs, naming
     * every setting it differs in.
     */
    void check(final long segment, final SegmentDescriptor layout, final int rank)
    {
        for (int peer = 0; buildWord >= 0 && peer < layout.worldSize(); peer++)
        {
            if (peer != rank && word(segment, layout, peer, buildWord) != words[buildWord])
            {
                throw new JcclException("rank " + rank + ": jccl builds differ: rank " + peer + " runs other jccl " +
                    "code than this rank's, " + shown[buildWord] + ". Ranks of different builds may run different " +
                    "protocols, or choose algorithms by different rules; every rank of a job needs the same build " +
                    "(./jccl info prints its build)");
            }
        }
        for (int peer = 0; peer < layout.worldSize(); peer++)
        {
            if (peer == rank)
            {
                continue;
            }
            final StringBuilder differences = new StringBuilder();
            for (int i = 0; i < count; i++)
            {
                final long theirs = word(segment, layout, peer, i);
                if (theirs != words[i])
                {
                    differences.append(differences.isEmpty() ? "" : "; ").append(names[i]).append(' ')
                        .append(shown[i]).append(" here, ")
                        .append(texts[i] ? "rank " + peer + "'s differs" : theirs + " on rank " + peer);
                }
            }
            if (!differences.isEmpty())
            {
                throw new JcclException("rank " + rank + ": settings that every rank must share differ: " +
                    differences + ". They decide each call's algorithm, how it cuts its data and when the pace " +
                    "probe runs; the launcher gives every rank the same environment, and a rank started otherwise " +
                    "needs the same settings");
            }
        }
    }

    private static long word(final long segment, final SegmentDescriptor layout, final int peer, final int i)
    {
        return UnsafeApi.getLong(null, segment + layout.rankRecordOffset(peer) + AGREED_SETTINGS_OFFSET +
            (long) i * Long.BYTES);
    }

    /** FNV-1a over the UTF-8 bytes, never 0 (0 is an unset text); the engine's build digest hashes with it too. */
    public static long hash(final String text)
    {
        long hash = 0xcbf29ce484222325L;
        for (final byte b : text.getBytes(StandardCharsets.UTF_8))
        {
            hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
        }
        return hash == 0 ? 1 : hash;
    }
}
