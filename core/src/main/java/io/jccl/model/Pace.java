package io.jccl.model;

/**
 * One of a machine's two paces: some hosts move a VM's vCPUs so that handing a freshly written cache line from one
 * core to another switches between a fast and a slow speed for seconds at a time (the AMD EPYC VM of MODEL.md session
 * 19: 54 or 245 ns a line). Algorithms that copy twice through staging areas slow down with it; single copy through
 * the kernel does not, so the fastest algorithm at a size can depend on the pace.
 */
public enum Pace
{
    FAST, SLOW;

    /** "fast" or "slow", as tuning files and command lines spell it. */
    public String label()
    {
        return this == FAST ? "fast" : "slow";
    }

    /** The pace spelt {@code label}. */
    public static Pace parse(final String label)
    {
        for (final Pace pace : values())
        {
            if (pace.label().equals(label))
            {
                return pace;
            }
        }
        throw new IllegalArgumentException("pace must be fast or slow, not '" + label + "'");
    }
}
