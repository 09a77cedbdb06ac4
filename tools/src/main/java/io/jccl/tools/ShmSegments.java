package io.jccl.tools;

import io.jccl.shm.SegmentDescriptor;
import io.jccl.shm.SegmentFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/** The jccl segments in a directory, and whether the process that created each one is still alive. */
public final class ShmSegments
{
    /**
     * A live pid whose process started this long after the segment was written belongs to someone else: the
     * creator died and the pid was reused. The slack covers the coarse start times Linux reports (boot time in
     * whole seconds) and small clock steps.
     */
    static final long PID_REUSE_SLACK_MS = 10_000;

    /** What is known of a segment's creator. */
    public enum Creator
    {
        ALIVE,
        DEAD,
        /** The pid is alive but the process started after the segment was made: the creator is dead. */
        PID_REUSED,
        /** The header does not name a creator yet (being created, or left half-created). */
        UNKNOWN;

        public boolean isDead()
        {
            return this == DEAD || this == PID_REUSED;
        }
    }

    /** One segment file. {@code creatorPid} is -1 when unknown. */
    public record Segment(Path path, long size, int ownerUid, long creatorPid, Creator creator)
    {
        public String name()
        {
            return path.getFileName().toString();
        }

        /** "creator pid 123 is dead", for info and clean. */
        public String describeCreator()
        {
            return switch (creator)
            {
                case ALIVE -> "creator pid " + creatorPid + " is alive";
                case DEAD -> "creator pid " + creatorPid + " is dead";
                case PID_REUSED -> "creator pid " + creatorPid + " is dead (the pid now belongs to a newer process)";
                case UNKNOWN -> "creator unknown (header not written: being created, or left half-made)";
            };
        }
    }

    private ShmSegments()
    {
    }

    /** The jccl segments (complete and half-created) in {@code directory}, sorted by name. */
    public static List<Segment> list(final Path directory) throws IOException
    {
        final List<Segment> segments = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory))
        {
            for (final Path path : files.sorted(Comparator.comparing(Path::toString)).toList())
            {
                if (SegmentFiles.isSegmentName(path.getFileName().toString()) && Files.isRegularFile(path))
                {
                    try
                    {
                        segments.add(inspect(path));
                    }
                    catch (final NoSuchFileException ex)
                    {
                        // removed since the listing: its job ended
                    }
                }
            }
        }
        return segments;
    }

    static Segment inspect(final Path path) throws IOException
    {
        final long size = Files.size(path);
        final int ownerUid = (Integer)Files.getAttribute(path, "unix:uid");
        final OptionalLong pid = SegmentFiles.creatorPid(path);
        if (pid.isEmpty())
        {
            return new Segment(path, size, ownerUid, -1, Creator.UNKNOWN);
        }
        return new Segment(path, size, ownerUid, pid.getAsLong(), creatorOf(pid.getAsLong(), creationTimeMs(path)));
    }

    private static Creator creatorOf(final long pid, final long creationTimeMs)
    {
        final Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !process.get().isAlive())
        {
            return Creator.DEAD;
        }
        final Optional<Instant> started = process.get().info().startInstant();
        if (creationTimeMs > 0 && started.isPresent() &&
            started.get().toEpochMilli() > creationTimeMs + PID_REUSE_SLACK_MS)
        {
            return Creator.PID_REUSED;
        }
        return Creator.ALIVE;
    }

    /** The creation time in the header (epoch ms), or 0 when it is not written or unreadable. */
    private static long creationTimeMs(final Path path)
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
        {
            final ByteBuffer field = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            while (field.hasRemaining() &&
                channel.read(field, SegmentDescriptor.CREATION_TIME_OFFSET + field.position()) > 0)
            {
                // read the whole field
            }
            return field.hasRemaining() ? 0 : Math.max(0, field.getLong(0));
        }
        catch (final IOException ex)
        {
            return 0;
        }
    }
}
