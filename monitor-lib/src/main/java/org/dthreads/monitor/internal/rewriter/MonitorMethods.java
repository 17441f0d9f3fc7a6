package org.dthreads.monitor.internal.rewriter;

import java.util.function.Consumer;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Which JDK monitor method a call or a method handle reaches, resolved as the JVM resolves it, and the
 * {@link org.dthreads.monitor.Monitors} method that replaces it:
 * <ul>
 *   <li>{@code wait()}, {@code wait(long)}, {@code wait(long, int)}, {@code notify()}, {@code notifyAll()}:
 *       final in {@code Object}, so an instance call of that name and descriptor reaches them whatever its
 *       owner ({@code String.notifyAll}, an interface, {@code super.notify()});</li>
 *   <li>{@code Thread.holdsLock(Object)}: static, so a call through a subclass of {@code Thread}
 *       ({@code invokestatic Worker.holdsLock}) reaches it unless a class on the way hides it with its own
 *       static method of that descriptor;</li>
 *   <li>{@code Thread.interrupt()} and {@code Thread.isInterrupted()}: a virtual call through {@code Thread}
 *       or a subclass ({@code Monitors.interrupt}/{@code isInterrupted} call it virtually in turn, so an
 *       override still runs); never {@code super.interrupt()}/{@code super.isInterrupted()} (an override
 *       calling it would recurse);</li>
 *   <li>{@code Thread.interrupted()}: static, resolved like {@code holdsLock}.</li>
 * </ul>
 * Super-types are read from bytes ({@link ClassHierarchy}); a call whose owner cannot be read is left as it is
 * and reported.
 */
final class MonitorMethods {

    static final String OBJECT = "java/lang/Object";
    static final String THREAD = "java/lang/Thread";

    /** A static method of {@code Monitors}. */
    record Target(String name, String descriptor) {
        Handle handle() {
            return new Handle(Opcodes.H_INVOKESTATIC, MonitorBlockSplitter.MONITORS, name, descriptor, false);
        }
    }

    private static final Target HOLDS_LOCK = new Target("holdsLock", "(Ljava/lang/Object;)Z");
    private static final Target INTERRUPT = new Target("interrupt", "(Ljava/lang/Thread;)V");
    private static final Target IS_INTERRUPTED = new Target("isInterrupted", "(Ljava/lang/Thread;)Z");
    private static final Target INTERRUPTED = new Target("interrupted", "()Z");

    private final ClassHierarchy hierarchy;

    MonitorMethods(ClassHierarchy hierarchy) {
        this.hierarchy = hierarchy;
    }

    /**
     * The replacement of {@code opcode owner.name descriptor}, or null.
     *
     * @param unresolved told why, when the answer depends on a class that cannot be read
     */
    Target call(int opcode, String owner, String name, String descriptor, Consumer<String> unresolved) {
        if (opcode == Opcodes.INVOKESTATIC) {
            Target target = threadStatic(name, descriptor);
            if (target == null) {
                return null;
            }
            return resolvesTo(owner, name, descriptor, unresolved) ? target : null;
        }
        Target onObject = objectMethod(name, descriptor);
        if (onObject != null) {
            return onObject;
        }
        Target onThread = opcode == Opcodes.INVOKEVIRTUAL ? threadVirtual(name, descriptor) : null;
        if (onThread != null) {
            return extendsThread(owner, unresolved) ? onThread : null;
        }
        return null;
    }

    /** The replacement of a method handle constant, or null. */
    Target handle(Handle h, Consumer<String> unresolved) {
        int opcode = switch (h.getTag()) {
            case Opcodes.H_INVOKEVIRTUAL -> Opcodes.INVOKEVIRTUAL;
            case Opcodes.H_INVOKEINTERFACE -> Opcodes.INVOKEINTERFACE;
            case Opcodes.H_INVOKESPECIAL -> Opcodes.INVOKESPECIAL;
            case Opcodes.H_INVOKESTATIC -> Opcodes.INVOKESTATIC;
            default -> -1;
        };
        return opcode < 0 ? null : call(opcode, h.getOwner(), h.getName(), h.getDesc(), unresolved);
    }

    /** The method type of {@code h} as the JVM gives it (the receiver first for an instance method). */
    static String handleType(Handle h) {
        if (h.getTag() == Opcodes.H_INVOKESTATIC) {
            return h.getDesc();
        }
        return "(" + Type.getObjectType(h.getOwner()).getDescriptor() + h.getDesc().substring(1);
    }

    private static Target objectMethod(String name, String descriptor) {
        return switch (name + descriptor) {
            case "wait()V" -> new Target("waitOn", "(Ljava/lang/Object;)V");
            case "wait(J)V" -> new Target("waitOn", "(Ljava/lang/Object;J)V");
            case "wait(JI)V" -> new Target("waitOn", "(Ljava/lang/Object;JI)V");
            case "notify()V" -> new Target("notifyOne", "(Ljava/lang/Object;)V");
            case "notifyAll()V" -> new Target("notifyAll", "(Ljava/lang/Object;)V");
            default -> null;
        };
    }

    private static Target threadStatic(String name, String descriptor) {
        return switch (name + descriptor) {
            case "holdsLock(Ljava/lang/Object;)Z" -> HOLDS_LOCK;
            case "interrupted()Z" -> INTERRUPTED;
            default -> null;
        };
    }

    private static Target threadVirtual(String name, String descriptor) {
        return switch (name + descriptor) {
            case "interrupt()V" -> INTERRUPT;
            case "isInterrupted()Z" -> IS_INTERRUPTED;
            default -> null;
        };
    }

    // Two methods, not one taking a lambda: each lambda was spun into a hidden class while the first classes load
    // (issue 16).
    private boolean resolvesTo(String owner, String name, String descriptor, Consumer<String> unresolved) {
        if (owner.equals(THREAD)) {
            return true;
        }
        try {
            return hierarchy.resolvesTo(owner, name, descriptor, THREAD);
        } catch (ClassHierarchy.UnknownTypeException e) {
            unresolved.accept(e.getMessage());
            return false;
        }
    }

    private boolean extendsThread(String owner, Consumer<String> unresolved) {
        if (owner.equals(THREAD)) {
            return true;
        }
        try {
            return hierarchy.extendsClass(owner, THREAD);
        } catch (ClassHierarchy.UnknownTypeException e) {
            unresolved.accept(e.getMessage());
            return false;
        }
    }
}
