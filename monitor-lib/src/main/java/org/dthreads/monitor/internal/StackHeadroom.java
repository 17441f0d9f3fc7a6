package org.dthreads.monitor.internal;

/**
 * Fails with {@link StackOverflowError} before an operation that must not be cut off half-way, rather than
 * inside it: {@link #ensure} consumes a bounded amount of stack below its caller and returns, so every call
 * path that uses less than that below the same frame then runs without overflowing.
 *
 * <h2>Why</h2>
 * The emulated {@code wait} releases the monitor and must take it back before it returns, whatever happens
 * in between. HotSpot checks the stack on every method entry against a shadow zone (tens of KiB) below the
 * new frame, so where one call overflowed every call at about that depth fails too: a wait whose park
 * overflowed would run its re-acquire (a few calls deeper) into the same wall and return without the
 * monitor. Only call-free bytecode is safe there, and a compare-and-set of the owner is a call. So the
 * wait probes first, while it still holds the monitor and has changed nothing: if the stack is too short
 * it fails there, exactly where {@code Object.wait} itself would fail.
 *
 * <h2>How much</h2>
 * {@link #FRAMES} frames, each keeping {@link #LIVE_LONGS} long values live across its call so that a
 * compiled frame spills them (no callee-saved registers in HotSpot's Java calling convention) and is at
 * least {@code 8 * LIVE_LONGS} bytes; an interpreted one is about twice that. The wait's path below the
 * caller (release, park, leave the wait set, re-acquire with its entrant queue and the lost-exit backstop)
 * is about 25 interpreted frames of at most a few hundred bytes; {@code FRAMES * LIVE_LONGS * 8} = 16 KiB is
 * several times that. Native code (park, unpark) runs in the shadow zone that every Java call has already
 * checked. Cost: about 1.1 µs per wait on this machine (a loop of 2,000,000 ensure() calls, compiled), a few
 * per cent of a park/unpark round trip; paid by waits only.
 */
final class StackHeadroom {
    static final int FRAMES = 64;
    static final int LIVE_LONGS = 32;

    /**
     * Read before each recursive call and used after it. The callee is a call the compiler must assume may
     * write them, so it can neither sink the loads past the call nor repeat them after it: every value is
     * spilled. Never written (all zero).
     */
    private static final long[] WORDS = new long[LIVE_LONGS];
    /** Written so that the probe's result is used and the recursion cannot be optimized away. */
    static long sink;

    private StackHeadroom() {}

    /** Returns if the stack below the caller has room for the wait's path; else throws StackOverflowError. */
    static void ensure() {
        sink = probe(FRAMES);
    }

    private static long probe(int frames) {
        if (frames == 0) {
            return 0L;
        }
        long[] w = WORDS;
        long w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7];
        long w8 = w[8], w9 = w[9], w10 = w[10], w11 = w[11], w12 = w[12], w13 = w[13], w14 = w[14], w15 = w[15];
        long w16 = w[16], w17 = w[17], w18 = w[18], w19 = w[19], w20 = w[20], w21 = w[21], w22 = w[22], w23 = w[23];
        long w24 = w[24], w25 = w[25], w26 = w[26], w27 = w[27], w28 = w[28], w29 = w[29], w30 = w[30], w31 = w[31];
        long deeper = probe(frames - 1);
        // each value is combined with the callee's result, so none can be folded in before the call
        return (deeper + w0) ^ (deeper + w1) ^ (deeper + w2) ^ (deeper + w3) ^ (deeper + w4) ^ (deeper + w5)
                ^ (deeper + w6) ^ (deeper + w7) ^ (deeper + w8) ^ (deeper + w9) ^ (deeper + w10)
                ^ (deeper + w11) ^ (deeper + w12) ^ (deeper + w13) ^ (deeper + w14) ^ (deeper + w15)
                ^ (deeper + w16) ^ (deeper + w17) ^ (deeper + w18) ^ (deeper + w19) ^ (deeper + w20)
                ^ (deeper + w21) ^ (deeper + w22) ^ (deeper + w23) ^ (deeper + w24) ^ (deeper + w25)
                ^ (deeper + w26) ^ (deeper + w27) ^ (deeper + w28) ^ (deeper + w29) ^ (deeper + w30)
                ^ (deeper + w31);
    }
}
