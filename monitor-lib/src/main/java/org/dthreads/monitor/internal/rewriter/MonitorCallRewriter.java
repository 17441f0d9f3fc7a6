package org.dthreads.monitor.internal.rewriter;

import java.util.List;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Sends every route to a JDK monitor method ({@link MonitorMethods}) to {@link org.dthreads.monitor.Monitors},
 * in one method, before its blocks are split:
 * <ul>
 *   <li>a call, through any owner: replaced by the {@code Monitors} method of the same stack shape;</li>
 *   <li>a method handle constant: in an {@code invokedynamic}'s bootstrap arguments (a method reference's
 *       implementation handle for {@code LambdaMetafactory}, which adapts the types itself; for any other
 *       bootstrap only where the handle's type stays the same), in an {@code ldc} (followed by
 *       {@code asType} back to the original type where it differs), and inside dynamic constants;</li>
 *   <li>reflection and method-handle look-ups: {@link ReflectiveCalls}.</li>
 * </ul>
 * A route that cannot be replaced (a serializable method reference, whose deserialization checks the
 * implementation handle; another bootstrap given a handle whose type would change; an owner whose class
 * cannot be read) is left as it is and reported, with the method and line, for a one-time log.
 */
final class MonitorCallRewriter {

    private static final String LAMBDA_METAFACTORY = "java/lang/invoke/LambdaMetafactory";
    private static final int FLAG_SERIALIZABLE = 1; // LambdaMetafactory.FLAG_SERIALIZABLE

    private final MonitorMethods methods;
    private final MethodNode method;
    private final List<String> unrewritable;
    private int line = -1;
    private int sites;

    private MonitorCallRewriter(MonitorMethods methods, MethodNode method, List<String> unrewritable) {
        this.methods = methods;
        this.method = method;
        this.unrewritable = unrewritable;
    }

    /**
     * Rewrites {@code method}'s routes; appends what cannot be rewritten to {@code unrewritable}.
     *
     * @return how many sites were rewritten
     */
    static int rewrite(MethodNode method, MonitorMethods methods, List<String> unrewritable) {
        return rewrite(method, methods, unrewritable, null);
    }

    /**
     * As {@link #rewrite(MethodNode, MonitorMethods, List)}; {@code hints}, if not null, learns the new branch
     * targets (a replaced call has the stack shape and result type of the original: no frame changes).
     */
    static int rewrite(MethodNode method, MonitorMethods methods, List<String> unrewritable, FrameHints hints) {
        MonitorCallRewriter rewriter = new MonitorCallRewriter(methods, method, unrewritable);
        for (AbstractInsnNode insn = method.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            insn = rewriter.visit(insn);
        }
        rewriter.sites += ReflectiveCalls.rewrite(method, hints);
        return rewriter.sites;
    }

    /** @return the instruction to continue after (a replaced call's replacement) */
    private AbstractInsnNode visit(AbstractInsnNode insn) {
        if (insn instanceof LineNumberNode number) {
            line = number.line;
        } else if (insn instanceof MethodInsnNode call) {
            MonitorMethods.Target target = methods.call(call.getOpcode(), call.owner, call.name, call.desc, this::report);
            if (target != null) {
                MethodInsnNode replacement = new MethodInsnNode(Opcodes.INVOKESTATIC, MonitorBlockSplitter.MONITORS,
                        target.name(), target.descriptor(), false);
                method.instructions.set(call, replacement);
                sites++;
                return replacement;
            }
        } else if (insn instanceof InvokeDynamicInsnNode indy) {
            boolean lambda = indy.bsm.getOwner().equals(LAMBDA_METAFACTORY);
            boolean serializable = lambda && indy.bsmArgs.length > 3 && indy.bsmArgs[3] instanceof Integer flags
                    && (flags & FLAG_SERIALIZABLE) != 0;
            for (int i = 0; i < indy.bsmArgs.length; i++) {
                indy.bsmArgs[i] = constant(indy.bsmArgs[i], lambda && !serializable, serializable);
            }
        } else if (insn instanceof LdcInsnNode ldc) {
            if (ldc.cst instanceof Handle h) {
                MonitorMethods.Target target = methods.handle(h, this::report);
                if (target != null) {
                    ldc.cst = target.handle();
                    sites++;
                    String type = MonitorMethods.handleType(h);
                    if (!type.equals(target.descriptor())) {
                        InsnList back = new InsnList();
                        back.add(new LdcInsnNode(Type.getMethodType(type)));
                        back.add(new MethodInsnNode(Opcodes.INVOKEVIRTUAL, "java/lang/invoke/MethodHandle", "asType",
                                "(Ljava/lang/invoke/MethodType;)Ljava/lang/invoke/MethodHandle;", false));
                        method.instructions.insert(ldc, back);
                    }
                }
            } else if (ldc.cst instanceof ConstantDynamic) {
                ldc.cst = constant(ldc.cst, false, false);
            }
        }
        return insn;
    }

    /** A bootstrap argument or constant with its monitor handles replaced where the replacement is safe. */
    private Object constant(Object value, boolean adaptsTypes, boolean serializable) {
        if (value instanceof Handle h) {
            MonitorMethods.Target target = methods.handle(h, this::report);
            if (target == null) {
                return h;
            }
            if (serializable) { // $deserializeLambda$ repeats the method's own reference: reported once
                if (!method.name.equals("$deserializeLambda$")) {
                    report("serializable method reference to " + describe(h) + " (its deserialization checks the handle)");
                }
                return h;
            }
            if (!adaptsTypes && !MonitorMethods.handleType(h).equals(target.descriptor())) {
                report("bootstrap argument " + describe(h) + " (a replacement would change its type)");
                return h;
            }
            sites++;
            return target.handle();
        }
        if (value instanceof ConstantDynamic condy) {
            Object[] args = new Object[condy.getBootstrapMethodArgumentCount()];
            boolean changed = false;
            for (int i = 0; i < args.length; i++) {
                Object arg = condy.getBootstrapMethodArgument(i);
                args[i] = constant(arg, false, false);
                changed |= args[i] != arg;
            }
            return changed ? new ConstantDynamic(condy.getName(), condy.getDescriptor(), condy.getBootstrapMethod(), args)
                    : condy;
        }
        return value;
    }

    private static String describe(Handle h) {
        return h.getOwner().replace('/', '.') + "." + h.getName();
    }

    private void report(String what) {
        unrewritable.add(method.name + method.desc + (line >= 0 ? " line " + line : "") + ": " + what);
    }
}
