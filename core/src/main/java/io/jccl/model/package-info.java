/**
 * jccl's cost model: for every algorithm a formula in α, β, β_c, β_r, α_f, γ, p and n ({@link
 * io.jccl.model.CostFormulas}), parameter sets with one α, β, β_c, β_r per protocol regime ({@link
 * io.jccl.model.ModelParameters}, {@link io.jccl.model.Regime}), predictions and the fastest algorithm
 * ({@link io.jccl.model.CostModel}), and the tuning file that {@code ./jccl tune} writes and the engine reads
 * ({@link io.jccl.model.TuningTable}).
 * <p>
 * Regimes: point-to-point time is piecewise linear in the message size, {@code T(m) = α_r + m·β_r} for m in regime
 * r. On shared memory the first regime is the small-message protocol (the flag travels with the data, one cache-line
 * handoff per message), the next the chunked protocol (data, then a release-stored flag, chunks pipelined), and
 * often a last one where messages no longer fit in the caches. {@code ./jccl fit} finds the breakpoints from the
 * data. A collective's message terms are priced in the regime of each message's size, its local memory terms in
 * the regime of its vector size (see {@link io.jccl.model.CostTerms}).
 */
package io.jccl.model;
