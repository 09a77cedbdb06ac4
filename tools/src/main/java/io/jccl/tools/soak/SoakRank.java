package io.jccl.tools.soak;

import io.jccl.Buf;
import io.jccl.CollectiveRequest;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Jccl;
import io.jccl.ReceiveRequest;
import io.jccl.ReduceOp;
import io.jccl.Request;
import io.jccl.algorithms.AlgorithmRegistry;
import io.jccl.engine.ShmCommunicator;
import io.jccl.spi.CollectiveArgs;
import io.jccl.tools.UsageException;
import io.jccl.tools.bench.BenchCall;
import io.jccl.tools.bench.BenchOp;
import io.jccl.tools.bench.SeededData;
import io.jccl.tools.soak.SoakOptions.Group;
import io.jccl.tools.soak.SoakOptions.Memory;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One rank of {@code ./jccl soak}: random operations (every {@link BenchOp}, every datatype and reduction, every
 * algorithm of the collective or jccl's own choice, sizes log-uniform up to {@code --max-bytes}, a random root,
 * buffers in direct, heap or shared memory, on the job's communicator, a duplicate or a split of it), each from fresh
 * seeded inputs and checked against the reference every rank computes locally ({@link SeededData}, as
 * {@code bench --check}). With non-blocking calls on, a step in four is a batch: one to {@link #MAX_IN_FLIGHT}
 * non-blocking collectives, a blocking call while they run, then the wait for them, the calls of a batch each in a
 * slot of its own of the regions; and a step in eight an exchange of point-to-point messages between every pair of
 * ranks ({@link #runExchange}). Every rank draws the same calls from the same seed, so no call is negotiated (the two
 * groups of the split run the calls of their draws side by side); a forced algorithm that cannot serve a call is
 * skipped by all ranks together. Every {@link #CONTROL_EVERY} steps the ranks send rank 0 their counts and resident
 * memory; rank 0 prints progress and says when the time is up. Exits with 1 when any result was wrong.
 */
public final class SoakRank
{
    /** Steps between two control rounds (counts to rank 0, "go on" or "stop" back). */
    static final int CONTROL_EVERY = 16;
    /**
     * With non-blocking calls on, a step draws one of this many outcomes: the first {@link #BATCH_DRAWS} are a batch,
     * the next an exchange of point-to-point messages, the rest a blocking call.
     */
    static final int STEP_DRAWS = 8;
    static final int BATCH_DRAWS = 2;
    /** The most non-blocking calls in flight in one batch. */
    static final int MAX_IN_FLIGHT = 3;
    /** The most messages from one rank to another in an exchange. */
    static final int MAX_PER_PAIR = 4;
    /** An exchange's tags: few, so that some messages share a tag (and must arrive in order) and others overtake. */
    static final int EXCHANGE_TAGS = 3;
    /**
     * One exchange in this many shifts its messages round the group with blocking sendRecvs, and as many others take
     * theirs from any source.
     */
    static final int SEND_RECV_EVERY = 4;
    /** With in-place calls on, one call in this many of an op that has an in-place form is made in place. */
    static final int IN_PLACE_EVERY = 4;
    /**
     * With direct and heap memory both on, one call (or exchange) in this many that draws one of them gives the odd
     * ranks of its communicator the other: a rank's buffers need not be of its peers' kind (shared ones must).
     */
    static final int MIXED_EVERY = 4;
    /** A batch's slots start at multiples of this (a cache line; a whole number of elements of every type). */
    private static final int SLOT_ALIGNMENT = 64;
    /**
     * A guard on a batch's timed wait, far beyond any operation timeout: the progress thread's own waits fail first
     * when a peer stops.
     */
    private static final long TIMED_WAIT_MINUTES = 30;
    private static final String DEFAULT_ALGORITHM = "default";
    /**
     * The operators a call draws from: not the bitwise ones, which reduce integers only, so that a seed draws the
     * calls it drew before they existed (the contract suite checks them on every algorithm).
     */
    private static final ReduceOp[] REDUCE_OPS = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX,
        ReduceOp.AVG};

    private final Communicator comm;
    private final SoakOptions options;
    private final PrintStream out;
    private final int rank;
    private final int ranks;
    private final SplittableRandom random;
    private final Memory[] memories;
    private final Group[] groups;
    /** The operations a blocking call draws from. */
    private final BenchOp[] drawnOps;
    /** The operations a non-blocking call draws from: the collectives among {@link #drawnOps}. */
    private final BenchOp[] collectives;
    /** By {@link Group}: this rank's communicator of the group, null for groups the options leave out. */
    private final Communicator[] communicators = new Communicator[Group.values().length];
    /** Direct and heap regions, which serve every group. */
    private final Map<Memory, Regions> regions = new EnumMap<>(Memory.class);
    /** Shared regions by group: a communicator reads in place only buffers in its own segment. */
    private final Map<Group, Regions> sharedRegions = new EnumMap<>(Group.class);
    private final Map<String, Communicator> views = new HashMap<>();
    private final Map<BenchOp, List<String>> algorithms = new HashMap<>();
    private final CollectiveArgs probe = new CollectiveArgs();
    private final long[] flag = new long[1];
    /** Per rank, what it sends rank 0 at each control round: see {@link SoakReport#update}. */
    private final long[] mine = new long[SoakReport.FIELDS];
    private final long[] everyone;
    private final long[] verdict = new long[2];
    /** Operations by kind, exchanges, by memory, by communicator, non-blocking: see {@link SoakReport#TALLY_LENGTH}. */
    private final long[] tally = new long[SoakReport.TALLY_LENGTH];
    /** By {@link Group}: the exchanges from any source so far, which every rank of the group counts alike. */
    private final long[] anySourceExchanges = new long[Group.values().length];
    private final int maxInFlight;

    private long ops;
    private long skipped;
    private long wrong;

    SoakRank(final Communicator comm, final SoakOptions options, final PrintStream out)
    {
        this.comm = comm;
        this.options = options;
        this.out = out;
        this.rank = comm.rank();
        this.ranks = comm.size();
        this.random = new SplittableRandom(options.seed());
        this.memories = options.memory().toArray(Memory[]::new);
        this.groups = options.groups().toArray(Group[]::new);
        this.drawnOps = options.ops().toArray(BenchOp[]::new);
        this.collectives = Arrays.stream(drawnOps).filter(op -> op.collective() != null).toArray(BenchOp[]::new);
        for (final Group group : groups)
        {
            communicators[group.ordinal()] = switch (group)
            {
                case WORLD -> comm;
                case DUP -> comm.dup();
                case SPLIT -> comm.split(rank % 2, -rank);
            };
        }
        final int bytes = Math.toIntExact(options.maxBytes());
        for (final Memory memory : memories)
        {
            if (memory != Memory.SHARED)
            {
                regions.put(memory, Regions.allocate(memory, bytes, comm));
                continue;
            }
            for (final Group group : groups)
            {
                sharedRegions.put(group, Regions.allocate(memory, bytes, communicators[group.ordinal()]));
            }
        }
        for (final BenchOp op : BenchOp.values())
        {
            final List<String> names = new ArrayList<>();
            names.add(DEFAULT_ALGORITHM);
            if (op.collective() != null)
            {
                names.addAll(AlgorithmRegistry.instance().of(op.collective()).keySet());
            }
            algorithms.put(op, names);
        }
        this.everyone = new long[mine.length * ranks];
        this.maxInFlight = options.nonBlocking() && collectives.length > 0 ?
            (int) Math.min(MAX_IN_FLIGHT, options.maxBytes() / SLOT_ALIGNMENT - 1) : 0;
    }

    public static void main(final String[] args)
    {
        final SoakOptions options;
        try
        {
            options = SoakOptions.parse(args);
        }
        catch (final UsageException ex)
        {
            System.err.println("soak: " + ex.getMessage());
            System.exit(2);
            return;
        }
        final boolean allRight;
        try (Communicator comm = Jccl.connect())
        {
            final SoakRank soak = new SoakRank(comm, options, System.out);
            allRight = soak.run();
            soak.closeGroups();
        }
        System.exit(allRight ? 0 : 1);
    }

    /** Runs until rank 0 says the time is up; true when every result of every rank was right. */
    boolean run()
    {
        final SoakReport report = rank == 0 ? new SoakReport(options, ranks, out) : null;
        if (report != null)
        {
            report.start();
        }
        for (long step = 0; ; step++)
        {
            if (step % CONTROL_EVERY == 0 && !control(report))
            {
                return verdict[1] == 0;
            }
            runStep(step);
        }
    }

    /** Closes the duplicate and the split (the job's communicator is the caller's). */
    void closeGroups()
    {
        for (final Communicator c : communicators)
        {
            if (c != null && c != comm)
            {
                c.close();
            }
        }
    }

    /**
     * One blocking call, a batch or an exchange. (Without non-blocking calls nothing is drawn for the kind of step,
     * so a seed makes the calls it made before batches and exchanges existed.)
     */
    private void runStep(final long step)
    {
        final int draw = options.nonBlocking() ? random.nextInt(STEP_DRAWS) : STEP_DRAWS - 1;
        if (draw < BATCH_DRAWS && maxInFlight > 0)
        {
            runBatch(step, 1 + random.nextInt(maxInFlight));
        }
        else if (draw == BATCH_DRAWS)
        {
            runExchange(step);
        }
        else
        {
            final Call call = drawBlocking(step, 0, options.maxBytes());
            if (call != null)
            {
                call.run();
                check(call);
            }
        }
    }

    /**
     * Non-blocking calls in slots 0 to {@code inFlight} − 1 of the regions, a blocking call in the slot after them
     * while they run, then the wait for them: on even steps {@code await()}, which runs on this thread what the
     * progress thread has not begun, on odd ones a timed await, which leaves them all to the progress thread (by the
     * step, not drawn, so a seed draws the calls it drew before).
     */
    private void runBatch(final long step, final int inFlight)
    {
        final long slotBytes = options.maxBytes() / (inFlight + 1) / SLOT_ALIGNMENT * SLOT_ALIGNMENT;
        final Call[] started = new Call[inFlight];
        for (int slot = 0; slot < inFlight; slot++)
        {
            started[slot] = drawNonBlocking(step, slot, slotBytes);
            started[slot].request = started[slot].call.start(0);
        }
        final Call beside = drawBlocking(step, inFlight, slotBytes);
        if (beside != null)
        {
            beside.run();
            check(beside);
        }
        for (final Call call : started)
        {
            if ((step & 1) == 0)
            {
                call.request.await();
            }
            else if (!call.request.await(TIMED_WAIT_MINUTES, TimeUnit.MINUTES))
            {
                throw new IllegalStateException("step " + step + ": a non-blocking " + call.draw.op().label() +
                    " did not complete in " + TIMED_WAIT_MINUTES + " minutes");
            }
            check(call);
        }
    }

    /**
     * Point-to-point messages under load: every rank of a group sends each other rank one to {@link #MAX_PER_PAIR}
     * messages, of lengths from 0 to its share of the regions and tags among {@link #EXCHANGE_TAGS}, and checks every
     * length and byte it receives. One exchange in {@link #SEND_RECV_EVERY} shifts the messages round the group with
     * blocking {@code sendRecv}s ({@link #exchangeBySendRecv}), one receives them from any source
     * ({@link #exchangeFromAnySource}); the others use isend and irecv ({@link #exchangeNonBlocking}). Lengths, tags
     * and contents follow from the seed, the step and the pair, not from the shared draws, which the two groups of a
     * split must make alike.
     */
    private void runExchange(final long step)
    {
        final int perPair = 1 + random.nextInt(MAX_PER_PAIR);
        final Group group = drawGroup();
        final Communicator on = communicators[group.ordinal()];
        final Memory drawn = drawMemory();
        final boolean mixed = drawMixed(drawn);
        final int mode = random.nextInt(SEND_RECV_EVERY);
        final boolean bySendRecv = mode == 0;
        final boolean fromAnySource = mode == 1;
        final Memory memory = mixed ? memoryOf(drawn, on.rank()) : drawn;
        final int size = on.size();
        final int me = on.rank();
        final int messages = (size - 1) * perPair;
        final long slotBytes = messages == 0 ? 0 : options.maxBytes() / messages / Long.BYTES * Long.BYTES;
        if (slotBytes == 0)
        {
            return;
        }
        final Exchange x = new Exchange(options.seed(), step, group, on, perPair, slotBytes, regionsOf(memory, group));
        final Received[] received = bySendRecv ? exchangeBySendRecv(x) :
            fromAnySource ? exchangeFromAnySource(x, anySourceExchanges[group.ordinal()]++) : exchangeNonBlocking(x);
        long bad = 0;
        for (final Received r : received)
        {
            final long wrongHere = r.got != r.length ? Math.max(r.got, r.length) + 1 :
                wrongBytes(r.region, r.key, r.got);
            if (wrongHere > 0)
            {
                System.err.println(String.format(Locale.ROOT, "WRONG step %d: exchange%s, message %d of %d from " +
                    "rank %d, %d bytes expected, %d received, %s memory%s, %s communicator: %d wrong bytes on rank %d",
                    step, bySendRecv ? " by sendRecv" : fromAnySource ? " from any source" : "", r.index, perPair,
                    r.source, r.length, r.got, memory.label(), mixed ? " (mixed across ranks)" : "", group.label(),
                    wrongHere, me));
            }
            bad += wrongHere;
        }
        wrong += bad;
        ops++;
        tally[SoakReport.TALLY_EXCHANGE]++;
        tally[SoakReport.TALLY_SEND_RECV] += bySendRecv ? 1 : 0;
        tally[SoakReport.TALLY_ANY_SOURCE] += fromAnySource ? 1 : 0;
        tally[SoakReport.TALLY_MEMORY + memory.ordinal()]++;
        tally[SoakReport.TALLY_MIXED] += mixed ? 1 : 0;
        tally[SoakReport.TALLY_GROUP + group.ordinal()]++;
        tally[SoakReport.TALLY_NON_BLOCKING] += bySendRecv ? 0 : 1;
    }

    /**
     * Isends to every peer, and irecvs for theirs posted by tag in reverse (so a message overtakes those of other tags,
     * never one of its own), some before the sends and some after; then the wait for all requests in a shuffled order:
     * by the step, one {@code await()} each in that order, {@code waitAny} or {@code waitSome} until none is left, or
     * {@code testAll} until it says all have completed.
     */
    private Received[] exchangeNonBlocking(final Exchange x)
    {
        final int me = x.on().rank();
        final Request[] requests = new Request[2 * (x.on().size() - 1) * x.perPair()];
        final Received[] received = new Received[requests.length / 2];
        int posted = 0;
        int receives = 0;
        for (int phase = 0; phase < 3; phase++)
        {
            for (int peer = 0; peer < x.on().size(); peer++)
            {
                if (peer == me || phase == 0 && peer > me || phase == 2 && peer < me)
                {
                    continue;
                }
                if (phase == 1)
                {
                    for (int i = 0; i < x.perPair(); i++)
                    {
                        requests[posted++] = x.on().isend(x.outgoing(peer, i), peer, messageTag(x.key(me, peer, i)));
                    }
                    continue;
                }
                for (int tag = EXCHANGE_TAGS - 1; tag >= 0; tag--)
                {
                    for (int i = 0; i < x.perPair(); i++)
                    {
                        if (messageTag(x.key(peer, me, i)) == tag)
                        {
                            final Received r = x.incoming(peer, i);
                            r.request = x.on().irecv(r.buf, peer, tag);
                            requests[posted++] = r.request;
                            received[receives++] = r;
                        }
                    }
                }
            }
        }
        final SplittableRandom order = new SplittableRandom(mix(options.seed() ^ mix(x.step())));
        for (int i = requests.length - 1; i > 0; i--)
        {
            final int j = order.nextInt(i + 1);
            final Request r = requests[i];
            requests[i] = requests[j];
            requests[j] = r;
        }
        switch ((int) (x.step() % 4))
        {
            case 0 ->
            {
                for (final Request request : requests)
                {
                    request.await();
                }
            }
            case 1 ->
            {
                while (x.on().waitAny(requests) >= 0)
                {
                    // each completed request's entry is now null
                }
            }
            case 2 ->
            {
                final int[] indices = new int[requests.length];
                while (x.on().waitSome(indices, requests) >= 0)
                {
                    // the completed requests' entries are now null
                }
            }
            default ->
            {
                while (!x.on().testAll(requests))
                {
                    Thread.onSpinWait();
                }
            }
        }
        for (final Received r : received)
        {
            r.got = r.request.bytes();
        }
        return received;
    }

    /**
     * Isends to every peer, and receives from any source by tag: irecvs posted for the first tag before the sends,
     * blocking receives for the second after them, and for the third a probe from any source, then a receive from the
     * sender it found into a buffer of the length it said. A receive's source tells which message it got: one source's
     * messages of one tag fill the receives that take them in the order these were posted (a blocking one counts as
     * posted when it is called). The tags are of their own, and alternate from one such exchange of the group to the
     * next: a peer that has finished this one may already send the next one's messages, never the one after.
     */
    private Received[] exchangeFromAnySource(final Exchange x, final long count)
    {
        final int me = x.on().rank();
        final int size = x.on().size();
        final int tagBase = EXCHANGE_TAGS * (1 + (int) (count & 1));
        final Received[] slots = new Received[(size - 1) * x.perPair()];
        final ReceiveRequest[] posted = new ReceiveRequest[slots.length];
        final int[] sources = new int[slots.length];
        final long[] got = new long[slots.length];
        final Request[] sends = new Request[slots.length];
        int receives = 0;
        for (int tag = 0; tag < EXCHANGE_TAGS; tag++)
        {
            if (tag == 1)
            {
                int sent = 0;
                for (int peer = 0; peer < size; peer++)
                {
                    for (int i = 0; peer != me && i < x.perPair(); i++)
                    {
                        sends[sent++] = x.on().isend(x.outgoing(peer, i), peer,
                            tagBase + messageTag(x.key(me, peer, i)));
                    }
                }
            }
            for (int peer = 0; peer < size; peer++)
            {
                for (int i = 0; peer != me && i < x.perPair(); i++)
                {
                    if (messageTag(x.key(peer, me, i)) == tag)
                    {
                        // any slot holds any message: each takes one of a message it may get
                        final Received slot = x.incoming(peer, i);
                        slots[receives] = slot;
                        if (tag == 0)
                        {
                            posted[receives] = x.on().irecv(slot.buf, Communicator.ANY_SOURCE, tagBase + tag);
                        }
                        else if (tag == 1)
                        {
                            got[receives] = x.on().recv(slot.buf, Communicator.ANY_SOURCE, tagBase + tag);
                            sources[receives] = x.on().lastSource();
                        }
                        else
                        {
                            // probed first, then received from its sender into a buffer of its length
                            final long length = x.on().probe(Communicator.ANY_SOURCE, tagBase + tag);
                            sources[receives] = x.on().lastSource();
                            got[receives] = x.on().recv(slot.buf.slice(0, Math.min(length, slot.buf.count())),
                                sources[receives], tagBase + tag);
                        }
                        receives++;
                    }
                }
            }
        }
        for (final Request send : sends)
        {
            send.await();
        }
        final int[] nextIndex = new int[size * EXCHANGE_TAGS];
        final Received[] received = new Received[slots.length];
        for (int k = 0; k < receives; k++)
        {
            if (posted[k] != null)
            {
                posted[k].await();
                got[k] = posted[k].bytes();
                sources[k] = posted[k].source();
            }
            final int tag = messageTag(x.key(slots[k].source, me, slots[k].index));
            final int source = sources[k];
            // the source's next message of this tag, in the order it sent them
            int index = nextIndex[source * EXCHANGE_TAGS + tag];
            while (index < x.perPair() && messageTag(x.key(source, me, index)) != tag)
            {
                index++;
            }
            nextIndex[source * EXCHANGE_TAGS + tag] = index + 1;
            final long key = x.key(source, me, index);
            received[k] = new Received(source, index, key, index < x.perPair() ? messageLength(key, x.slotBytes()) :
                -1, slots[k].region, slots[k].buf);
            received[k].got = got[k];
        }
        return received;
    }

    /**
     * The messages shifted round the group with blocking sendRecvs: in round k every rank sends to the rank k after it
     * and receives from the rank k before it, message by message, as its peers do.
     */
    private Received[] exchangeBySendRecv(final Exchange x)
    {
        final int size = x.on().size();
        final int me = x.on().rank();
        final Received[] received = new Received[(size - 1) * x.perPair()];
        int receives = 0;
        for (int k = 1; k < size; k++)
        {
            final int dest = (me + k) % size;
            final int source = (me - k + size) % size;
            for (int i = 0; i < x.perPair(); i++)
            {
                final Buf out = x.outgoing(dest, i);
                final Received r = x.incoming(source, i);
                r.got = x.on().sendRecv(out, dest, messageTag(x.key(me, dest, i)), r.buf, source,
                    messageTag(r.key));
                received[receives++] = r;
            }
        }
        return received;
    }

    /** Names message {@code index} from {@code source} to {@code dest} of an exchange: its length, tag and bytes. */
    private static long messageKey(final long seed, final long step, final Group group, final int source,
        final int dest, final int index)
    {
        return mix(seed + mix(step + mix(group.ordinal() + mix(source + mix(dest + mix(index))))));
    }

    private static int messageTag(final long key)
    {
        return (int) ((key >>> 48) % EXCHANGE_TAGS);
    }

    /** Log-uniform from 0 to {@code most} bytes; 0 in one message of 16. */
    private static long messageLength(final long key, final long most)
    {
        if ((key & 15) == 0)
        {
            return 0;
        }
        final double u = ((key >>> 4) & 0xFFFFF) / (double) (1 << 20);
        return Math.min(most, (long) Math.pow(2, u * (Math.log(most + 1) / Math.log(2))));
    }

    /** Byte {@code at} of a message is byte {@code at % 8} (little-endian) of {@code mix(key + at / 8)}. */
    private static void fillMessage(final MutableDirectBuffer buffer, final long key, final long length)
    {
        final int words = (int) (length >>> 3);
        for (int w = 0; w < words; w++)
        {
            buffer.putLong(w << 3, mix(key + w), ByteOrder.LITTLE_ENDIAN);
        }
        for (int at = words << 3; at < length; at++)
        {
            buffer.putByte(at, messageByte(key, at));
        }
    }

    private static void poisonMessage(final MutableDirectBuffer buffer, final long bytes)
    {
        buffer.setMemory(0, (int) bytes, (byte) 0x5A);
    }

    private static long wrongBytes(final MutableDirectBuffer buffer, final long key, final long length)
    {
        long wrong = 0;
        final int words = (int) (length >>> 3);
        for (int w = 0; w < words; w++)
        {
            final long diff = buffer.getLong(w << 3, ByteOrder.LITTLE_ENDIAN) ^ mix(key + w);
            for (long d = diff; d != 0; d >>>= 8)
            {
                wrong += (d & 0xFF) != 0 ? 1 : 0;
            }
        }
        for (int at = words << 3; at < length; at++)
        {
            wrong += buffer.getByte(at) != messageByte(key, at) ? 1 : 0;
        }
        return wrong;
    }

    private static byte messageByte(final long key, final int at)
    {
        return (byte) (mix(key + (at >>> 3)) >>> ((at & 7) << 3));
    }

    /** One step of SplitMix64: the golden increment, then {@link SeededData#mix}, its finaliser. */
    private static long mix(final long x)
    {
        return SeededData.mix(x + 0x9E3779B97F4A7C15L);
    }

    /**
     * A blocking call in {@code slot}, ready to run; null when its forced algorithm cannot serve it on some rank
     * (skipped). (The draws that have one choice draw nothing, so that a seed with one memory, the job's communicator
     * alone and out-of-place calls only makes the calls it made before those choices existed.)
     */
    private Call drawBlocking(final long step, final int slot, final long slotBytes)
    {
        final BenchOp op = drawnOps[random.nextInt(drawnOps.length)];
        final DataType type = DataType.values()[random.nextInt(DataType.values().length)];
        final ReduceOp reduceOp = REDUCE_OPS[random.nextInt(REDUCE_OPS.length)];
        final List<String> names = algorithms.get(op);
        final String algorithm = names.get(random.nextInt(names.size()));
        final Draw draw = drawTheRest(op, type, reduceOp, algorithm, slotBytes);
        final Communicator on = communicators[draw.group().ordinal()];
        final Communicator view = DEFAULT_ALGORITHM.equals(algorithm) ? on :
            views.computeIfAbsent(draw.group().label() + ":" + op.collective().label() + ":" + algorithm, k ->
                on.withAlgorithm(op.collective().label() + ":" + algorithm));
        final Call call = prepare(step, slot, slotBytes, view, draw);
        if (refusedAnywhere(view != on, op, view, call.call, draw.count() * type.size()))
        {
            skipped++;
            return null;
        }
        return call;
    }

    /** A non-blocking collective in {@code slot}, ready to start: jccl chooses its algorithm. */
    private Call drawNonBlocking(final long step, final int slot, final long slotBytes)
    {
        final BenchOp op = collectives[random.nextInt(collectives.length)];
        final DataType type = DataType.values()[random.nextInt(DataType.values().length)];
        final ReduceOp reduceOp = REDUCE_OPS[random.nextInt(REDUCE_OPS.length)];
        final Draw draw = drawTheRest(op, type, reduceOp, "non-blocking", slotBytes);
        return prepare(step, slot, slotBytes, communicators[draw.group().ordinal()], draw);
    }

    /** The root, the communicator, the count, the memory, whether in place and whether mixed, in that order. */
    private Draw drawTheRest(final BenchOp op, final DataType type, final ReduceOp reduceOp, final String algorithm,
        final long slotBytes)
    {
        final int anyRoot = random.nextInt(ranks);
        final Group group = drawGroup();
        final Communicator on = communicators[group.ordinal()];
        final long count = count(op, type, slotBytes, on.size());
        final Memory drawn = drawMemory();
        final boolean inPlace = options.inPlace() && BenchCall.hasInPlace(op) && random.nextInt(IN_PLACE_EVERY) == 0;
        final boolean mixed = drawMixed(drawn);
        return new Draw(op, type, reduceOp, algorithm, anyRoot % on.size(), count, group,
            mixed ? memoryOf(drawn, on.rank()) : drawn, mixed, inPlace);
    }

    private Memory drawMemory()
    {
        return memories.length == 1 ? memories[0] : memories[random.nextInt(memories.length)];
    }

    /** Whether the ranks mix direct and heap memory (drawn only when both are on and {@code drawn} is one of them). */
    private boolean drawMixed(final Memory drawn)
    {
        return drawn != Memory.SHARED && regions.containsKey(Memory.DIRECT) && regions.containsKey(Memory.HEAP) &&
            random.nextInt(MIXED_EVERY) == 0;
    }

    /** In a mixed call, the even ranks' memory is the one drawn and the odd ranks' the other. */
    private static Memory memoryOf(final Memory drawn, final int rankInGroup)
    {
        return rankInGroup % 2 == 0 ? drawn : drawn == Memory.DIRECT ? Memory.HEAP : Memory.DIRECT;
    }

    private Group drawGroup()
    {
        return groups.length == 1 ? groups[0] : groups[random.nextInt(groups.length)];
    }

    /** {@code memory}'s regions for calls on {@code group}: shared ones from the group's own segment. */
    private Regions regionsOf(final Memory memory, final Group group)
    {
        return memory == Memory.SHARED ? sharedRegions.get(group) : regions.get(memory);
    }

    /** The call on its slot of its memory's regions, its inputs filled and its outputs poisoned. */
    private Call prepare(final long step, final int slot, final long slotBytes, final Communicator view,
        final Draw d)
    {
        final BenchCall.Regions slotRegions = regionsOf(d.memory(), d.group()).slot(d.type(), slot * slotBytes,
            slotBytes);
        final BenchCall call = BenchCall.create(d.op(), view, slotRegions, d.count(), 1, 0, d.root(), d.reduceOp());
        if (d.inPlace())
        {
            call.inPlace();
        }
        // the blocking call of a step without a batch keeps the seed it had before batches existed
        final SeededData data = new SeededData(d.type(), d.reduceOp(), d.op().reducing() &&
            d.reduceOp() == ReduceOp.PROD, view.size(), options.seed() + step + ((long) slot << 40));
        data.fill(slotRegions.sendRegion(), view.rank(),
            d.op().sendBytes(d.count() * d.type().size(), view.size()) / d.type().size());
        call.prepareCheck(data, slotRegions);
        return new Call(step, d, call, data, slotRegions, view.size());
    }

    /** Counts the call and checks its result. */
    private void check(final Call c)
    {
        if (!c.runs())
        {
            return;
        }
        final Draw d = c.draw;
        final long bad = c.call.wrong(c.data, c.regions);
        ops++;
        tally[d.op().ordinal()]++;
        tally[SoakReport.TALLY_MEMORY + d.memory().ordinal()]++;
        tally[SoakReport.TALLY_GROUP + d.group().ordinal()]++;
        tally[SoakReport.TALLY_MIXED] += d.mixed() ? 1 : 0;
        tally[SoakReport.TALLY_IN_PLACE] += d.inPlace() ? 1 : 0;
        tally[SoakReport.TALLY_NON_BLOCKING] += c.request != null ? 1 : 0;
        if (bad > 0)
        {
            wrong += bad;
            System.err.println(String.format(Locale.ROOT, "WRONG step %d: %s%s %s %s %s, %d elements, root %d, %s " +
                "memory%s, %s communicator: %d wrong elements on rank %d", c.step, d.op().label(),
                d.inPlace() ? " in place" : "", d.algorithm(), d.type().label(), d.reduceOp().label(), d.count(),
                d.root(), d.memory().label(), d.mixed() ? " (mixed across ranks)" : "", d.group().label(), bad,
                rank));
        }
    }

    /**
     * Elements of the whole vector: log-uniform from 1 to what {@code maxBytes} holds, whole blocks of
     * {@code ranks} ranks for blocked ops.
     */
    private long count(final BenchOp op, final DataType type, final long maxBytes, final int ranks)
    {
        final long maxElements = maxBytes / type.size();
        final double exponent = random.nextDouble() * (Math.log(maxElements) / Math.log(2));
        long count = Math.max(1, (long) Math.pow(2, exponent));
        count += random.nextLong(count);
        count = Math.min(count, maxElements);
        if (op.blocked())
        {
            count = Math.max(1, count / ranks) * ranks;
            while (count > maxElements)
            {
                count -= ranks;
            }
        }
        return count;
    }

    /**
     * True when a forced algorithm cannot serve the call on some rank: every rank then skips it (those of both groups
     * of the split, which keeps every rank on the same draws).
     */
    private boolean refusedAnywhere(final boolean forced, final BenchOp op, final Communicator view,
        final BenchCall call, final long bytes)
    {
        long refused = 0;
        if (forced && view instanceof ShmCommunicator shm && op.collective() != null)
        {
            try
            {
                shm.algorithmFor(call.describe(probe), bytes);
            }
            catch (final IllegalArgumentException | IllegalStateException ex)
            {
                refused = 1;
            }
        }
        flag[0] = refused;
        comm.allreduce(Buf.of(flag), ReduceOp.MAX);
        return flag[0] > 0;
    }

    /** Counts and memory to rank 0; rank 0's verdict back. Returns false when the soak is over. */
    private boolean control(final SoakReport report)
    {
        mine[0] = ops;
        mine[1] = wrong;
        mine[2] = skipped;
        residentKiB(mine, 3);
        comm.gather(Buf.of(mine), Buf.of(everyone), 0);
        if (report != null)
        {
            final boolean over = report.update(everyone, tally);
            verdict[0] = over ? 1 : 0;
            verdict[1] = report.totalWrong();
        }
        comm.broadcast(Buf.of(verdict), 0);
        return verdict[0] == 0;
    }

    /**
     * Resident memory of this process from /proc/self/status, KiB, into {@code into[at..at+2]}: all of it (VmRSS),
     * anonymous (heap, native allocations, code), shared (the job segment's pages this rank has touched); -1 when
     * /proc cannot say.
     */
    static void residentKiB(final long[] into, final int at)
    {
        into[at] = -1;
        into[at + 1] = -1;
        into[at + 2] = -1;
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                final int field = line.startsWith("VmRSS:") ? 0 : line.startsWith("RssAnon:") ? 1 :
                    line.startsWith("RssShmem:") ? 2 : -1;
                if (field >= 0)
                {
                    final String value = line.substring(line.indexOf(':') + 1).trim();
                    into[at + field] = Long.parseLong(value.substring(0, value.indexOf(' ')));
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // reported as unknown
        }
    }

    /**
     * What a call drew, alike on every rank of the job (the root and count for its communicator) but for the memory
     * of a {@code mixed} call, which is this rank's.
     */
    private record Draw(BenchOp op, DataType type, ReduceOp reduceOp, String algorithm, int root, long count,
        Group group, Memory memory, boolean mixed, boolean inPlace)
    {
    }

    /** One call of a step and what checking it needs; {@code request} is set once a non-blocking call started. */
    private static final class Call
    {
        final long step;
        final Draw draw;
        final BenchCall call;
        final SeededData data;
        final BenchCall.Regions regions;
        final int groupSize;
        CollectiveRequest request;

        Call(final long step, final Draw draw, final BenchCall call, final SeededData data,
            final BenchCall.Regions regions, final int groupSize)
        {
            this.step = step;
            this.draw = draw;
            this.call = call;
            this.data = data;
            this.regions = regions;
            this.groupSize = groupSize;
        }

        /** False for a ping-pong in a group of one rank, which has nobody to play with. */
        boolean runs()
        {
            return draw.op() != BenchOp.PINGPONG || groupSize > 1;
        }

        void run()
        {
            if (runs())
            {
                call.run(0);
            }
        }
    }

    /** One exchange: its messages' slots in the regions and their keys. */
    private record Exchange(long seed, long step, Group group, Communicator on, int perPair, long slotBytes,
        Regions regions)
    {
        /** Names message {@code index} from {@code source} to {@code dest}: its length, tag and bytes. */
        long key(final int source, final int dest, final int index)
        {
            return messageKey(seed, step, group, source, dest, index);
        }

        /** Message {@code index} to {@code dest}, written into its slot of the send region. */
        Buf outgoing(final int dest, final int index)
        {
            final long key = key(on.rank(), dest, index);
            final BenchCall.Regions slot = slot(dest, index);
            final long length = messageLength(key, slotBytes);
            fillMessage(slot.sendRegion(), key, length);
            return slot.sendBuf().slice(0, length);
        }

        /** The receive of message {@code index} from {@code source}, its slot of the receive region poisoned. */
        Received incoming(final int source, final int index)
        {
            final long key = key(source, on.rank(), index);
            final BenchCall.Regions slot = slot(source, index);
            poisonMessage(slot.recvRegion(), slotBytes);
            return new Received(source, index, key, messageLength(key, slotBytes), slot.recvRegion(), slot.recvBuf());
        }

        /** The slots of the messages to and from {@code peer}: the peers in rank order, this rank left out. */
        private BenchCall.Regions slot(final int peer, final int index)
        {
            final int peerSlot = peer < on.rank() ? peer : peer - 1;
            return regions.slot(DataType.INT8, (peerSlot * perPair + index) * slotBytes, slotBytes);
        }
    }

    /** A receive of an exchange, the message it must get and, once done, the bytes it got. */
    private static final class Received
    {
        final int source;
        final int index;
        final long key;
        final long length;
        final MutableDirectBuffer region;
        final Buf buf;
        Request request;
        long got;

        Received(final int source, final int index, final long key, final long length,
            final MutableDirectBuffer region, final Buf buf)
        {
            this.source = source;
            this.index = index;
            this.key = key;
            this.length = length;
            this.region = region;
            this.buf = buf;
        }
    }

    /** One kind of memory's send and receive regions: raw bytes (to fill and check) and a buffer of every type. */
    private record Regions(MutableDirectBuffer send, MutableDirectBuffer recv, Map<DataType, Buf> sendBufs,
        Map<DataType, Buf> recvBufs)
    {
        static Regions allocate(final Memory memory, final int bytes, final Communicator comm)
        {
            final Map<DataType, Buf> sendBufs = new EnumMap<>(DataType.class);
            final Map<DataType, Buf> recvBufs = new EnumMap<>(DataType.class);
            switch (memory)
            {
                case DIRECT, HEAP ->
                {
                    final ByteBuffer send = memory == Memory.DIRECT ? ByteBuffer.allocateDirect(bytes) :
                        ByteBuffer.wrap(new byte[bytes]);
                    final ByteBuffer recv = memory == Memory.DIRECT ? ByteBuffer.allocateDirect(bytes) :
                        ByteBuffer.wrap(new byte[bytes]);
                    send.order(ByteOrder.nativeOrder());
                    recv.order(ByteOrder.nativeOrder());
                    for (final DataType type : DataType.values())
                    {
                        sendBufs.put(type, Buf.of(send, type));
                        recvBufs.put(type, Buf.of(recv, type));
                    }
                    return new Regions(new UnsafeBuffer(send), new UnsafeBuffer(recv), sendBufs, recvBufs);
                }
                default ->
                {
                    final Buf send = comm.allocateShared(bytes, DataType.INT8);
                    final Buf recv = comm.allocateShared(bytes, DataType.INT8);
                    for (final DataType type : DataType.values())
                    {
                        sendBufs.put(type, send.as(type));
                        recvBufs.put(type, recv.as(type));
                    }
                    return new Regions(new UnsafeBuffer(send.offset(), bytes), new UnsafeBuffer(recv.offset(), bytes),
                        sendBufs, recvBufs);
                }
            }
        }

        /** {@code bytes} from byte {@code from} of both regions, as elements of {@code type}. */
        BenchCall.Regions slot(final DataType type, final long from, final long bytes)
        {
            final int size = type.size();
            return new BenchCall.Regions(new UnsafeBuffer(send, (int) from, (int) bytes),
                new UnsafeBuffer(recv, (int) from, (int) bytes), sendBufs.get(type).slice(from / size, bytes / size),
                recvBufs.get(type).slice(from / size, bytes / size));
        }
    }
}
