package org.dthreads.monitor.internal.rewriter;

import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Reflective routes to a monitor method, sent through {@code org.dthreads.monitor.internal.ReflectiveMonitorOps},
 * which substitutes the {@code Monitors} operation when the method reached is one of them and otherwise
 * does exactly what the original call did:
 * <ul>
 *   <li>{@code MethodHandles.Lookup.findVirtual/findStatic/findSpecial/unreflect/unreflectSpecial/bind}: one
 *       static call of the same stack shape, with the look-up first (none of them depends on its caller);</li>
 *   <li>{@code Method.invoke}, which checks access against its caller, so the call stays here:
 *       <pre>
 *   [m, o, args] astore B; astore A; dup; invokestatic isMonitorOperation(Method); ifeq PLAIN
 *   aload A; aload B; invokestatic ReflectiveMonitorOps.invoke; goto DONE
 *   PLAIN: aload A; aload B; invokevirtual Method.invoke
 *   DONE:</pre>
 *       two new locals; frames are recomputed, or derived ({@link FrameHints}).</li>
 * </ul>
 */
final class ReflectiveCalls {

    static final String OPS = "org/dthreads/monitor/internal/ReflectiveMonitorOps";
    private static final String LOOKUP = "java/lang/invoke/MethodHandles$Lookup";
    private static final String METHOD = "java/lang/reflect/Method";
    private static final String INVOKE_DESC = "(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;";
    private static final Set<String> LOOKUPS = Set.of("findVirtual", "findStatic", "findSpecial", "unreflect",
            "unreflectSpecial", "bind");

    private ReflectiveCalls() {}

    /** @return how many call sites were rewritten */
    static int rewrite(MethodNode method) {
        return rewrite(method, null);
    }

    /** As {@link #rewrite(MethodNode)}, announcing the guards' new branch targets to {@code hints} if not null. */
    static int rewrite(MethodNode method, FrameHints hints) {
        int sites = 0;
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (!(insn instanceof MethodInsnNode call) || call.getOpcode() != Opcodes.INVOKEVIRTUAL) {
                continue;
            }
            if (call.owner.equals(LOOKUP) && LOOKUPS.contains(call.name)) {
                MethodInsnNode replacement = new MethodInsnNode(Opcodes.INVOKESTATIC, OPS, call.name,
                        "(L" + LOOKUP + ";" + call.desc.substring(1), false);
                method.instructions.set(call, replacement);
                insn = replacement;
                sites++;
            } else if (call.owner.equals(METHOD) && call.name.equals("invoke") && call.desc.equals(INVOKE_DESC)) {
                insn = guardInvoke(method, call, hints);
                sites++;
            }
        }
        return sites;
    }

    /** Wraps {@code call} as the class comment shows; returns the last instruction of the new code. */
    private static AbstractInsnNode guardInvoke(MethodNode method, MethodInsnNode call, FrameHints hints) {
        int receiver = method.maxLocals;
        int args = receiver + 1;
        method.maxLocals += 2;
        LabelNode plain = new LabelNode();
        LabelNode done = new LabelNode();
        InsnList before = new InsnList();
        before.add(new VarInsnNode(Opcodes.ASTORE, args));
        before.add(new VarInsnNode(Opcodes.ASTORE, receiver));
        before.add(new InsnNode(Opcodes.DUP));
        MethodInsnNode test = new MethodInsnNode(Opcodes.INVOKESTATIC, OPS, "isMonitorOperation", "(L" + METHOD + ";)Z", false);
        before.add(test);
        before.add(new JumpInsnNode(Opcodes.IFEQ, plain));
        before.add(new VarInsnNode(Opcodes.ALOAD, receiver));
        before.add(new VarInsnNode(Opcodes.ALOAD, args));
        before.add(new MethodInsnNode(Opcodes.INVOKESTATIC, OPS, "invoke", "(L" + METHOD + ";" + INVOKE_DESC.substring(1), false));
        before.add(new JumpInsnNode(Opcodes.GOTO, done));
        before.add(plain);
        before.add(new VarInsnNode(Opcodes.ALOAD, receiver));
        before.add(new VarInsnNode(Opcodes.ALOAD, args));
        method.instructions.insertBefore(call, before);
        method.instructions.insert(call, done);
        if (hints != null) {
            hints.afterPop(plain, test); // [.. m m] before the test: [.. m] at PLAIN
            hints.fallThrough(done); // both edges: [.. Object], the same locals
        }
        return done;
    }
}
