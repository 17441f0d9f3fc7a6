package org.dthreads.monitor.internal.rewriter;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Turns a {@code synchronized} method into a plain method whose body is a {@code synchronized}
 * block on {@code this} (or on the class, for a static method), in exactly the shape javac gives a
 * block, so {@link MonitorBlockSplitter} handles methods and blocks alike:
 * <pre>
 *   lock; dup; astore L; monitorenter
 *   S: body, with "aload L; monitorexit" before every return
 *   E: H: astore T; aload L; monitorexit; aload T; athrow      try [S,E) and [H,X) -> H, any
 * </pre>
 * The caller removes {@code ACC_SYNCHRONIZED}. Call after the method is complete (a tree pass).
 */
final class SynchronizedMethodLowering {

    private SynchronizedMethodLowering() {}

    static void lower(MethodNode method, String owner, int classVersion) {
        lower(method, owner, classVersion, null);
    }

    /**
     * As {@link #lower(MethodNode, String, int)}; with {@code hints} (the method's frames kept, see {@link FrameHints})
     * every frame of the body gets the lock local, and the release handler its frame: only the lock is known there
     * (its range is the whole body, whose other locals change), the thrown object on the stack.
     */
    static void lower(MethodNode method, String owner, int classVersion, FrameHints hints) {
        boolean isStatic = (method.access & Opcodes.ACC_STATIC) != 0;
        if (isStatic && (classVersion & 0xFFFF) < Opcodes.V1_5) {
            throw new CannotRewriteException("static synchronized method in a class file older than Java 5 (no ldc of a class)");
        }
        int lockSlot = method.maxLocals;
        int throwableSlot = lockSlot + 1;
        method.maxLocals += 2;

        LabelNode start = new LabelNode();
        LabelNode end = new LabelNode();
        LabelNode handler = new LabelNode();
        LabelNode handlerEnd = new LabelNode();

        InsnList prologue = new InsnList();
        prologue.add(isStatic ? new LdcInsnNode(Type.getObjectType(owner)) : new VarInsnNode(Opcodes.ALOAD, 0));
        prologue.add(new InsnNode(Opcodes.DUP));
        prologue.add(new VarInsnNode(Opcodes.ASTORE, lockSlot));
        prologue.add(new InsnNode(Opcodes.MONITORENTER));
        prologue.add(start);

        for (AbstractInsnNode insn : method.instructions.toArray()) {
            int op = insn.getOpcode();
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                InsnList release = new InsnList();
                release.add(new VarInsnNode(Opcodes.ALOAD, lockSlot));
                release.add(new InsnNode(Opcodes.MONITOREXIT));
                method.instructions.insertBefore(insn, release);
            }
        }
        method.instructions.insert(prologue);

        InsnList epilogue = new InsnList();
        epilogue.add(end);
        epilogue.add(handler);
        epilogue.add(new VarInsnNode(Opcodes.ASTORE, throwableSlot));
        epilogue.add(new VarInsnNode(Opcodes.ALOAD, lockSlot));
        epilogue.add(new InsnNode(Opcodes.MONITOREXIT));
        epilogue.add(handlerEnd);
        epilogue.add(new VarInsnNode(Opcodes.ALOAD, throwableSlot));
        epilogue.add(new InsnNode(Opcodes.ATHROW));
        method.instructions.add(epilogue);
        if (hints != null) {
            String lockType = isStatic ? "java/lang/Class" : owner;
            for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
                if (insn instanceof FrameNode frame) {
                    frame.local = withLocal(frame.local, lockSlot, lockType);
                }
            }
            Object[] handlerLocals = withLocal(List.of(), lockSlot, lockType).toArray();
            method.instructions.insert(handler, new FrameNode(Opcodes.F_NEW, handlerLocals.length, handlerLocals, 1,
                    new Object[] {"java/lang/Throwable"}));
        }

        // After the body's own handlers, so those keep precedence.
        method.tryCatchBlocks.add(new TryCatchBlockNode(start, end, handler, null));
        method.tryCatchBlocks.add(new TryCatchBlockNode(handler, handlerEnd, handler, null));
        method.access &= ~Opcodes.ACC_SYNCHRONIZED;
    }

    /** A frame's locals (one entry per value, a long or double taking two slots) with {@code type} at {@code slot}. */
    private static List<Object> withLocal(List<Object> locals, int slot, String type) {
        List<Object> out = new ArrayList<>(locals.size() + 2);
        int slots = 0;
        for (Object local : locals) {
            out.add(local);
            slots += local == Opcodes.LONG || local == Opcodes.DOUBLE ? 2 : 1;
        }
        if (slots > slot) {
            throw new CannotRewriteException("a frame with more locals than its method's maximum");
        }
        for (; slots < slot; slots++) {
            out.add(Opcodes.TOP);
        }
        out.add(type);
        return out;
    }
}
