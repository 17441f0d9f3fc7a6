package org.dthreads.monitor.internal.rewriter;

import java.nio.charset.StandardCharsets;

/**
 * One pass over a class file's bytes, without ASM, answering what the agent's transformers ask of every
 * class before deciding whether to parse it: does it need the monitor rewriter at all ({@link #needsRewriter()}),
 * its access flags, super class and interfaces (the RMI retrofit), and whether its constant pool holds a
 * given string (the IIOP servant patch's {@code _invoke} descriptor).
 *
 * <p>A class needs the rewriter when it has a {@code synchronized} method, a {@code monitorenter} or
 * {@code monitorexit} instruction (found by walking each method's instructions), or a constant-pool reference
 * to something the rewriter acts on ({@link RewriterReferences}: the monitor methods, the reflective and method-handle
 * look-ups, the JDK API whose lock objects it marks native; and the marker itself). Every symbolic reference
 * of a class file is in its constant pool (method handles and bootstrap arguments point at the same member
 * references), so a class with none of these has nothing to rewrite; the references are only resolved when
 * one of their names ({@link RewriterReferences#REWRITER_WORDS}) is present at all. Such a class gets only the marker
 * ({@link MarkerOnly}). Anything unexpected (an unknown constant or opcode, a truncated file) answers "needs the rewriter", which then decides as before.
 *
 * <p>The transformers of one class run one after the other on the loading thread, each given the previous
 * one's output (the same array when it changed nothing, a copy for retransform-capable ones): {@link #of}
 * keeps the last scan per thread and reuses it for the same bytes, so they share one pass. The strings other
 * transformers ask about are noted in that same pass ({@link #watch}).
 *
 * <p>Immutable once built. Shared state: the per-thread cache, and the watched strings ({@link WatchedStrings}: an
 * immutable set published through a volatile field; each scan reads it once and answers for the set it read).
 */
public final class ClassScan {

    private static final byte[] CODE = "Code".getBytes(StandardCharsets.UTF_8);
    private static final byte[] ANNOTATIONS = "RuntimeVisibleAnnotations".getBytes(StandardCharsets.UTF_8);
    /**
     * Per Utf8 length, what a string of that length may be: {@link #WORD} a {@link RewriterReferences#REWRITER_WORDS} entry, {@link #CODE_NAME}
     * {@code Code}, {@link #ANNOTATIONS_NAME} {@code RuntimeVisibleAnnotations}. Most strings have none of these lengths: one
     * look-up each instead of three calls (the scan runs interpreted during start-up).
     */
    private static final byte[] LENGTH_KINDS = lengthKinds();
    private static final int WORD = 1;
    private static final int CODE_NAME = 2;
    private static final int ANNOTATIONS_NAME = 4;
    private static final int ACC_SYNCHRONIZED = 0x0020;

    private static final ThreadLocal<ClassScan> LAST = new ThreadLocal<>();

    static {
        try { // its watched strings, initialized with it as when they were its own field
            java.lang.invoke.MethodHandles.lookup().ensureInitialized(WatchedStrings.class);
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The bytes scanned; {@code key}: the array this scan answers for (the marked copy, for a {@link #markedAs} view). */
    final byte[] bytes;
    private final byte[] key;
    /** Offsets into {@link #bytes}: end of the constant pool, and the class's {@code attributes_count}. */
    final int constantPoolEnd;
    final int classAttributesOffset;
    /** Constant-pool count; index of the Utf8 {@code RuntimeVisibleAnnotations} (0 if none). */
    final int constantPoolCount;
    final int annotationsNameIndex;
    /** Offset of the class's {@code methods_count}; constant index of the Utf8 {@code Code} (0 if none). */
    final int methodsOffset;
    final int codeNameIndex;
    final int[] constantOffsets; // per constant index: offset of its tag byte (0 for a long's second slot)
    private final int access;
    private final boolean needsRewriter;
    /** The watched strings when this scan was made, and which of them its constant pool holds (bit i: string i). */
    private final WatchedStrings watching;
    private final long watchedFound;

    private ClassScan(byte[] bytes) {
        this.bytes = bytes;
        this.key = bytes;
        if (u4(0) != 0xCAFEBABE) {
            throw new IllegalArgumentException("not a class file");
        }
        int count = u2(8);
        int[] offsets = new int[count];
        boolean words = false;
        int codeIndex = 0;
        int annotationsIndex = 0;
        WatchedStrings watch = WatchedStrings.current;
        boolean[] watchedLengths = watch.lengths;
        long found = 0;
        int p = 10;
        for (int i = 1; i < count; i++) {
            int tag = bytes[p] & 0xFF;
            offsets[i] = p;
            switch (tag) {
                case 1 -> {
                    int length = ((bytes[p + 1] & 0xFF) << 8) | (bytes[p + 2] & 0xFF);
                    int kinds = length < LENGTH_KINDS.length ? LENGTH_KINDS[length] : 0;
                    if (kinds != 0) {
                        int first = bytes[p + 3]; // a word's length and first byte, then the call (most strings: no call)
                        if (!words && (kinds & WORD) != 0 && first >= 0 && RewriterReferences.WORD_STARTS[length << 7 | first]
                                && RewriterReferences.isWord(this, p + 3, length)) {
                            words = true;
                        }
                        if ((kinds & CODE_NAME) != 0 && equalsAt(p + 3, length, CODE)) {
                            codeIndex = i;
                        } else if ((kinds & ANNOTATIONS_NAME) != 0 && equalsAt(p + 3, length, ANNOTATIONS)) {
                            annotationsIndex = i;
                        }
                    }
                    if (length < watchedLengths.length && watchedLengths[length]) {
                        found |= watch.find(this, p + 3, length);
                    }
                    p += 3 + length;
                }
                case 7, 8, 16, 19, 20 -> p += 3;
                case 15 -> p += 4;
                case 3, 4, 9, 10, 11, 12, 17, 18 -> p += 5;
                case 5, 6 -> {
                    p += 9;
                    i++;
                }
                default -> throw new IllegalArgumentException("constant tag " + tag);
            }
        }
        this.constantPoolEnd = p;
        this.constantPoolCount = count;
        this.constantOffsets = offsets;
        this.annotationsNameIndex = annotationsIndex;
        this.watching = watch;
        this.watchedFound = found;
        this.access = u2(p);
        p += 6;
        p += 2 + 2 * u2(p); // interfaces
        boolean[] monitors = {false};
        p = skipMembers(p, 0, false, monitors); // fields
        this.methodsOffset = p;
        this.codeNameIndex = codeIndex;
        p = skipMembers(p, codeIndex, true, monitors);
        this.classAttributesOffset = p;
        skipAttributes(p); // bounds-checks the rest
        this.needsRewriter = monitors[0] || (words && RewriterReferences.referencesRewriterTarget(this));
    }

    /** The scan of {@code bytes}: the calling thread's last one if it was of this same array. */
    public static ClassScan of(byte[] bytes) {
        ClassScan last = LAST.get();
        // The retransform-capable transformers (the RMI retrofit) get a copy of the bytes from the JVM: equal
        // contents are checked (a vectorized compare) before scanning again.
        if (last != null && (last.key == bytes || java.util.Arrays.equals(last.key, bytes))) {
            return last;
        }
        ClassScan scan = new ClassScan(bytes);
        LAST.set(scan);
        return scan;
    }

    /**
     * Tells the calling thread's next {@link #of} that {@code marked} is this class with only the marker added
     * ({@link MarkerOnly}): the transformers after the monitor transformer then share this scan. Access, super
     * class, interfaces and constants are the same in both; the view answers {@link #needsRewriter()} true, as
     * a marked class is the rewriter's to recognise.
     */
    void markedAs(byte[] marked) {
        LAST.set(new ClassScan(this, marked));
    }

    /**
     * The same for {@code rewritten}, this class as the rewriter returned it: access, super class and interfaces are
     * the same, and every constant of this class is in it too (the rewriter's writer keeps the constant pool and
     * appends to it), so the view answers {@link #hasConstant} rightly for any constant but the rewriter's own
     * (its runtime's methods, the marker), which the transformers after it never ask about. Saves those
     * transformers a scan of every rewritten class (issue 16: about 6% of a cached start-up's loading thread).
     */
    void rewrittenAs(byte[] rewritten) {
        LAST.set(new ClassScan(this, rewritten));
    }

    private ClassScan(ClassScan unmarked, byte[] marked) {
        this.bytes = unmarked.bytes;
        this.key = marked;
        this.constantPoolEnd = unmarked.constantPoolEnd;
        this.classAttributesOffset = unmarked.classAttributesOffset;
        this.constantPoolCount = unmarked.constantPoolCount;
        this.annotationsNameIndex = unmarked.annotationsNameIndex;
        this.methodsOffset = unmarked.methodsOffset;
        this.codeNameIndex = unmarked.codeNameIndex;
        this.constantOffsets = unmarked.constantOffsets;
        this.access = unmarked.access;
        this.watching = unmarked.watching;
        this.watchedFound = unmarked.watchedFound;
        this.needsRewriter = true;
    }

    /** Whether {@link MonitorRewriter} may change more than add its marker (see the class comment). */
    public boolean needsRewriter() {
        return needsRewriter;
    }

    /** The class file's major version. */
    public int majorVersion() {
        return u2(6);
    }

    /** The class's access flags. */
    public int access() {
        return access;
    }

    /** The super class's internal name, or null for {@code java/lang/Object} and module-info. */
    public String superName() {
        int index = u2(constantPoolEnd + 4);
        return index == 0 ? null : className(index);
    }

    /** The internal names of the directly implemented (or, for an interface, extended) interfaces. */
    public String[] interfaces() {
        int p = constantPoolEnd + 6;
        String[] names = new String[u2(p)];
        for (int i = 0; i < names.length; i++) {
            names[i] = className(u2(p + 2 + 2 * i));
        }
        return names;
    }

    /**
     * Tells every scan made from now on to note whether its constant pool holds {@code utf8} (modified UTF-8 bytes), so
     * that {@link #hasConstant} answers for it from the one pass that every transformer shares instead of walking the
     * constant pool again (issue 16: the IIOP servant patch asks two strings of every class). Call before the classes
     * are loaded (a transformer's set-up); a scan made earlier still answers, by walking its pool. At most 64 strings.
     * The array is kept, not copied: asking with the same array then costs no comparison; the caller must not change it.
     */
    public static void watch(byte[] utf8) {
        WatchedStrings.watch(utf8);
    }

    /** Whether the constant pool holds the Utf8 string {@code utf8} (modified UTF-8 bytes), as a whole. */
    public boolean hasConstant(byte[] utf8) {
        int watchedIndex = watching.indexOf(utf8);
        if (watchedIndex >= 0) {
            return (watchedFound & (1L << watchedIndex)) != 0;
        }
        for (int i = 1; i < constantOffsets.length; i++) {
            int offset = constantOffsets[i];
            if (bytes[offset] == 1 && equalsAt(offset + 3, u2(offset + 1), utf8)) {
                return true;
            }
        }
        return false;
    }

    private String className(int classIndex) {
        int offset = constantOffsets[u2(constantOffsets[classIndex] + 1)];
        int length = u2(offset + 1);
        for (int i = offset + 3; i < offset + 3 + length; i++) {
            if (bytes[i] < 0) { // not ASCII: modified UTF-8, as DataInput reads it
                try {
                    return new java.io.DataInputStream(new java.io.ByteArrayInputStream(bytes, offset + 1, length + 2)).readUTF();
                } catch (java.io.IOException e) {
                    throw new IllegalArgumentException(e);
                }
            }
        }
        return new String(bytes, offset + 3, length, StandardCharsets.ISO_8859_1);
    }

    /** Skips fields or methods; for methods, records a synchronized one or a monitor instruction. */
    private int skipMembers(int p, int codeIndex, boolean methods, boolean[] monitors) {
        int count = u2(p);
        p += 2;
        for (int m = 0; m < count; m++) {
            if (methods && (u2(p) & ACC_SYNCHRONIZED) != 0) {
                monitors[0] = true;
            }
            int attributes = u2(p + 6);
            p += 8;
            for (int a = 0; a < attributes; a++) {
                int length = u4(p + 2);
                if (methods && !monitors[0] && codeIndex != 0 && u2(p) == codeIndex) {
                    monitors[0] = hasMonitorInstruction(p + 14, u4(p + 10));
                }
                p += 6 + length;
            }
        }
        return p;
    }

    private int skipAttributes(int p) {
        int count = u2(p);
        p += 2;
        for (int a = 0; a < count; a++) {
            p += 6 + u4(p + 2);
        }
        if (p != bytes.length) {
            throw new IllegalArgumentException("class file length");
        }
        return p;
    }

    /** Walks the instructions of a Code attribute's code array; true on a monitor opcode or anything unknown. */
    private boolean hasMonitorInstruction(int start, int length) {
        int end = start + length;
        if (length < 0 || end > bytes.length) {
            throw new IllegalArgumentException("code length");
        }
        byte[] code = bytes;
        byte[] sizes = INSTRUCTION_SIZES;
        for (int p = start; p < end; ) {
            int size = sizes[code[p] & 0xFF];
            if (size > 0) { // most instructions: no call (this runs interpreted at start-up)
                p += size;
                continue;
            }
            p = nextInstruction(p, start);
            if (p < 0) {
                return true; // monitorenter, monitorexit, or not a JVM opcode: let the rewriter decide
            }
        }
        return false;
    }

    /**
     * The offset of the instruction after the one at {@code p} in a code array starting at {@code start}, or -1
     * for {@code monitorenter}, {@code monitorexit} and undefined opcodes (the walkers decide on those).
     */
    int nextInstruction(int p, int start) {
        int opcode = bytes[p] & 0xFF;
        int size = INSTRUCTION_SIZES[opcode];
        if (size > 0) {
            return p + size;
        } else if (opcode == 0xAA) { // tableswitch: padding to 4 bytes from the code's start, then 3 ints
            int q = p + 1 + ((4 - ((p + 1 - start) & 3)) & 3);
            return q + 12 + 4 * (u4(q + 8) - u4(q + 4) + 1);
        } else if (opcode == 0xAB) { // lookupswitch: default, npairs, pairs
            int q = p + 1 + ((4 - ((p + 1 - start) & 3)) & 3);
            return q + 8 + 8 * u4(q + 4);
        } else if (opcode == 0xC4) { // wide
            return p + ((bytes[p + 1] & 0xFF) == 0x84 ? 6 : 4);
        }
        return -1;
    }

    /** Instruction sizes by opcode; 0 for monitor, switch, wide and undefined opcodes (handled apart). */
    static final byte[] INSTRUCTION_SIZES = new byte[256];

    static {
        java.util.Arrays.fill(INSTRUCTION_SIZES, 0, 0xCA, (byte) 1);
        for (int op : new int[] {0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3A, 0xA9, 0xBC}) {
            INSTRUCTION_SIZES[op] = 2; // bipush, ldc, loads, stores, ret, newarray
        }
        for (int op : new int[] {0x11, 0x13, 0x14, 0x84, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xBB, 0xBD, 0xC0,
            0xC1, 0xC6, 0xC7}) {
            INSTRUCTION_SIZES[op] = 3; // sipush, ldc_w, ldc2_w, iinc, field and method refs, new, anewarray, casts, ifnull
        }
        for (int op = 0x99; op <= 0xA8; op++) {
            INSTRUCTION_SIZES[op] = 3; // if*, goto, jsr
        }
        INSTRUCTION_SIZES[0xB9] = 5; // invokeinterface
        INSTRUCTION_SIZES[0xBA] = 5; // invokedynamic
        INSTRUCTION_SIZES[0xC5] = 4; // multianewarray
        INSTRUCTION_SIZES[0xC8] = 5; // goto_w
        INSTRUCTION_SIZES[0xC9] = 5; // jsr_w
        for (int op : new int[] {0xAA, 0xAB, 0xC2, 0xC3, 0xC4}) {
            INSTRUCTION_SIZES[op] = 0;
        }
    }

    /** The offset of constant {@code index}'s tag byte. */
    int constantOffset(int index) {
        return constantOffsets[index];
    }

    boolean equalsAt(int offset, int length, byte[] word) {
        if (length != word.length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (bytes[offset + i] != word[i]) {
                return false;
            }
        }
        return true;
    }

    int u2(int p) {
        return ((bytes[p] & 0xFF) << 8) | (bytes[p + 1] & 0xFF);
    }

    int u4(int p) {
        return ((bytes[p] & 0xFF) << 24) | ((bytes[p + 1] & 0xFF) << 16) | ((bytes[p + 2] & 0xFF) << 8) | (bytes[p + 3] & 0xFF);
    }

    private static byte[] lengthKinds() {
        boolean[] wordLengths = RewriterReferences.WORD_LENGTHS;
        byte[] kinds = new byte[Math.max(wordLengths.length, ANNOTATIONS.length + 1)];
        for (int length = 0; length < wordLengths.length; length++) {
            kinds[length] = (byte) (wordLengths[length] ? WORD : 0);
        }
        kinds[CODE.length] |= CODE_NAME;
        kinds[ANNOTATIONS.length] |= ANNOTATIONS_NAME;
        return kinds;
    }
}
