package org.dthreads.monitor.internal.rewriter;

import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Replaces calls of {@code Object.wait()}, {@code wait(long)}, {@code wait(long, int)},
 * {@code notify()}, {@code notifyAll()} (on any receiver type: javac often names the receiver's own
 * class as owner), {@code Thread.holdsLock(Object)} and {@code Thread.interrupt()} with the
 * {@link org.dthreads.monitor.Monitors} method of the same stack shape. Those dispatch on the
 * object's mode themselves, so one call site serves emulated and native objects.
 *
 * <p>{@code interrupt()} is replaced only where the owner is {@code java/lang/Thread}: a call
 * compiled against a subclass may reach an override, which {@code Monitors.interrupt} also calls
 * virtually.
 */
final class MonitorCallRewriter extends MethodVisitor {

    MonitorCallRewriter(MethodVisitor next) {
        super(Opcodes.ASM9, next);
    }

    /**
     * Whether {@code method} looks up {@code wait}, {@code notify} or {@code notifyAll} by name through
     * reflection or method handles (a string constant with that name and a {@code getMethod},
     * {@code getDeclaredMethod} or {@code findVirtual} call). Such calls cannot be rewritten: they act
     * on the JVM's monitor, so on an emulated object they throw {@code IllegalMonitorStateException}
     * even inside a {@code synchronized} block. Cheap and approximate: for a warning, not a decision.
     */
    static boolean looksUpMonitorMethodsReflectively(org.objectweb.asm.tree.MethodNode method) {
        boolean name = false;
        boolean lookup = false;
        for (org.objectweb.asm.tree.AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn instanceof org.objectweb.asm.tree.LdcInsnNode ldc && ldc.cst instanceof String s
                    && (s.equals("wait") || s.equals("notify") || s.equals("notifyAll"))) {
                name = true;
            } else if (insn instanceof org.objectweb.asm.tree.MethodInsnNode call
                    && ((call.owner.equals("java/lang/Class") && (call.name.equals("getMethod") || call.name.equals("getDeclaredMethod")))
                            || (call.owner.equals("java/lang/invoke/MethodHandles$Lookup") && call.name.equals("findVirtual")))) {
                lookup = true;
            }
        }
        return name && lookup;
    }

    /** How many calls of {@code method} this visitor would replace. */
    static int countSites(org.objectweb.asm.tree.MethodNode method) {
        int sites = 0;
        for (org.objectweb.asm.tree.AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn instanceof org.objectweb.asm.tree.MethodInsnNode call
                    && replacement(call.getOpcode(), call.owner, call.name, call.desc) != null) {
                sites++;
            }
        }
        return sites;
    }

    @Override
    public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
        String replacement = replacement(opcode, owner, name, descriptor);
        if (replacement != null) {
            String target = replacement.substring(0, replacement.indexOf('('));
            String desc = replacement.substring(replacement.indexOf('('));
            super.visitMethodInsn(Opcodes.INVOKESTATIC, MonitorBlockSplitter.MONITORS, target, desc, false);
            return;
        }
        super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
    }

    static String replacement(int opcode, String owner, String name, String descriptor) {
        if (opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE) {
            switch (name + descriptor) {
                case "wait()V":
                    return "waitOn(Ljava/lang/Object;)V";
                case "wait(J)V":
                    return "waitOn(Ljava/lang/Object;J)V";
                case "wait(JI)V":
                    return "waitOn(Ljava/lang/Object;JI)V";
                case "notify()V":
                    return "notifyOne(Ljava/lang/Object;)V";
                case "notifyAll()V":
                    return "notifyAll(Ljava/lang/Object;)V";
                case "interrupt()V":
                    return owner.equals("java/lang/Thread") ? "interrupt(Ljava/lang/Thread;)V" : null;
                default:
                    return null;
            }
        }
        if (opcode == Opcodes.INVOKESTATIC && owner.equals("java/lang/Thread") && name.equals("holdsLock")
                && descriptor.equals("(Ljava/lang/Object;)Z")) {
            return "holdsLock(Ljava/lang/Object;)Z";
        }
        return null;
    }
}
