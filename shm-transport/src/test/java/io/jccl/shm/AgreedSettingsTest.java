package io.jccl.shm;

import io.jccl.Configuration;
import io.jccl.JcclException;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Settings of three ranks published into one piece of memory laid out like a segment, and compared. */
@Timeout(10)
class AgreedSettingsTest
{
    private final SegmentDescriptor layout = new SegmentDescriptor(3, 4096, 0, 0);
    private final ByteBuffer memory = BufferUtil.allocateDirectAligned((int) layout.totalLength(), 4096);
    private final long address = BufferUtil.address(memory);

    private static AgreedSettings settings(final long split, final String algo)
    {
        return new AgreedSettings().number("jccl.split.bytes", split).text("jccl.algo", algo);
    }

    private void publish(final AgreedSettings... ranks)
    {
        for (int r = 0; r < ranks.length; r++)
        {
            ranks[r].publish(address + layout.rankRecordOffset(r));
        }
    }

    @Test
    void ranksThatShareEverySettingPass()
    {
        final AgreedSettings[] ranks = {settings(1 << 20, null), settings(1 << 20, null), settings(1 << 20, null)};
        publish(ranks);
        for (int r = 0; r < 3; r++)
        {
            final int rank = r;
            assertDoesNotThrow(() -> ranks[rank].check(address, layout, rank));
        }
    }

    @Test
    void theLowestRankThatDiffersIsNamedWithEverySettingItDiffersIn()
    {
        final AgreedSettings[] ranks = {settings(1 << 20, null), settings(1 << 20, null),
            settings(2 << 20, "allreduce:ring")};
        publish(ranks);
        final JcclException onRank0 = assertThrows(JcclException.class, () -> ranks[0].check(address, layout, 0));
        assertTrue(onRank0.getMessage().startsWith("rank 0: settings that every rank must share differ: " +
            "jccl.split.bytes 1048576 here, 2097152 on rank 2; jccl.algo unset here, rank 2's differs. "),
            onRank0.getMessage());
        final JcclException onRank2 = assertThrows(JcclException.class, () -> ranks[2].check(address, layout, 2));
        assertTrue(onRank2.getMessage().startsWith("rank 2: settings that every rank must share differ: " +
            "jccl.split.bytes 2097152 here, 1048576 on rank 0; jccl.algo 'allreduce:ring' here, rank 0's differs. "),
            onRank2.getMessage());
    }

    @Test
    void textsAreHashedAndNeverReadAsUnset()
    {
        assertNotEquals(0, AgreedSettings.hash(""));
        assertNotEquals(AgreedSettings.hash("allreduce:ring"), AgreedSettings.hash("allreduce:rinh"));
        assertEquals(AgreedSettings.hash("allreduce:ring"), AgreedSettings.hash("allreduce:ring"));
    }

    @Test
    void theTransportsOwnCountTheSingleCopySizeWhetherSetOrNotAndTheStagingArea()
    {
        final AgreedSettings unset = AgreedSettings.of(Configuration.builder().build());
        final AgreedSettings atDefault = AgreedSettings.of(Configuration.builder()
            .set(Configuration.SINGLE_COPY_BYTES_PROP_NAME, Long.toString(Configuration.SINGLE_COPY_BYTES_DEFAULT))
            .build());
        publish(unset, atDefault, AgreedSettings.of(Configuration.builder().build()));
        assertThrows(JcclException.class, () -> unset.check(address, layout, 0));
        final AgreedSettings spelled = AgreedSettings.of(Configuration.builder()
            .set(Configuration.SINGLE_COPY_BYTES_PROP_NAME, "32k").build());
        publish(atDefault, spelled, atDefault);
        assertDoesNotThrow(() -> spelled.check(address, layout, 1));
        final AgreedSettings staging = AgreedSettings.of(Configuration.builder()
            .set(Configuration.STAGING_BYTES_PROP_NAME, "8m").build());
        publish(unset, staging, unset);
        final JcclException ex = assertThrows(JcclException.class, () -> unset.check(address, layout, 0));
        assertTrue(ex.getMessage().contains("jccl.staging.bytes 4194304 here, 8388608 on rank 1"), ex.getMessage());
    }

    @Test
    void anotherBuildIsRefusedForThatAloneAndOnlyOneBuildIsAdded()
    {
        final AgreedSettings[] ranks = {settings(1 << 20, null).build(7, "the jars here"),
            settings(1 << 20, null).build(7, "a copy of them"), settings(2 << 20, null).build(8, "other jars")};
        publish(ranks);
        final JcclException onRank0 = assertThrows(JcclException.class, () -> ranks[0].check(address, layout, 0));
        assertTrue(onRank0.getMessage().startsWith("rank 0: jccl builds differ: rank 2 runs other jccl code than " +
            "this rank's, the jars here. "), onRank0.getMessage());
        final JcclException onRank2 = assertThrows(JcclException.class, () -> ranks[2].check(address, layout, 2));
        assertTrue(onRank2.getMessage().startsWith("rank 2: jccl builds differ: rank 0 runs other jccl code than " +
            "this rank's, other jars. "), onRank2.getMessage());
        publish(ranks[0], ranks[1], settings(2 << 20, null).build(7, "the same"));
        final JcclException settingsAlone = assertThrows(JcclException.class, () -> ranks[1].check(address, layout, 1));
        assertTrue(settingsAlone.getMessage().startsWith("rank 1: settings that every rank must share differ: " +
            "jccl.split.bytes 1048576 here, 2097152 on rank 2. "), settingsAlone.getMessage());
        assertThrows(IllegalStateException.class, () -> ranks[0].build(7, "twice"));
    }

    @Test
    void aRecordHoldsElevenWords()
    {
        final AgreedSettings full = new AgreedSettings();
        for (int i = 0; i < SegmentDescriptor.RankRecordDescriptor.AGREED_SETTINGS_WORDS; i++)
        {
            full.number("setting " + i, i);
        }
        assertThrows(IllegalStateException.class, () -> full.number("one more", 0));
    }
}
