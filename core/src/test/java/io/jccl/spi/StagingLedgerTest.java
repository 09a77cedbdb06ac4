package io.jccl.spi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class StagingLedgerTest
{
    @Test
    void nothingToWaitForBeforeTheFirstUse()
    {
        final StagingLedger ledger = new StagingLedger();
        assertEquals(0, ledger.toAcquire());
        assertEquals(0, ledger.toAcquirePart(0));
        assertEquals(0, ledger.toAcquirePart(1));
    }

    @Test
    void anOperationOnTheWholeAreaWaitsForTheLastUseOfAnyPart()
    {
        final StagingLedger ledger = new StagingLedger();
        ledger.released(3);
        assertEquals(3, ledger.toAcquire());
        assertEquals(3, ledger.toAcquirePart(0));
        assertEquals(3, ledger.toAcquirePart(1));
        ledger.releasedPart(1, 4);
        assertEquals(4, ledger.toAcquire());
        assertEquals(3, ledger.toAcquirePart(0));
        assertEquals(4, ledger.toAcquirePart(1));
    }

    @Test
    void alternatingOnePartExchangesNeverWait()
    {
        final StagingLedger ledger = new StagingLedger();
        ledger.released(1);
        for (long sequence = 2; sequence < 100; sequence++)
        {
            final int part = (int) (sequence & 1);
            final long needed = ledger.toAcquirePart(part);
            // the first one waits for operation 1, which used both parts; after it, the part's last user is two back,
            // and the peers were seen in the operation before, so they have finished it
            assertEquals(sequence == 2 ? 1 : 0, needed, "operation " + sequence);
            ledger.peersStarted(sequence);
            ledger.releasedPart(part, sequence);
        }
    }

    @Test
    void seeingThePeersOnlyVouchesForTheOperationsBefore()
    {
        final StagingLedger ledger = new StagingLedger();
        ledger.releasedPart(0, 5);
        ledger.peersStarted(5);
        assertEquals(5, ledger.toAcquirePart(0), "the peers may still read operation 5's part");
        assertEquals(5, ledger.toAcquire());
        ledger.peersStarted(6);
        assertEquals(0, ledger.toAcquirePart(0));
        assertEquals(0, ledger.toAcquire());
        ledger.peersStarted(4);
        assertEquals(0, ledger.toAcquire(), "what the rank knows only grows");
    }
}
