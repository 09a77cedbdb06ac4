package io.jccl.algorithms;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A thread that allocates short-lived 64 KiB arrays until closed, so that young collections move the ranks' heap
 * buffers while their calls run: a copy or a reduction that kept an array's address across a safepoint reads or
 * writes where the array used to be, and the result checks see it.
 */
public final class GcPressure implements AutoCloseable
{
    private static volatile Object sink;

    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread = new Thread(this::allocate, "gc-pressure");

    public GcPressure()
    {
        thread.setDaemon(true);
        thread.start();
    }

    private void allocate()
    {
        while (!stop.get())
        {
            sink = new byte[1 << 16];
            // leave the cores to the ranks: with 2 cores they are oversubscribed already
            Thread.yield();
        }
    }

    @Override
    public void close()
    {
        stop.set(true);
        try
        {
            thread.join();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
