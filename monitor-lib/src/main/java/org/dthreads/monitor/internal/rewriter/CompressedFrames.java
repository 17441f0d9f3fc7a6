package org.dthreads.monitor.internal.rewriter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.FrameNode;

/**
 * Turns a method's expanded frames ({@code F_NEW}) into the compressed kinds of the class file ({@code F_SAME},
 * {@code F_SAME1}, {@code F_APPEND}, {@code F_CHOP}, else {@code F_FULL}), each relative to the frame before it,
 * before the method goes to a writer that does not compute frames. Why: given an expanded frame, ASM's writer
 * converts every type of it to its own form (a descriptor string built per class type) to compress it itself;
 * measured, that was a fifth of a rewrite interpreted. A compressed frame is written as it is, and most frames
 * repeat the one before. The first frame is written in full (no need to model the method's implicit first frame).
 * Fed by {@link FrameHints#checkFrames}, which walks the frames in code order anyway.
 *
 * <p>Not thread-safe: one instance per method.
 */
final class CompressedFrames {

    /** The previous frame's locals (expanded), null before the first. */
    private List<Object> previous;

    /** Compresses {@code frame} (the next one in code order) relative to the one before, if expanded. */
    void next(FrameNode frame) {
        if (frame.type != Opcodes.F_NEW) {
            throw new IllegalArgumentException("expanded and compressed frames mixed");
        }
        List<Object> locals = frame.local;
        if (previous != null) {
            compress(frame, previous, locals, frame.stack);
        } else {
            frame.type = Opcodes.F_FULL;
        }
        previous = locals;
    }

    private static void compress(FrameNode frame, List<Object> previous, List<Object> locals, List<Object> stack) {
        int n = locals.size();
        int p = previous.size();
        if (stack.size() <= 1 && n == p && locals.equals(previous)) {
            frame.type = stack.isEmpty() ? Opcodes.F_SAME : Opcodes.F_SAME1;
            frame.local = Collections.emptyList();
        } else if (stack.isEmpty() && n > p && n - p <= 3 && locals.subList(0, p).equals(previous)) {
            frame.type = Opcodes.F_APPEND;
            frame.local = new ArrayList<>(locals.subList(p, n));
        } else if (stack.isEmpty() && n < p && p - n <= 3 && previous.subList(0, n).equals(locals)) {
            frame.type = Opcodes.F_CHOP;
            frame.local = new ArrayList<>(Collections.nCopies(p - n, Opcodes.TOP)); // only the count is written
        } else {
            frame.type = Opcodes.F_FULL;
        }
    }
}
