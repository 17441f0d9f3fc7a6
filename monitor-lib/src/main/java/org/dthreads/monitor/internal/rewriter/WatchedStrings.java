package org.dthreads.monitor.internal.rewriter;

/**
 * The strings other transformers ask a {@link ClassScan} about ({@link ClassScan#hasConstant}), noted in the scan's
 * one pass over the constant pool instead of a walk of its own per question (issue 16).
 *
 * <h2>What guards what</h2>
 * A set is immutable once published: {@link #current} (volatile) is replaced whole by {@link #watch}, under this
 * class's lock (writers only). Each scan reads {@link #current} once and answers for the set it read; a string
 * watched after that is answered by walking the pool. The arrays given to {@link #watch} are kept, not copied.
 */
final class WatchedStrings {
    /** The strings watched now; replaced whole when one is added. */
    static volatile WatchedStrings current = new WatchedStrings(new byte[0][], new boolean[0]);

    /** {@link ClassScan#watch}. */
    static synchronized void watch(byte[] utf8) {
        WatchedStrings now = current;
        if (now.indexOf(utf8) >= 0) {
            return;
        }
        if (now.strings.length == Long.SIZE) {
            throw new IllegalStateException("ClassScan watches at most " + Long.SIZE + " strings");
        }
        byte[][] strings = java.util.Arrays.copyOf(now.strings, now.strings.length + 1);
        strings[now.strings.length] = utf8; // kept as given (not to be changed): hasConstant(sameArray) needs no compare
        boolean[] lengths = java.util.Arrays.copyOf(now.lengths, Math.max(now.lengths.length, utf8.length + 1));
        lengths[utf8.length] = true;
        current = new WatchedStrings(strings, lengths);
    }

    /** The strings (modified UTF-8), in the order of their bits in a scan's answer; and per length, whether one has it. */
    final byte[][] strings;
    final boolean[] lengths;

    private WatchedStrings(byte[][] strings, boolean[] lengths) {
        this.strings = strings;
        this.lengths = lengths;
    }

    int indexOf(byte[] utf8) {
        for (int i = 0; i < strings.length; i++) {
            if (strings[i] == utf8 || java.util.Arrays.equals(strings[i], utf8)) {
                return i;
            }
        }
        return -1;
    }

    /** The bits of the watched strings equal to the {@code length} bytes at {@code offset} of the scan's class. */
    long find(ClassScan scan, int offset, int length) {
        long bits = 0;
        for (int i = 0; i < strings.length; i++) {
            if (scan.equalsAt(offset, length, strings[i])) {
                bits |= 1L << i;
            }
        }
        return bits;
    }
}
