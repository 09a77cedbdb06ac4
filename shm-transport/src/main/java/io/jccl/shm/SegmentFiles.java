package io.jccl.shm;

import io.jccl.Configuration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
     * Removes the job's segment and those of its sub-communicators (named {@code <job id>.s<n>.<color>...}, see
     * {@code Communicator.split}), complete or half-created; true if something was removed.
     */
    public static boolean removeWithSubCommunicators(final Path segment)
    {
        boolean removed = remove(segment);
        final String name = segment.getFileName().toString();
        final String childPrefix = name.substring(0, name.length() - SUFFIX.length()) + ".";
        try (java.util.stream.Stream<Path> files = Files.list(segment.getParent()))
        {
            for (final Path p : (Iterable<Path>) files::iterator)
            {
                final String file = p.getFileName().toString();
                if (file.startsWith(childPrefix) && isSegmentName(file))
                {
                    removed |= Files.deleteIfExists(p);
                }
            }
        }
        catch (final IOException | java.io.UncheckedIOException ignore)
        {
            // best effort: 'jccl clean' removes what is left once its creator is dead
        }
        return removed;
    }

    /** The pid of the process that created the segment, read from its header; empty when unreadable. */
    public static OptionalLong creatorPid(final Path segment)
    {
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ))
        {
            final ByteBuffer header = ByteBuffer.allocate(SegmentDescriptor.CREATOR_PID_OFFSET + 8)
                .order(ByteOrder.LITTLE_ENDIAN);
            while (header.hasRemaining() && channel.read(header) > 0)
            {
                // read the fixed prefix of the header
            }
            if (header.hasRemaining())
            {
                return OptionalLong.empty();
            }
            final long pid = header.getLong(SegmentDescriptor.CREATOR_PID_OFFSET);
            return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
        }
        catch (final IOException ex)
        {
            return OptionalLong.empty();
        }
    }
}
