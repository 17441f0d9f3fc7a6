package org.dthreads.monitor.internal.rewriter;

import java.nio.charset.StandardCharsets;

/**
 * What in a class file's constant pool sends the class to the full rewriter (see {@link ClassScan}): the words
 * ({@link #REWRITER_WORDS}), any of which makes the scan resolve the references, and the member references the
 * rewriter acts on ({@link #TARGETS}), with the look-up tables that keep most strings to one array read. The
 * matchers read a {@link ClassScan}'s bytes and constant offsets; they are static, as the scan's own walk is
 * (it runs interpreted during start-up: no more calls than before).
 *
 * <p>Immutable: every table is built in the static initializer and never written again.
 */
final class RewriterReferences {
    private RewriterReferences() {
    }

    /** Constant-pool strings any of which sends a class to the full rewriter (see {@link ClassScan}). */
    static final String[] REWRITER_WORDS = {
        "wait", "notify", "notifyAll", "holdsLock", "interrupt", "isInterrupted", "interrupted", // MonitorMethods
        "findVirtual", "findStatic", "findSpecial", "unreflect", "unreflectSpecial", "bind", "invoke", // ReflectiveCalls
        "getClassLoadingLock", "blockingLock", "lock", "globalHierarchyLock", "java/io/Reader", "java/io/Writer",
        "java/awt/event/InvocationEvent", // NativeMarkVisitor
        MonitorRewriter.REWRITTEN_DESCRIPTOR, // already rewritten: the rewriter says so
    };
    private static final byte[][] WORDS = encode(REWRITER_WORDS);
    /** Per length: whether a {@link #REWRITER_WORDS} entry has it (the scan's per-length filter reads it too). */
    static final boolean[] WORD_LENGTHS = lengths(WORDS);
    /** {@link #WORDS} by length (null where none has it): a string is compared only with the words of its length. */
    private static final byte[][][] WORDS_BY_LENGTH = byLength(WORDS);
    private static final byte[] INIT = "<init>".getBytes(StandardCharsets.UTF_8);
    /** Per {@code length << 7 | first byte} (ASCII): whether a {@link #REWRITER_WORDS} entry has that length and first byte. */
    static final boolean[] WORD_STARTS = wordStarts();

    /**
     * A member reference of the constant pool the rewriter acts on: owner (null: any), name, descriptor (null: any).
     * The same cases as {@link MonitorMethods}, {@link ReflectiveCalls} and {@link NativeMarkVisitor}; method
     * handles and bootstrap arguments point at these references too.
     */
    private record Target(boolean field, byte[] owner, byte[] name, byte[] descriptor) {
        static Target method(String owner, String name, String descriptor) {
            return new Target(false, utf8(owner), utf8(name), utf8(descriptor));
        }

        private static byte[] utf8(String s) {
            return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
        }
    }

    private static final String LOOKUP = "java/lang/invoke/MethodHandles$Lookup";
    private static final Target[] TARGETS = {
        Target.method(null, "wait", "()V"), Target.method(null, "wait", "(J)V"), Target.method(null, "wait", "(JI)V"),
        Target.method(null, "notify", "()V"), Target.method(null, "notifyAll", "()V"),
        Target.method(null, "holdsLock", "(Ljava/lang/Object;)Z"), Target.method(null, "interrupt", "()V"),
        Target.method(null, "isInterrupted", "()Z"), Target.method(null, "interrupted", "()Z"),
        Target.method(LOOKUP, "findVirtual", null), Target.method(LOOKUP, "findStatic", null),
        Target.method(LOOKUP, "findSpecial", null), Target.method(LOOKUP, "unreflect", null),
        Target.method(LOOKUP, "unreflectSpecial", null), Target.method(LOOKUP, "bind", null),
        Target.method("java/lang/reflect/Method", "invoke", null),
        Target.method(null, "getClassLoadingLock", "(Ljava/lang/String;)Ljava/lang/Object;"),
        Target.method(null, "blockingLock", "()Ljava/lang/Object;"),
        Target.method("java/io/Reader", "<init>", "(Ljava/lang/Object;)V"),
        Target.method("java/io/Writer", "<init>", "(Ljava/lang/Object;)V"),
        Target.method("java/awt/event/InvocationEvent", "<init>", null),
        new Target(true, null, Target.utf8("lock"), Target.utf8("Ljava/lang/Object;")),
        new Target(true, null, Target.utf8("globalHierarchyLock"), null),
    };
    /** Strings that need the rewriter wherever they are: an override of getClassLoadingLock, the marker. */
    private static final byte[][][] ALONE_BY_LENGTH =
            byLength(encode(new String[] {"getClassLoadingLock", MonitorRewriter.REWRITTEN_DESCRIPTOR}));

    /** Asked only when a {@link #REWRITER_WORDS} string is present: is it part of something the rewriter changes? */
    static boolean referencesRewriterTarget(ClassScan scan) {
        for (int i = 1; i < scan.constantOffsets.length; i++) {
            int p = scan.constantOffsets[i];
            int tag = scan.bytes[p];
            if (tag == 1) {
                int length = scan.u2(p + 1);
                if (length < ALONE_BY_LENGTH.length && ALONE_BY_LENGTH[length] != null && isOneOf(scan, p + 3, length,
                        ALONE_BY_LENGTH[length])) {
                    return true;
                }
            } else if ((tag == 9 || tag == 10 || tag == 11) && isTargetReference(scan, i)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the member reference (field, method or interface method) at {@code index} is one of {@link #TARGETS}. */
    static boolean isTargetReference(ClassScan scan, int index) {
        int[] offsets = scan.constantOffsets;
        int p = offsets[index];
        boolean field = scan.bytes[p] == 9;
        int owner = offsets[scan.u2(offsets[scan.u2(p + 1)] + 1)];
        int nameAndType = offsets[scan.u2(p + 3)];
        int name = offsets[scan.u2(nameAndType + 1)];
        if (!isWord(scan, name + 3, scan.u2(name + 1))
                && !(utf8Is(scan, name, INIT) && isWord(scan, owner + 3, scan.u2(owner + 1)))) {
            return false; // most references: a length look-up or two (every target's name or owner is a word)
        }
        int descriptor = offsets[scan.u2(nameAndType + 3)];
        for (Target t : TARGETS) {
            if (t.field() == field && utf8Is(scan, name, t.name()) && (t.owner() == null || utf8Is(scan, owner, t.owner()))
                    && (t.descriptor() == null || utf8Is(scan, descriptor, t.descriptor()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean utf8Is(ClassScan scan, int offset, byte[] value) {
        return scan.equalsAt(offset + 3, scan.u2(offset + 1), value);
    }

    static boolean isWord(ClassScan scan, int offset, int length) {
        if (length >= WORD_LENGTHS.length || !WORD_LENGTHS[length]) {
            return false; // most strings: one look-up
        }
        return isOneOf(scan, offset, length, WORDS_BY_LENGTH[length]);
    }

    /** Whether the {@code length} bytes at {@code offset} equal one of {@code words}, all of that length. */
    private static boolean isOneOf(ClassScan scan, int offset, int length, byte[][] words) {
        byte first = scan.bytes[offset];
        for (byte[] word : words) {
            if (word[0] == first && scan.equalsAt(offset, length, word)) { // most differ in the first byte: no call
                return true;
            }
        }
        return false;
    }

    private static boolean[] lengths(byte[][] words) {
        int longest = 0;
        for (byte[] w : words) {
            longest = Math.max(longest, w.length);
        }
        boolean[] lengths = new boolean[longest + 1];
        for (byte[] w : words) {
            lengths[w.length] = true;
        }
        return lengths;
    }

    private static byte[][][] byLength(byte[][] words) {
        int longest = 0;
        for (byte[] w : words) {
            longest = Math.max(longest, w.length);
        }
        byte[][][] byLength = new byte[longest + 1][][];
        for (byte[] w : words) {
            byte[][] same = byLength[w.length] == null ? new byte[0][] : byLength[w.length];
            same = java.util.Arrays.copyOf(same, same.length + 1);
            same[same.length - 1] = w;
            byLength[w.length] = same;
        }
        return byLength;
    }

    private static boolean[] wordStarts() {
        boolean[] starts = new boolean[WORD_LENGTHS.length << 7];
        for (byte[] w : WORDS) {
            starts[w.length << 7 | w[0]] = true; // every word is ASCII
        }
        return starts;
    }

    private static byte[][] encode(String[] words) {
        byte[][] encoded = new byte[words.length][];
        for (int i = 0; i < words.length; i++) {
            encoded[i] = words[i].getBytes(StandardCharsets.UTF_8);
        }
        return encoded;
    }
}
