package org.dthreads.monitor.internal.rewriter;

import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
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

        // After the body's own handlers, so those keep precedence.
        method.tryCatchBlocks.add(new TryCatchBlockNode(start, end, handler, null));
        method.tryCatchBlocks.add(new TryCatchBlockNode(handler, handlerEnd, handler, null));
        method.access &= ~Opcodes.ACC_SYNCHRONIZED;
    }
}
