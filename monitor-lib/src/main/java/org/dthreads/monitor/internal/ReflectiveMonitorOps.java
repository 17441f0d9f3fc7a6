package org.dthreads.monitor.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Objects;
import org.dthreads.monitor.Monitors;

/**
 * What rewritten code calls instead of {@code Method.invoke} and the {@code MethodHandles.Lookup} look-ups
 * (see the rewriter's {@code ReflectiveCalls}): when the method reached is {@code Object.wait/notify/notifyAll},
 * {@code Thread.holdsLock}, {@code Thread.interrupt}, {@code isInterrupted} or {@code interrupted}, the
 * {@link Monitors} operation is substituted (so a
 * reflective {@code notify} inside a rewritten {@code synchronized} block acts on the monitor that block
 * holds); anything else passes through unchanged, after one class comparison.
 *
 * <p>The substitutes keep the original's contract: the look-up runs first (same exceptions, same access
 * checks), a substituted handle has the found handle's type; {@link #invoke} checks the receiver and the
 * arguments in {@code Method.invoke}'s order, throws {@code NullPointerException} and
 * {@code IllegalArgumentException} unwrapped and wraps what the operation throws in
 * {@link InvocationTargetException}. Only {@code MethodHandles.reflectAs}/{@code revealDirect} on a
 * substituted handle show the difference.
 *
 * <p>Stateless; JDK types only in signatures (it goes on the bootstrap class path with the runtime and
 * reaches the one runtime through {@link Monitors}).
 */
public final class ReflectiveMonitorOps {

    private static final MethodType VOID = MethodType.methodType(void.class);

    private ReflectiveMonitorOps() {}

    /**
     * The {@code Monitors} handles, in a holder: a reflective call that is not a monitor operation must not
     * initialize {@code Monitors} (and with it the runtime).
     */
    private static final class Handles {
        static final MethodHandle WAIT = monitors("waitOn", MethodType.methodType(void.class, Object.class));
        static final MethodHandle WAIT_MILLIS = monitors("waitOn", MethodType.methodType(void.class, Object.class, long.class));
        static final MethodHandle WAIT_NANOS = monitors("waitOn",
                MethodType.methodType(void.class, Object.class, long.class, int.class));
        static final MethodHandle NOTIFY = monitors("notifyOne", MethodType.methodType(void.class, Object.class));
        static final MethodHandle NOTIFY_ALL = monitors("notifyAll", MethodType.methodType(void.class, Object.class));
        static final MethodHandle HOLDS_LOCK = monitors("holdsLock", MethodType.methodType(boolean.class, Object.class));
        static final MethodHandle INTERRUPT = monitors("interrupt", MethodType.methodType(void.class, Thread.class));
        static final MethodHandle IS_INTERRUPTED = monitors("isInterrupted", MethodType.methodType(boolean.class, Thread.class));
        static final MethodHandle INTERRUPTED = monitors("interrupted", MethodType.methodType(boolean.class));

        private static MethodHandle monitors(String name, MethodType type) {
            try {
                return MethodHandles.publicLookup().findStatic(Monitors.class, name, type);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    // ---------------- Method.invoke ----------------

    /** Whether {@code m} is one of the methods {@link #invoke} substitutes: one class comparison for any other. */
    public static boolean isMonitorOperation(Method m) {
        Class<?> declarer = m.getDeclaringClass();
        if (declarer == Object.class) {
            String name = m.getName();
            return name.equals("wait") || name.equals("notify") || name.equals("notifyAll");
        }
        if (declarer == Thread.class) {
            String name = m.getName();
            return name.equals("holdsLock") || name.equals("interrupt")
                    || (name.equals("isInterrupted") || name.equals("interrupted")) && m.getParameterCount() == 0;
        }
        return false;
    }

    /** {@code m.invoke(receiver, args)} for a method {@link #isMonitorOperation} accepts. */
    public static Object invoke(Method m, Object receiver, Object[] args) throws InvocationTargetException {
        if (!Modifier.isStatic(m.getModifiers())) {
            Objects.requireNonNull(receiver);
            if (!m.getDeclaringClass().isInstance(receiver)) {
                throw new IllegalArgumentException("object is not an instance of declaring class");
            }
        }
        int count = args == null ? 0 : args.length;
        if (count != m.getParameterCount()) {
            throw new IllegalArgumentException("wrong number of arguments");
        }
        String name = m.getName();
        long millis = name.equals("wait") && count > 0 ? toLong(args[0]) : 0L;
        int nanos = name.equals("wait") && count > 1 ? toInt(args[1]) : 0;
        try {
            switch (name) {
                case "wait" -> Monitors.waitOn(receiver, millis, nanos);
                case "notify" -> Monitors.notifyOne(receiver);
                case "notifyAll" -> Monitors.notifyAll(receiver);
                case "holdsLock" -> {
                    return Monitors.holdsLock(args[0]);
                }
                case "isInterrupted" -> {
                    return Monitors.isInterrupted((Thread) receiver);
                }
                case "interrupted" -> {
                    return Monitors.interrupted();
                }
                default -> Monitors.interrupt((Thread) receiver);
            }
            return null;
        } catch (Throwable t) {
            throw new InvocationTargetException(t);
        }
    }

    private static long toLong(Object arg) {
        if (arg instanceof Long l) {
            return l;
        }
        if (arg instanceof Character c) {
            return c;
        }
        return toInt(arg);
    }

    private static int toInt(Object arg) {
        if (arg instanceof Integer || arg instanceof Short || arg instanceof Byte) {
            return ((Number) arg).intValue();
        }
        if (arg instanceof Character c) {
            return c;
        }
        throw new IllegalArgumentException("argument type mismatch");
    }

    // ---------------- MethodHandles.Lookup ----------------

    /** {@code lookup.findVirtual(refc, name, type)}. */
    public static MethodHandle findVirtual(MethodHandles.Lookup lookup, Class<?> refc, String name, MethodType type)
            throws NoSuchMethodException, IllegalAccessException {
        MethodHandle found = lookup.findVirtual(refc, name, type);
        MethodHandle monitor = instanceOperation(refc, name, type, true);
        return monitor == null ? found : monitor.asType(found.type());
    }

    /** {@code lookup.findStatic(refc, name, type)}. */
    public static MethodHandle findStatic(MethodHandles.Lookup lookup, Class<?> refc, String name, MethodType type)
            throws NoSuchMethodException, IllegalAccessException {
        MethodHandle found = lookup.findStatic(refc, name, type);
        MethodHandle monitor = staticOperation(name, type);
        return monitor != null && reachesThreadStatic(refc, name, type.parameterArray()) ? monitor : found;
    }

    /** {@code lookup.findSpecial(refc, name, type, specialCaller)}: {@code super.interrupt()} stays as it is. */
    public static MethodHandle findSpecial(MethodHandles.Lookup lookup, Class<?> refc, String name, MethodType type,
            Class<?> specialCaller) throws NoSuchMethodException, IllegalAccessException {
        MethodHandle found = lookup.findSpecial(refc, name, type, specialCaller);
        MethodHandle monitor = instanceOperation(refc, name, type, false);
        return monitor == null ? found : monitor.asType(found.type());
    }

    /** {@code lookup.unreflect(m)}. */
    public static MethodHandle unreflect(MethodHandles.Lookup lookup, Method m) throws IllegalAccessException {
        MethodHandle found = lookup.unreflect(m);
        if (!isMonitorOperation(m)) {
            return found;
        }
        MethodHandle monitor = Modifier.isStatic(m.getModifiers())
                ? staticOperation(m.getName(), MethodType.methodType(m.getReturnType(), m.getParameterTypes()))
                : instanceOperation(m.getDeclaringClass(), m.getName(), MethodType.methodType(m.getReturnType(),
                        m.getParameterTypes()), true);
        return monitor == null ? found : monitor.asType(found.type());
    }

    /** {@code lookup.unreflectSpecial(m, specialCaller)}. */
    public static MethodHandle unreflectSpecial(MethodHandles.Lookup lookup, Method m, Class<?> specialCaller)
            throws IllegalAccessException {
        MethodHandle found = lookup.unreflectSpecial(m, specialCaller);
        if (m.getDeclaringClass() != Object.class) {
            return found;
        }
        MethodHandle monitor = instanceOperation(Object.class, m.getName(),
                MethodType.methodType(m.getReturnType(), m.getParameterTypes()), false);
        return monitor == null ? found : monitor.asType(found.type());
    }

    /** {@code lookup.bind(receiver, name, type)}. */
    public static MethodHandle bind(MethodHandles.Lookup lookup, Object receiver, String name, MethodType type)
            throws NoSuchMethodException, IllegalAccessException {
        MethodHandle found = lookup.bind(receiver, name, type);
        MethodHandle monitor = instanceOperation(receiver.getClass(), name, type, true);
        return monitor == null ? found : MethodHandles.insertArguments(monitor, 0, receiver).asType(found.type());
    }

    /**
     * The {@code Monitors} handle for instance method {@code name type} found in {@code refc}, or null: the
     * {@code Object} methods (final: whatever {@code refc}), and {@code interrupt()} of a {@code Thread} when
     * dispatched virtually ({@code Monitors.interrupt} calls it virtually in turn).
     */
    private static MethodHandle instanceOperation(Class<?> refc, String name, MethodType type, boolean virtual) {
        switch (name) {
            case "wait":
                if (type.equals(VOID)) {
                    return Handles.WAIT;
                }
                if (type.equals(MethodType.methodType(void.class, long.class))) {
                    return Handles.WAIT_MILLIS;
                }
                return type.equals(MethodType.methodType(void.class, long.class, int.class)) ? Handles.WAIT_NANOS : null;
            case "notify":
                return type.equals(VOID) ? Handles.NOTIFY : null;
            case "notifyAll":
                return type.equals(VOID) ? Handles.NOTIFY_ALL : null;
            case "interrupt":
                return virtual && type.equals(VOID) && Thread.class.isAssignableFrom(refc) ? Handles.INTERRUPT : null;
            case "isInterrupted":
                return virtual && type.equals(MethodType.methodType(boolean.class)) && Thread.class.isAssignableFrom(refc)
                        ? Handles.IS_INTERRUPTED : null;
            default:
                return null;
        }
    }

    /** The {@code Monitors} handle for a static {@code Thread} method {@code name type}, or null. */
    private static MethodHandle staticOperation(String name, MethodType type) {
        if (name.equals("holdsLock") && type.equals(MethodType.methodType(boolean.class, Object.class))) {
            return Handles.HOLDS_LOCK;
        }
        return name.equals("interrupted") && type.equals(MethodType.methodType(boolean.class)) ? Handles.INTERRUPTED : null;
    }

    /** Whether static {@code name(parameters)} resolved from {@code refc} is {@code Thread}'s (not hidden). */
    private static boolean reachesThreadStatic(Class<?> refc, String name, Class<?>[] parameters) {
        for (Class<?> c = refc; c != null; c = c.getSuperclass()) {
            if (c == Thread.class) {
                return true;
            }
            try {
                c.getDeclaredMethod(name, parameters);
                return false;
            } catch (NoSuchMethodException e) {
                // not declared here: look further up
            } catch (SecurityException e) {
                return false;
            }
        }
        return false;
    }
}
