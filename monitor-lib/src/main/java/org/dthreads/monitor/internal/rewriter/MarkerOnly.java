package org.dthreads.monitor.internal.rewriter;

import java.nio.charset.StandardCharsets;
import org.objectweb.asm.Opcodes;

/**
 * The rewriter's output for a class with nothing to rewrite ({@link ClassScan#needsRewriter()} false): the
 * same bytes plus the {@code @Rewritten} marker, spliced in without parsing the class. The marker's Utf8
 * (and, if absent, {@code RuntimeVisibleAnnotations}) is appended at the end of the constant pool, so no
 * existing index moves; the annotation is appended to the class's {@code RuntimeVisibleAnnotations}, or
 * that attribute is added. What {@link MonitorRewriter} would produce for such a class, minus its
 * re-encoding (recomputed frames, inlined subroutines), which changes nothing the JVM runs.
 *
 * <p>Stateless; thread-safe.
 */
final class MarkerOnly {

    private static final byte[] MARKER = MonitorRewriter.REWRITTEN_DESCRIPTOR.getBytes(StandardCharsets.UTF_8);
    private static final byte[] ANNOTATIONS = "RuntimeVisibleAnnotations".getBytes(StandardCharsets.UTF_8);
    private static final int ACC_MODULE = 0x8000;
    /** A class file version every ASM this agent is built with reads (Java 17's); see {@link Newest}. */
    private static final int SURELY_READ_MAJOR = Opcodes.V17 & 0xFFFF;

    /**
     * The newest class file version this ASM reads: a newer one goes to the rewriter, which skips it. Found by
     * reflection over {@code Opcodes} (a few milliseconds of interpreted reflection), so only when a class newer than
     * {@link #SURELY_READ_MAJOR} arrives: none of most applications' do.
     */
    private static final class Newest {
        static final int MAJOR = newestMajorVersion();
    }

    private MarkerOnly() {}

    /** The class with the marker added, or null if the rewriter must decide (module-info, too new, full pool). */
    static byte[] addMarker(ClassScan scan) {
        boolean addName = scan.annotationsNameIndex == 0;
        int newEntries = addName ? 2 : 1;
        if (scan.needsRewriter() || (scan.access() & ACC_MODULE) != 0 || (scan.majorVersion() > SURELY_READ_MAJOR
                && scan.majorVersion() > Newest.MAJOR)
                || scan.constantPoolCount + newEntries > 0xFFFF) {
            return null;
        }
        byte[] in = scan.bytes;
        int markerIndex = scan.constantPoolCount;
        int nameIndex = addName ? markerIndex + 1 : scan.annotationsNameIndex;
        int existing = findClassAnnotations(scan, nameIndex);
        int grow = 3 + MARKER.length + (addName ? 3 + ANNOTATIONS.length : 0) + (existing < 0 ? 12 : 4); // a new attribute, or one annotation
        byte[] out = new byte[in.length + grow];
        System.arraycopy(in, 0, out, 0, 8);
        putU2(out, 8, scan.constantPoolCount + newEntries);
        System.arraycopy(in, 10, out, 10, scan.constantPoolEnd - 10);
        int p = scan.constantPoolEnd;
        p = putUtf8(out, p, MARKER);
        if (addName) {
            p = putUtf8(out, p, ANNOTATIONS);
        }
        int shift = p - scan.constantPoolEnd;
        int attributes = scan.classAttributesOffset;
        if (existing < 0) {
            System.arraycopy(in, scan.constantPoolEnd, out, p, in.length - scan.constantPoolEnd);
            putU2(out, attributes + shift, scan.u2(attributes) + 1);
            p = in.length + shift;
            putU2(out, p, nameIndex);
            putU4(out, p + 2, 6);
            putU2(out, p + 6, 1);
            putU2(out, p + 8, markerIndex);
            putU2(out, p + 10, 0);
        } else {
            // existing: offset of the attribute; grow its length and count, append one annotation at its end
            int length = scan.u4(existing + 2);
            int end = existing + 6 + length;
            System.arraycopy(in, scan.constantPoolEnd, out, p, end - scan.constantPoolEnd);
            putU4(out, existing + shift + 2, length + 4);
            putU2(out, existing + shift + 6, scan.u2(existing + 6) + 1);
            p = end + shift;
            putU2(out, p, markerIndex);
            putU2(out, p + 2, 0);
            System.arraycopy(in, end, out, p + 4, in.length - end);
        }
        scan.markedAs(out);
        return out;
    }

    /** Offset of the class's own {@code RuntimeVisibleAnnotations} attribute, or -1. */
    private static int findClassAnnotations(ClassScan scan, int nameIndex) {
        if (scan.annotationsNameIndex == 0) {
            return -1;
        }
        int p = scan.classAttributesOffset;
        int count = scan.u2(p);
        p += 2;
        for (int a = 0; a < count; a++) {
            if (scan.u2(p) == nameIndex) {
                return p;
            }
            p += 6 + scan.u4(p + 2);
        }
        return -1;
    }

    private static int putUtf8(byte[] out, int p, byte[] utf8) {
        out[p] = 1;
        putU2(out, p + 1, utf8.length);
        System.arraycopy(utf8, 0, out, p + 3, utf8.length);
        return p + 3 + utf8.length;
    }

    private static void putU2(byte[] out, int p, int value) {
        out[p] = (byte) (value >>> 8);
        out[p + 1] = (byte) value;
    }

    private static void putU4(byte[] out, int p, int value) {
        putU2(out, p, value >>> 16);
        putU2(out, p + 2, value);
    }

    private static int newestMajorVersion() {
        int newest = Opcodes.V17;
        for (java.lang.reflect.Field f : Opcodes.class.getFields()) {
            if (f.getName().matches("V\\d+") && f.getType() == int.class) {
                try {
                    newest = Math.max(newest, f.getInt(null) & 0xFFFF);
                } catch (IllegalAccessException e) {
                    // public constant: not reached
                }
            }
        }
        return newest;
    }
}
