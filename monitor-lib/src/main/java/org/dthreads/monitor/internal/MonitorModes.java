package org.dthreads.monitor.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The per-class decision whether an object's monitor is <em>emulated</em> (this runtime, keyed by thread
 * class) or <em>native</em> (the JVM's own monitor), cached in a {@link ClassValue}.
 *
 * <h2>Rule</h2>
 * An object's monitor must be the one that every piece of code locking it uses. Code that dthreads does
 * not rewrite (JDK classes, excluded packages, classes loaded before the agent) takes the native monitor,
 * so an object that such code may lock must stay native. Emulated:
 * <ol>
 *   <li>instances of rewritten classes, unless a superclass that is not rewritten might lock them natively
 *       (an application class extending {@code Vector}): every superclass must be rewritten or one of the
 *       JDK classes known never to lock {@code this} ({@code Object}, {@code Number}, {@code Enum},
 *       {@code Record}, {@code AbstractMap}...);</li>
 *   <li>the {@code Class} objects of rewritten classes (static synchronized methods), same superclass rule;</li>
 *   <li>plain {@code Object} instances, arrays, {@code String}s and boxed primitives: types no JDK code locks.</li>
 * </ol>
 * <em>Remote</em> (a kind of emulated: the rewriter takes the emulated path, the runtime sends the operation
 * to the object's site through a {@link org.dthreads.monitor.spi.RemoteMonitorTransport}): stub classes, by
 * name since this class runs on the bootstrap path where ORB classes are not visible — dynamic proxies
 * implementing {@code java.rmi.Remote} (JRMP stubs, GlassFish dynamic RMI-IIOP stubs), subclasses of
 * {@code java.rmi.server.RemoteStub} (rmic stubs) and of {@code org.omg.CORBA.portable.ObjectImpl}
 * (CORBA and RMI-IIOP stubs). Whether a given proxy really is a remote reference is decided once per
 * object, when its {@link Monitor} is created ({@link RemoteReference}).
 *
 * <h2>Per object: plain objects the JDK also locks</h2>
 * Some JDK API hands application code a plain object that JDK code locks too, or locks one the application
 * hands it: {@code ClassLoader.getClassLoadingLock} (a {@code new Object()} per class name in a
 * parallel-capable loader), the lock of {@code Reader(Object)}/{@code Writer(Object)},
 * {@code SelectableChannel.blockingLock()}, an {@code InvocationEvent}'s notifier,
 * {@code BeanContext.globalHierarchyLock}. The rewriter marks such an object where it crosses that API in
 * application code ({@link NativeMarks}); a marked object is native whatever its class. The inventory of
 * these cases and what is left as a limit: {@code docs/rewriter.md}, "Objects the JDK locks".
 *
 * <p>Everything else is native: {@code Vector}, {@code Collections.synchronizedList(..)}, {@code PrintStream}
 * (so {@code synchronized (System.out)} still excludes the JDK's printing), {@code Thread} (whose
 * {@code join} waits on the native monitor, notified by the JVM on exit), and so on.
 *
 * <h2>What counts as rewritten</h2>
 * A class the rewriter processed carries {@code @org.dthreads.monitor.Rewritten}. System properties
 * (read once, comma-separated class-name prefixes; a prefix ending in {@code .} matches a package) override:
 * {@code dthreads.monitor.native} forces native, {@code dthreads.monitor.emulated} forces emulated
 * (for classes whose every locker is rewritten), {@code dthreads.monitor.rewritten} treats classes as
 * rewritten (tests without the agent).
 */
final class MonitorModes {
    private static final List<String> FORCED_NATIVE = prefixes("dthreads.monitor.native");
    private static final List<String> FORCED_EMULATED = prefixes("dthreads.monitor.emulated");
    private static final List<String> ASSUMED_REWRITTEN = prefixes("dthreads.monitor.rewritten");
    private static final String REWRITTEN_ANNOTATION = "org.dthreads.monitor.Rewritten";

    /** JDK superclasses that never lock {@code this}: extending them keeps a class emulatable. */
    private static final List<Class<?>> NON_LOCKING_SUPERCLASSES = List.of(Object.class, Number.class, Enum.class,
            Record.class, java.util.AbstractMap.class, java.util.AbstractCollection.class,
            java.util.AbstractList.class, java.util.AbstractSet.class, java.util.AbstractQueue.class);

    /**
     * Middleware base classes of remote objects and servants that never lock {@code this} (checked in
     * their bytecode: JDK 17/25 RMI classes, JacORB 3.9 and the GlassFish ORB 4.2.5), by name since
     * this class runs on the bootstrap path where the ORB classes are not visible. Without them every
     * {@code UnicastRemoteObject} subclass and every CORBA servant would keep the JVM's monitor and a
     * zigzag through its synchronized methods would still deadlock.
     */
    private static final java.util.Set<String> NON_LOCKING_SUPERCLASS_NAMES = java.util.Set.of(
            "java.rmi.server.RemoteObject", "java.rmi.server.RemoteServer", "java.rmi.server.UnicastRemoteObject",
            "javax.rmi.PortableRemoteObject", "org.omg.PortableServer.Servant",
            "org.omg.PortableServer.DynamicImplementation");

    /** Modes of instances of a class. */
    static final int NATIVE = 0;
    static final int EMULATED = 1;
    static final int REMOTE = 2;
    private static final Integer[] MODES = {NATIVE, EMULATED, REMOTE};

    private static final ClassValue<Integer> INSTANCE_MODE = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> type) {
            return MODES[decideForInstances(type)];
        }
    };

    private static final ClassValue<Boolean> CLASS_OBJECT_EMULATED = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return decideForClassObject(type);
        }
    };

    private MonitorModes() {}

    /** Whether {@code o}'s monitor is emulated (locally or at a remote site). {@code o} is not null. */
    static boolean isEmulated(Object o) {
        return mode(o) != NATIVE;
    }

    /** {@link #NATIVE}, {@link #EMULATED} or {@link #REMOTE} (a stub class) for {@code o}, which is not null. */
    static int mode(Object o) {
        if (o instanceof Class<?> c) {
            return CLASS_OBJECT_EMULATED.get(c) ? EMULATED : NATIVE;
        }
        int mode = INSTANCE_MODE.get(o.getClass());
        // An object of an emulated class that JDK code also locks, marked where it left the JDK's API.
        return mode == EMULATED && NativeMarks.isMarked(o) ? NATIVE : mode;
    }

    /** Whether {@code o}'s class is a stub class: its monitor operations may go to a remote site. */
    static boolean isRemoteType(Object o) {
        return !(o instanceof Class<?>) && INSTANCE_MODE.get(o.getClass()) == REMOTE;
    }

    /** Whether instances of {@code type} are stubs (their monitor operations may go to a remote site). */
    static boolean isStubType(Class<?> type) {
        return INSTANCE_MODE.get(type) == REMOTE;
    }

    private static int decideForInstances(Class<?> type) {
        try {
            String name = type.getName();
            if (matches(FORCED_NATIVE, name)) {
                return NATIVE;
            }
            if (isStubClass(type)) {
                return REMOTE;
            }
            if (matches(FORCED_EMULATED, name)) {
                return EMULATED;
            }
            if (type.isArray() || type == Object.class || type == String.class || isBox(type)) {
                return EMULATED;
            }
            return isRewrittenHierarchy(type) ? EMULATED : NATIVE;
        } catch (Throwable t) {
            MonitorRuntime.LOG.error("mode-decision-failed", "dthreads: could not decide the monitor mode of "
                    + type + "; using the native monitor: " + t);
            return NATIVE;
        }
    }

    private static final java.util.Set<String> STUB_SUPERCLASS_NAMES = java.util.Set.of(
            "java.rmi.server.RemoteStub", "org.omg.CORBA.portable.ObjectImpl");

    private static boolean isStubClass(Class<?> type) {
        if (java.lang.reflect.Proxy.isProxyClass(type)) {
            return implementsByName(type, "java.rmi.Remote");
        }
        for (Class<?> s = type.getSuperclass(); s != null; s = s.getSuperclass()) {
            if (STUB_SUPERCLASS_NAMES.contains(s.getName())) {
                return true;
            }
        }
        return false;
    }

    private static boolean implementsByName(Class<?> type, String interfaceName) {
        for (Class<?> i : type.getInterfaces()) {
            if (i.getName().equals(interfaceName) || implementsByName(i, interfaceName)) {
                return true;
            }
        }
        return false;
    }

    private static boolean decideForClassObject(Class<?> type) {
        try {
            String name = type.getName();
            if (matches(FORCED_NATIVE, name)) {
                return false;
            }
            if (matches(FORCED_EMULATED, name)) {
                return true;
            }
            // Class objects of JDK classes are locked by JDK code (and by the JVM during initialization
            // of some); only those of rewritten classes are emulated.
            return isRewritten(type);
        } catch (Throwable t) {
            return false;
        }
    }

    private static boolean isRewrittenHierarchy(Class<?> type) {
        if (!isRewritten(type)) {
            return false;
        }
        for (Class<?> s = type.getSuperclass(); s != null; s = s.getSuperclass()) {
            if (NON_LOCKING_SUPERCLASSES.contains(s) || NON_LOCKING_SUPERCLASS_NAMES.contains(s.getName())) {
                continue;
            }
            if (!isRewritten(s)) {
                return false; // e.g. an application class extending Vector: Vector's methods lock natively
            }
        }
        return true;
    }

    private static boolean isRewritten(Class<?> type) {
        if (matches(ASSUMED_REWRITTEN, type.getName())) {
            return true;
        }
        for (var a : type.getDeclaredAnnotations()) {
            if (a.annotationType().getName().equals(REWRITTEN_ANNOTATION)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isBox(Class<?> type) {
        return type == Integer.class || type == Long.class || type == Short.class || type == Byte.class
                || type == Character.class || type == Boolean.class || type == Float.class || type == Double.class;
    }

    private static boolean matches(List<String> prefixes, String name) {
        for (String p : prefixes) {
            if (p.endsWith(".") ? name.startsWith(p) : (name.equals(p) || name.startsWith(p + "$"))) {
                return true;
            }
        }
        return false;
    }

    private static List<String> prefixes(String property) {
        List<String> out = new ArrayList<>();
        String value;
        try {
            value = System.getProperty(property);
        } catch (SecurityException e) {
            value = null;
        }
        if (value == null) {
            return List.of();
        }
        for (String part : value.split(",")) {
            String p = part.trim();
            if (!p.isEmpty()) {
                out.add(p.endsWith(".*") ? p.substring(0, p.length() - 1) : p);
            }
        }
        return List.copyOf(out);
    }

    static String describe() {
        return String.format(Locale.ROOT, "native=%s emulated=%s rewritten=%s", FORCED_NATIVE, FORCED_EMULATED,
                ASSUMED_REWRITTEN);
    }
}
