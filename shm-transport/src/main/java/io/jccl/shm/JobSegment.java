package io.jccl.shm;

import io.jccl.Configuration;
import io.jccl.JcclException;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

import static io.jccl.shm.SegmentDescriptor.*;

/**
 * The mapped job segment (layout: {@link SegmentDescriptor}). Rank 0 creates it under a temporary name, reserves
 * every byte with real writes (so a full tmpfs fails here with an error, not later with SIGBUS), fills the header,
 * publishes the magic with a release store and renames the file into place; the other ranks wait for the file,
 * check magic, version, world size, job id and length, and map it.
 */
public final class JobSegment implements AutoCloseable
{
    private static final int ZERO_CHUNK = 1 << 20;
    /** Largest segment one mapping can hold. */
    private static final long MAX_LENGTH = Integer.MAX_VALUE & ~(PAGE - 1L);

    private final Path path;
    private final SegmentDescriptor layout;
    private final MappedByteBuffer mapping;
    private final long address;

    private JobSegment(final Path path, final SegmentDescriptor layout, final MappedByteBuffer mapping)
    {
        this.path = path;
        this.layout = layout;
        this.mapping = mapping;
        this.address = BufferUtil.address(mapping);
    }

    /** The layout this configuration asks for. */
    public static SegmentDescriptor layout(final Configuration configuration, final int worldSize)
    {
        return new SegmentDescriptor(worldSize,
            configuration.getLong(Configuration.RING_BYTES_PROP_NAME, Configuration.RING_BYTES_DEFAULT),
            stagingBytes(configuration),
            align(configuration.getLong(Configuration.SYMMETRIC_BYTES_PROP_NAME,
                Configuration.SYMMETRIC_BYTES_DEFAULT), PAGE));
    }

    /** Each rank's staging area by {@code configuration}, in whole pages. */
    static long stagingBytes(final Configuration configuration)
    {
        return align(configuration.getLong(Configuration.STAGING_BYTES_PROP_NAME, Configuration.STAGING_BYTES_DEFAULT),
            PAGE);
    }

    /** Creates, reserves, fills and publishes the segment at {@code path}. */
    public static JobSegment create(final Path path, final SegmentDescriptor layout, final String jobId,
        final Log log)
    {
        final long length = layout.totalLength();
        if (length > MAX_LENGTH)
        {
            throw new JcclException("the job segment would need " + mib(length) + " for " + layout.worldSize() +
                " ranks (" + parts(layout) + "), more than one mapping holds (" + mib(MAX_LENGTH) + "): shrink it " +
                "with " + SIZE_SETTINGS + ".");
        }
        removeIfStale(path, log);
        final Path creating = SegmentFiles.creatingPath(path);
        removeIfStale(creating, log);
        checkFreeSpace(path.getParent(), length);

        final MappedByteBuffer mapping;
        try (FileChannel channel = FileChannel.open(creating, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            reserve(channel, creating, length);
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new JcclException("segment " + creating + " is being created by another live process: is job id " +
                jobId + " in use twice?", ex);
        }
        catch (final IOException ex)
        {
            SegmentFiles.remove(path);
            throw new JcclException("cannot create the job segment " + path + " (" + mib(length) + "): " +
                ex.getMessage() + ". " + SETTINGS_HINT, ex);
        }

        final JobSegment segment = new JobSegment(path, layout, mapping);
        segment.writeHeader(jobId);
        try
        {
            Files.move(creating, path, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            segment.close();
            SegmentFiles.remove(path);
            throw new JcclException("cannot publish the job segment " + path + ": " + ex.getMessage(), ex);
        }
        if (log.enabled(Log.INFO, Log.SHM))
        {
            log.info(Log.SHM, "created segment " + path + " (" + mib(length) + ", " + layout.worldSize() +
                " ranks, ring " + layout.ringCapacity() + " B, staging " + layout.stagingBytes() + " B, symmetric " +
                layout.symmetricBytes() + " B)");
        }
        return segment;
    }

    /**
     * Maps the segment at {@code path} if it exists and is complete; null if it is not there yet.
     * Throws when the file is there but does not belong to this job.
     */
    public static JobSegment tryAttach(final Path path, final int worldSize, final String jobId)
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final long size = channel.size();
            if (size < HEADER_LENGTH)
            {
                throw new JcclException("segment " + path + " is " + size + " bytes long, shorter than its header");
            }
            final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            final long address = BufferUtil.address(mapping);
            final long magic = UnsafeApi.getLongAcquire(null, address + MAGIC_OFFSET);
            if (magic != MAGIC)
            {
                IoUtil.unmap(mapping);
                throw new JcclException("file " + path + " is not a jccl segment (magic " + Long.toHexString(magic) +
                    ")");
            }
            final int version = UnsafeApi.getInt(null, address + VERSION_OFFSET);
            final int fileWorldSize = UnsafeApi.getInt(null, address + WORLD_SIZE_OFFSET);
            final long total = UnsafeApi.getLong(null, address + TOTAL_LENGTH_OFFSET);
            final String fileJobId = readJobId(address);
            String problem = null;
            if (version != VERSION)
            {
                problem = "segment version " + version + ", this jccl speaks " + VERSION;
            }
            else if (fileWorldSize != worldSize)
            {
                problem = "segment made for " + fileWorldSize + " ranks, this rank expects " + worldSize;
            }
            else if (!fileJobId.equals(jobId))
            {
                problem = "segment belongs to job " + fileJobId + ", not " + jobId;
            }
            else if (total != size)
            {
                problem = "segment header says " + total + " bytes, the file has " + size;
            }
            if (problem != null)
            {
                IoUtil.unmap(mapping);
                throw new JcclException("cannot attach " + path + ": " + problem);
            }
            final SegmentDescriptor layout = new SegmentDescriptor(fileWorldSize,
                UnsafeApi.getLong(null, address + RING_CAPACITY_OFFSET),
                UnsafeApi.getLong(null, address + STAGING_BYTES_OFFSET),
                UnsafeApi.getLong(null, address + SYMMETRIC_BYTES_OFFSET));
            return new JobSegment(path, layout, mapping);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        catch (final IOException ex)
        {
            throw new JcclException("cannot attach the job segment " + path + ": " + ex.getMessage(), ex);
        }
    }

    public Path path()
    {
        return path;
    }

    public SegmentDescriptor layout()
    {
        return layout;
    }

    /** The mapping: symmetric memory's views keep it reachable, and slice it for {@code Buf.asByteBuffer}. */
    public MappedByteBuffer mapping()
    {
        return mapping;
    }

    /** Absolute address of the segment's first byte. */
    public long address()
    {
        return address;
    }

    /** Removes the file; the mappings stay valid, so nothing of the job remains on disk once all ranks mapped it. */
    public void unlink()
    {
        SegmentFiles.remove(path);
    }

    @Override
    public void close()
    {
        IoUtil.unmap(mapping);
    }

    private void writeHeader(final String jobId)
    {
        final byte[] id = jobId.getBytes(StandardCharsets.US_ASCII);
        if (id.length > JOB_ID_MAX_LENGTH)
        {
            throw new IllegalArgumentException("job id longer than " + JOB_ID_MAX_LENGTH + " bytes: " + jobId);
        }
        UnsafeApi.putInt(null, address + VERSION_OFFSET, VERSION);
        UnsafeApi.putInt(null, address + WORLD_SIZE_OFFSET, layout.worldSize());
        UnsafeApi.putLong(null, address + TOTAL_LENGTH_OFFSET, layout.totalLength());
        UnsafeApi.putLong(null, address + CREATOR_PID_OFFSET, ProcessHandle.current().pid());
        UnsafeApi.putLong(null, address + RING_CAPACITY_OFFSET, layout.ringCapacity());
        UnsafeApi.putLong(null, address + STAGING_BYTES_OFFSET, layout.stagingBytes());
        UnsafeApi.putLong(null, address + SYMMETRIC_BYTES_OFFSET, layout.symmetricBytes());
        UnsafeApi.putLong(null, address + CREATION_TIME_OFFSET, System.currentTimeMillis());
        UnsafeApi.putInt(null, address + JOB_ID_LENGTH_OFFSET, id.length);
        for (int i = 0; i < id.length; i++)
        {
            UnsafeApi.putByte(null, address + JOB_ID_OFFSET + i, id[i]);
        }
        // Release: every header field above is visible before a reader can see the magic.
        UnsafeApi.putLongRelease(null, address + MAGIC_OFFSET, MAGIC);
    }

    private static String readJobId(final long address)
    {
        final int length = Math.min(Math.max(0, UnsafeApi.getInt(null, address + JOB_ID_LENGTH_OFFSET)),
            JOB_ID_MAX_LENGTH);
        final byte[] id = new byte[length];
        for (int i = 0; i < length; i++)
        {
            id[i] = UnsafeApi.getByte(null, address + JOB_ID_OFFSET + i);
        }
        return new String(id, StandardCharsets.US_ASCII);
    }

    /**
     * "rings 9900.0 MiB, one per ordered pair of ranks (100 × 99 of 1.0 MiB); staging areas 400.0 MiB (100 × 4.0
     * MiB); symmetric memory 800.0 MiB (100 × 8.0 MiB)": what the settings make of a segment, the rings growing with
     * the square of the ranks.
     */
    static String parts(final SegmentDescriptor layout)
    {
        final long ranks = layout.worldSize();
        final long ring = ChannelDescriptor.length(layout.ringCapacity());
        return "rings " + mib(ranks * (ranks - 1) * ring) + ", one per ordered pair of ranks (" + ranks + " × " +
            (ranks - 1) + " of " + mib(ring) + "); staging areas " + mib(ranks * layout.stagingBytes()) + " (" +
            ranks + " × " + mib(layout.stagingBytes()) + "); symmetric memory " +
            mib(ranks * layout.symmetricBytes()) + " (" + ranks + " × " + mib(layout.symmetricBytes()) + ")";
    }

    /** The settings that size the segment's parts, as both its messages name them. */
    private static final String SIZE_SETTINGS = "JCCL_RING_BYTES, JCCL_STAGING_BYTES and JCCL_SYMMETRIC_BYTES";
    private static final String SETTINGS_HINT = "Free space in the segment directory (jccl.shm.dir / JCCL_SHM_DIR), " +
        "enlarge it (e.g. docker --shm-size), or shrink the segment with " + SIZE_SETTINGS + ".";

    private static void checkFreeSpace(final Path directory, final long length)
    {
        final long usable;
        try
        {
            usable = Files.getFileStore(directory).getUsableSpace();
        }
        catch (final IOException ex)
        {
            throw new JcclException("cannot read free space of " + directory + ": " + ex.getMessage(), ex);
        }
        if (usable < length)
        {
            throw new JcclException("the job segment needs " + mib(length) + " but " + directory + " has only " +
                mib(usable) + " free. " + SETTINGS_HINT);
        }
    }

    /** Writes zeros over the whole file: tmpfs allocates its pages now, and ENOSPC is an IOException here. */
    private static void reserve(final FileChannel channel, final Path file, final long length) throws IOException
    {
        final ByteBuffer zeros = ByteBuffer.allocateDirect(ZERO_CHUNK);
        long position = 0;
        while (position < length)
        {
            zeros.clear().limit((int) Math.min(ZERO_CHUNK, length - position));
            while (zeros.hasRemaining())
            {
                position += channel.write(zeros, position);
            }
        }
        if (channel.size() != length)
        {
            throw new IOException("reserved " + channel.size() + " of " + length + " bytes of " + file);
        }
    }

    /** A segment at {@code path} left by a dead creator is removed; a live one means a job id clash. */
    private static void removeIfStale(final Path path, final Log log)
    {
        if (!Files.exists(path))
        {
            return;
        }
        final OptionalLong creator = SegmentFiles.creatorPid(path);
        if (creator.isPresent() && ProcessHandle.of(creator.getAsLong()).map(ProcessHandle::isAlive).orElse(false))
        {
            throw new JcclException("segment " + path + " already exists and its creator (pid " +
                creator.getAsLong() + ") is alive: two jobs share the job id; choose another JCCL_JOB_ID");
        }
        log.warn(Log.SHM, "removing stale segment " + path + (creator.isPresent() ? " of dead pid " +
            creator.getAsLong() : ""));
        SegmentFiles.remove(path);
    }

    static String mib(final long bytes)
    {
        return bytes >= (1 << 20) ? String.format("%.1f MiB", bytes / 1048576.0) : bytes + " bytes";
    }
}
