package io.jccl.tools;

import io.jccl.Configuration;
import io.jccl.shm.SegmentFiles;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code ./jccl clean}: removes the segments left behind by jobs whose creator died without cleaning up (a killed
 * launcher, ranks started by hand), and only those: a segment whose creator is alive, or not yet known because the
 * header is still being written, is kept.
 */
public final class CleanCommand implements Command
{
    private final PrintStream out;

    public CleanCommand(final PrintStream out)
    {
        this.out = out;
    }

    @Override

    public String name()
    {
        return "clean";
    }

    @Override

    public String summary()
    {
        return "remove the segments whose creator process is dead (and only those)";
    }

    @Override

    public String usage()
    {
        return """
            usage: ./jccl clean [--shm-dir DIR]

            Removes the jccl segments (and half-created .creating files) whose creator pid, read from the
            segment's header, is dead; keeps the others and says why.

              --shm-dir DIR   clean DIR instead of the shm directory in use (JCCL_SHM_DIR, default /dev/shm)
            """;
    }

    @Override

    public int run(final String[] args) throws IOException
    {
        final Configuration configuration = ShmDirOption.parse(args);
        final Path directory = SegmentFiles.directory(configuration);
        final List<ShmSegments.Segment> segments = ShmSegments.list(directory);
        if (segments.isEmpty())
        {
            out.println("no jccl segments in " + directory);
            return 0;
        }

        int removed = 0;
        int kept = 0;
        int failed = 0;
        for (final ShmSegments.Segment segment : segments)
        {
            if (!segment.creator().isDead())
            {
                out.println("kept    " + segment.name() + ": " + segment.describeCreator());
                kept++;
                continue;
            }
            try
            {
                Files.deleteIfExists(segment.path());
                out.println("removed " + segment.name() + ": " + segment.describeCreator());
                removed++;
            }
            catch (final IOException ex)
            {
                out.println("kept    " + segment.name() + ": " + segment.describeCreator() + ", but it cannot be " +
                    "removed: " + ex);
                failed++;
            }
        }
        out.println("in " + directory + ": removed " + removed + ", kept " + (kept + failed) +
            (failed > 0 ? " (" + failed + " could not be removed)" : ""));
        return failed > 0 ? 1 : 0;
    }
}
