package io.jccl.spi;

/** Prints whether this JVM reduces off-heap operands on the SIMD kernels, and why not: {@code ReductionsTest} runs it. */
public final class VectorKernelsReport
{
    private VectorKernelsReport()
    {
    }

    public static void main(final String[] args)
    {
        System.out.println(Reductions.vectorKernels() + " " + Reductions.vectorKernelsWhyNot());
    }
}
