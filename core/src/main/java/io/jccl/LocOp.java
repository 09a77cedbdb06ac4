package io.jccl;

/**
 * MPI's MINLOC and MAXLOC, the reductions of (value, index) pairs that {@link LocCollectives} runs: the smallest or
 * largest value and, among the pairs holding it, the smallest index.
 */
public enum LocOp
{
    MINLOC, MAXLOC;

    public String label()
    {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
