package io.jccl.tools.tune;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perf/tune-splits}: which files make each tuning file, which judge it, and the summary over the splits. The
 * launcher it calls is a stand-in here (JCCL), so that each split's share is known: a sweep file holds one number,
 * {@code tune --from} writes their sum, and {@code tune --check} finds (that sum + the first judging sweep's number)
 * of 10 sizes within 10 %, and, for files made with sweep 1, (10 − the sum) of 10 at the fast pace; sweeps whose
 * numbers sum to 99 or more make no file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TuneSplitsScriptTest
{
    private static final Path SCRIPT = Path.of("..", "perf", "tune-splits").toAbsolutePath().normalize();

    private static final String STAND_IN = """
        #!/bin/sh
        [ "$1" = tune ] || exit 3
        mode=$2; shift 2
        sum=0; first=; one=0
        while [ $# -gt 0 ]; do
          case $1 in
            --out|--file) file=$2; shift 2 ;;
            *) v=$(cat "$1"); sum=$((sum + v)); [ -z "$first" ] && first=$v; [ "$v" = 1 ] && one=1; shift ;;
          esac
        done
        [ "$mode" = --from ] && { [ "$sum" -lt 99 ] || exit 1; echo "$sum $one" > "$file"; exit 0; }
        read train withOne < "$file"
        echo "tuning file within 10% of the best measured algorithm at $((train + first)) of 10 sizes (-)"
        [ "$withOne" = 1 ] && echo "at the fast pace alone (the runs' rows at it, where the file parts the paces): \
        the file's choices for that pace within 10% of the best measured at $((10 - train)) of 10 sizes (-), its \
        choices for both paces at 1 of 10"
        exit 0
        """;

    @TempDir
    Path directory;

    @Test
    void judgesEachFileByAllTheOtherSweeps() throws Exception
    {
        final Run run = run(sweeps(1, 2, 3, 4), "-k", "2");

        assertEquals(0, run.status(), run.output());
        // six files from two of four sweeps; every row: sum + the first judge's number, 6, 6, 7, 6, 7, 8 of 10
        assertTrue(run.output().contains("from 1 2, judged by 3 4: every row 60.0 %, fast pace 70.0 %, slow pace -\n"),
            run.output());
        assertTrue(run.output().contains("from 3 4, judged by 1 2: every row 80.0 %, fast pace -, slow pace -\n"),
            run.output());
        assertEquals(6, run.output().lines().filter(l -> l.startsWith("from ")).count(), run.output());
        assertTrue(run.output().endsWith("""
            files from 2 sweeps judged by 2:
              every row, time to expect: min / median / max 60.0 / 65.0 / 80.0 % of sizes within 10 % of the fastest; \
            90 % or more in 0 of 6 splits
              fast pace, the file's choices for it: min / median / max 50.0 / 60.0 / 70.0 % of sizes within 10 % of \
            the fastest; 90 % or more in 0 of 3 splits
              slow pace, the file's choices for it: no split
            """), run.output());
    }

    @Test
    void judgesEachFileByEveryFewOfTheOthersInTurn() throws Exception
    {
        final Run run = run(sweeps(1, 2, 3, 4), "-k", "2", "--judges", "1");

        assertEquals(0, run.status(), run.output());
        // twelve: each file by each of the two others, sum + that sweep's number: 6-9 of 10, three of each
        assertTrue(run.output().contains("from 2 3, judged by 4: every row 90.0 %"), run.output());
        assertTrue(run.output().contains("""
              every row, time to expect: min / median / max 60.0 / 75.0 / 90.0 % of sizes within 10 % of the fastest; \
            90 % or more in 3 of 12 splits
            """), run.output());
    }

    @Test
    void stopsAtAFileThatCannotBeMadeAndAtImpossibleSplits() throws Exception
    {
        final Run failed = run(sweeps(1, 99, 3), "-k", "2");
        assertEquals(1, failed.status(), failed.output());
        assertTrue(failed.output().contains("tune --from failed for sweeps 1 2"), failed.output());

        final Run tooMany = run(sweeps(1, 2, 3), "-k", "3");
        assertEquals(2, tooMany.status(), tooMany.output());
        assertTrue(tooMany.output().contains("-k must be 1 to 2 with 3 sweeps"), tooMany.output());

        final Run tooManyJudges = run(sweeps(1, 2, 3), "-k", "2", "--judges", "2");
        assertEquals(2, tooManyJudges.status(), tooManyJudges.output());
        assertTrue(tooManyJudges.output().contains("--judges must be 1 to 1"), tooManyJudges.output());
    }

    private List<String> sweeps(final int... numbers) throws IOException
    {
        final List<String> files = new ArrayList<>();
        for (int i = 0; i < numbers.length; i++)
        {
            final Path sweep = directory.resolve("sweep" + (i + 1) + ".csv");
            Files.writeString(sweep, numbers[i] + "\n");
            files.add(sweep.toString());
        }
        return files;
    }

    private record Run(int status, String output)
    {
    }

    /** Runs the script with the stand-in launcher; stdout and stderr together. */
    private Run run(final List<String> sweeps, final String... options) throws Exception
    {
        final Path launcher = directory.resolve("jccl");
        Files.writeString(launcher, STAND_IN);
        assertTrue(launcher.toFile().setExecutable(true));
        final List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString(), "--out",
            directory.resolve("splits").toString()));
        command.addAll(List.of(options));
        command.addAll(sweeps);
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("JCCL", launcher.toString());
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(process.waitFor(), output);
    }
}
