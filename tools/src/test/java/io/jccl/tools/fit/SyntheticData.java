package io.jccl.tools.fit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes {@link SyntheticResults} files for tests outside this package. */
public final class SyntheticData
{
    private SyntheticData()
    {
    }

    /** A bench CSV of the synthetic truth with relative noise {@code noise}, at {@code path}. */
    public static Path write(final Path path, final double noise, final long seed) throws IOException
    {
        Files.writeString(path, SyntheticResults.csv(SyntheticResults.truth(), noise, seed), StandardCharsets.UTF_8);
        return path;
    }
}
