package io.jccl.shm;

import io.jccl.Configuration;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Where job segments live and what they are called: {@code <dir>/jccl-<uid>-<jobId>.seg}, created under the
 * temporary name {@code ....seg.creating} and renamed once complete, so that an attaching rank never maps a file
 * that is still being filled. The directory is {@code jccl.shm.dir} ({@code JCCL_SHM_DIR}, default /dev/shm),
 * or {@code java.io.tmpdir} when that is missing or not writable.
 */
public final class SegmentFiles
{
    public static final String PREFIX = "jccl-";
    public static final String SUFFIX = ".seg";
    public static final String CREATING_SUFFIX = ".creating";
    /** A segment made this long before a rank started cannot be its own job's. */
    private static final long EARLIER_JOB_SLACK_MS = 2_000;

    private SegmentFiles()
    {
    }

    public static Path directory(final Configuration configuration)
    {
        final Path configured = Path.of(configuration.get(Configuration.SHM_DIR_PROP_NAME,
            Configuration.SHM_DIR_DEFAULT));
        if (Files.isDirectory(configured) && Files.isWritable(configured))
        {
            return configured;
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    public static String fileName(final String jobId)
    {
        return PREFIX + uid() + "-" + jobId + SUFFIX;
    }

    public static Path path(final Configuration configuration, final String jobId)
    {
        return directory(configuration).resolve(fileName(jobId));
    }

    public static Path creatingPath(final Path segment)
    {
        return segment.resolveSibling(segment.getFileName() + CREATING_SUFFIX);
    }

    /** True for names of jccl segments (complete or being created) of any user. */
    public static boolean isSegmentName(final String name)
    {
        return name.startsWith(PREFIX) && (name.endsWith(SUFFIX) || name.endsWith(SUFFIX + CREATING_SUFFIX));
    }

    /** The user id of this process. */
    public static int uid()
    {
        try
        {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return 0;
        }
    }

    /** Removes the job's segment and its half-created twin; true if something was removed. */
    public static boolean remove(final Path segment)
    {
        boolean removed = false;
        for (final Path p : new Path[] {segment, creatingPath(segment)})
        {
            try
            {
                removed |= Files.deleteIfExists(p);
            }
            catch (final IOException ignore)
            {
                // best effort: reported by 'jccl info'
            }
        }
        return removed;
    }

    /**
     * Removes the job's segment, its half-created twin and its sub-communicators' segments, except a file whose
     * creator (from its header) is a live process: another job that uses the same job id. For the launcher, once its
     * own ranks have exited. Returns the live creator's pid when a file was kept, else -1.
     */
    public static long removeUnlessCreatorAlive(final Path segment)
    {
        long keptFor = -1;
        final List<Path> files = new ArrayList<>(subCommunicatorFiles(segment));
        files.add(segment);
        files.add(creatingPath(segment));
        for (final Path p : files)
        {
            final OptionalLong creator = creatorPid(p);
            if (creator.isPresent() && isAlive(creator.getAsLong()))
            {
                keptFor = creator.getAsLong();
                continue;
            }
            try
            {
                Files.deleteIfExists(p);
            }
            catch (final IOException ignore)
            {
                // best effort: reported by 'jccl info'
            }
        }
        return keptFor;
    }

    /**
     * True when the file at {@code segment} was left behind by an earlier job: its creator is dead, and it was made
     * well before this JVM started (a launcher starts every rank of a job within moments, so rank 0 of this job
     * cannot have made it). A rank must not attach to such a file but wait for rank 0 to replace it.
     * <p>
     * The JVM's start time, read off the wall clock as the file's creation time is: Linux gives a process's start as
     * ticks since boot, and {@code ProcessHandle} adds the boot time in whole seconds, which put it 0.97 s early on
     * this project's VMs, so that a file made 2.5 s before a rank started now and then passed for its own job's.
     */
    public static boolean isLeftByEarlierJob(final Path segment)
    {
        final OptionalLong creator = creatorPid(segment);
        if (creator.isEmpty() || isAlive(creator.getAsLong()))
        {
            return false;
        }
        final long created = headerLong(segment, SegmentDescriptor.CREATION_TIME_OFFSET);
        final long started = ManagementFactory.getRuntimeMXBean().getStartTime();
        return created > 0 && created < started - EARLIER_JOB_SLACK_MS;
    }

    /**
     * Removes the job's segment and those of its sub-communicators (named {@code <job id>.s<n>.<color>...}, see
     * {@code Communicator.split}), complete or half-created; true if something was removed.
     */
    public static boolean removeWithSubCommunicators(final Path segment)
    {
        boolean removed = remove(segment);
        for (final Path p : subCommunicatorFiles(segment))
        {
            try
            {
                removed |= Files.deleteIfExists(p);
            }
            catch (final IOException ignore)
            {
                // best effort: 'jccl clean' removes what is left once its creator is dead
            }
        }
        return removed;
    }

    /** The segments (complete or half-created) of the sub-communicators of the job whose segment this is. */
    private static List<Path> subCommunicatorFiles(final Path segment)
    {
        final List<Path> children = new ArrayList<>();
        final String name = segment.getFileName().toString();
        final String childPrefix = name.substring(0, name.length() - SUFFIX.length()) + ".";
        try (java.util.stream.Stream<Path> files = Files.list(segment.getParent()))
        {
            for (final Path p : (Iterable<Path>) files::iterator)
            {
                final String file = p.getFileName().toString();
                if (file.startsWith(childPrefix) && isSegmentName(file))
                {
                    children.add(p);
                }
            }
        }
        catch (final IOException | java.io.UncheckedIOException ignore)
        {
            // best effort: 'jccl clean' removes what is left once its creator is dead
        }
        return children;
    }

    /** The pid of the process that created the segment, read from its header; empty when unreadable. */
    public static OptionalLong creatorPid(final Path segment)
    {
        final long pid = headerLong(segment, SegmentDescriptor.CREATOR_PID_OFFSET);
        return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    private static boolean isAlive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** The header field at {@code offset} (little-endian long), or 0 when the file is shorter or unreadable. */
    private static long headerLong(final Path segment, final int offset)
    {
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ))
        {
            final ByteBuffer field = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            while (field.hasRemaining() && channel.read(field, offset + field.position()) > 0)
            {
                // read the whole field
            }
            return field.hasRemaining() ? 0 : field.getLong(0);
        }
        catch (final IOException ex)
        {
            return 0;
        }
    }
}
