package org.dthreads.monitor.internal.rewriter;

/**
 * Which methods of a class {@link MonitorRewriter} may change; every other method is copied into the
 * rewritten class byte for byte (ASM's reader-to-writer copy: no parse, no tree, its own frames kept), which is
 * most of the cost of rewriting a class that needs it.
 *
 * <p>A method may change when it is {@code synchronized} (lowered), is an override of
 * {@code getClassLoadingLock} ({@link NativeMarkVisitor} marks what it returns), or its code has a monitor
 * instruction, a subroutine ({@code jsr}/{@code ret}: inlined), an instruction whose constant is one of
 * {@link ClassScan}'s targets (the member references the call rewriting and the native marks act on), or,
 * when the class has a method handle constant to such a target, an {@code invokedynamic} or an {@code ldc} of a
 * method handle or dynamic constant (bootstrap arguments are not followed: all of them are taken). The same
 * targets {@link ClassScan} uses to send a class to the rewriter at all, applied per method. Anything
 * unexpected (an unknown opcode) selects the method; a class that cannot be scanned selects every method.
 *
 * <p>Immutable; built per class on the rewriting thread.
 */
final class MethodSelection {

    private static final int ACC_SYNCHRONIZED = 0x0020;
    private static final byte[] GET_CLASS_LOADING_LOCK = "getClassLoadingLock".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    /** Per method, in class-file order: may it change; null: every method may. */
    private final boolean[] selected;

    private MethodSelection(boolean[] selected) {
        this.selected = selected;
    }

    /** Every method goes through the full rewriting (the behaviour before the selection; tests compare with it). */
    static MethodSelection all() {
        return new MethodSelection(null);
    }

    /** The selection for {@code classBytes}; never throws (a class that cannot be scanned: {@link #all()}). */
    static MethodSelection of(byte[] classBytes) {
        try {
            ClassScan scan = ClassScan.of(classBytes);
            if (scan.bytes != classBytes && !java.util.Arrays.equals(scan.bytes, classBytes)) {
                return all(); // a marked class's view: the rewriter refuses it anyway
            }
            return new MethodSelection(new Walk(scan).selected());
        } catch (RuntimeException malformed) {
            return all();
        }
    }

    /** Whether this is {@link #all()}. */
    boolean everyMethod() {
        return selected == null;
    }

    /** Whether the method at {@code index} (class-file order) may change. */
    boolean mayChange(int index) {
        return selected == null || index >= selected.length || selected[index];
    }

    /** How many methods may change; -1 when all. */
    int count() {
        if (selected == null) {
            return -1;
        }
        int n = 0;
        for (boolean s : selected) {
            n += s ? 1 : 0;
        }
        return n;
    }

    private static final class Walk {
        private final ClassScan scan;
        private final byte[] bytes;
        private final boolean[] target; // per constant index: a member reference or method handle to a target
        private final boolean targetHandle;

        Walk(ClassScan scan) {
            this.scan = scan;
            this.bytes = scan.bytes;
            int count = scan.constantPoolCount;
            target = new boolean[count];
            for (int i = 1; i < count; i++) {
                int tag = tag(i);
                target[i] = (tag == 9 || tag == 10 || tag == 11) && RewriterReferences.isTargetReference(scan, i);
            }
            boolean handle = false;
            for (int i = 1; i < count; i++) {
                if (tag(i) == 15 && target[scan.u2(scan.constantOffset(i) + 2)]) {
                    target[i] = true;
                    handle = true;
                }
            }
            targetHandle = handle;
        }

        private int tag(int index) {
            int offset = scan.constantOffset(index);
            return offset == 0 ? 0 : bytes[offset] & 0xFF; // 0: a long's or double's second slot
        }

        boolean[] selected() {
            int p = scan.methodsOffset;
            boolean[] selected = new boolean[scan.u2(p)];
            p += 2;
            for (int m = 0; m < selected.length; m++) {
                int nameOffset = scan.constantOffset(scan.u2(p + 2));
                boolean select = (scan.u2(p) & ACC_SYNCHRONIZED) != 0
                        || scan.equalsAt(nameOffset + 3, scan.u2(nameOffset + 1), GET_CLASS_LOADING_LOCK);
                int attributes = scan.u2(p + 6);
                p += 8;
                for (int a = 0; a < attributes; a++) {
                    if (!select && scan.codeNameIndex != 0 && scan.u2(p) == scan.codeNameIndex) {
                        select = codeMayChange(p + 14, scan.u4(p + 10));
                    }
                    p += 6 + scan.u4(p + 2);
                }
                selected[m] = select;
            }
            return selected;
        }

        /** Walks a code array; true on anything the rewriter acts on, or anything unknown. */
        private boolean codeMayChange(int start, int length) {
            int end = start + length;
            if (length < 0 || end > bytes.length) {
                throw new IllegalArgumentException("code length");
            }
            int p = start;
            while (p < end) {
                int opcode = bytes[p] & 0xFF;
                switch (opcode) {
                    case 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9 -> { // field access, invoke*
                        if (target[scan.u2(p + 1)]) {
                            return true;
                        }
                    }
                    case 0xBA -> { // invokedynamic: its bootstrap arguments may hold a target handle
                        if (targetHandle) {
                            return true;
                        }
                    }
                    case 0x12, 0x13 -> { // ldc, ldc_w: a method handle, or a dynamic constant that may hold one
                        int index = opcode == 0x12 ? bytes[p + 1] & 0xFF : scan.u2(p + 1);
                        int tag = tag(index);
                        if (targetHandle && (tag == 15 || tag == 17)) {
                            return true;
                        }
                    }
                    case 0xA8, 0xA9, 0xC9, 0xC2, 0xC3 -> { // jsr, ret, jsr_w, monitorenter, monitorexit
                        return true;
                    }
                    case 0xC4 -> { // wide: a wide ret is a subroutine too
                        if ((bytes[p + 1] & 0xFF) == 0xA9) {
                            return true;
                        }
                    }
                    default -> { }
                }
                p = scan.nextInstruction(p, start);
                if (p < 0) {
                    return true; // not a JVM opcode: the rewriter decides
                }
            }
            return false;
        }
    }
}
