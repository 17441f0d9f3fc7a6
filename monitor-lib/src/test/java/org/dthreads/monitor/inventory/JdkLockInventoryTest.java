package org.dthreads.monitor.inventory;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.dthreads.monitor.Monitors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: every JDK object that JDK code locks and that application code can reach with a plain
 * (emulatable) type is either kept native by dthreads or a documented limit ({@code docs/rewriter.md},
 * "Objects the JDK locks"). Fails on a finding that is in neither list, e.g. when a new JDK adds one:
 * review it, handle it in {@code NativeMarkVisitor} or document it, and add it to {@link #KNOWN}.
 * Runs on the build's JDK, and on Temurin 25 when it is installed.
 */
class JdkLockInventoryTest {

    static final Path JDK25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

    static final String MARKED = "marked native where it crosses the API in application code (NativeMarkVisitor)";
    static final String INTERNAL = "internal: the value comes from a JDK-private container or is a JDK object";
    static final String LIMIT = "documented limit (docs/rewriter.md)";

    /** Every finding of JDK 17 and 25, with its disposition. Keys as {@link JdkLockInventory} prints them. */
    static final Map<String, String> KNOWN = Map.ofEntries(
            entry("return java/lang/ClassLoader.getClassLoadingLock(Ljava/lang/String;)Ljava/lang/Object;", MARKED),
            entry("return java/nio/channels/SelectableChannel.blockingLock()Ljava/lang/Object;", MARKED),
            entry("field java/io/Reader.lock Ljava/lang/Object;", MARKED),
            entry("field java/io/Writer.lock Ljava/lang/Object;", MARKED),
            entry("field java/awt/event/InvocationEvent.notifier Ljava/lang/Object;", MARKED),
            entry("field java/beans/beancontext/BeanContext.globalHierarchyLock Ljava/lang/Object;", MARKED),
            entry("return java/awt/Component.getTreeLock()Ljava/lang/Object;",
                    "native by class: an instance of Component$AWTTreeLock, a JDK class (checked below)"),
            entry("return java/awt/MenuComponent.getTreeLock()Ljava/lang/Object;",
                    "native by class: Component's tree lock (checked below)"),
            entry("param 0 Ljava/lang/Object; of java/beans/beancontext/BeanContextSupport.add(Ljava/lang/Object;)Z", LIMIT),
            entry("param 0 Ljava/lang/Object; of java/beans/beancontext/BeanContextSupport.remove(Ljava/lang/Object;Z)Z", LIMIT),
            entry("return java/io/ObjectInputStream.readObject()Ljava/lang/Object;", LIMIT + ": BeanContextSupport.readChildren"),
            entry("container java/util/concurrent/ConcurrentMap.computeIfAbsent(Ljava/lang/Object;Ljava/util/function/Function;)"
                    + "Ljava/lang/Object; in java/util/stream/Collectors", LIMIT + ": groupingByConcurrent's containers"),
            entry("container java/lang/Object.getClass()Ljava/lang/Class; in javax/crypto/JceSecurityManager", INTERNAL),
            entry("container java/lang/ClassValue.get(Ljava/lang/Class;)Ljava/lang/Object; in java/lang/invoke/MethodHandleImpl", INTERNAL),
            entry("container java/lang/ClassValue.get(Ljava/lang/Class;)Ljava/lang/Object; in java/lang/invoke/MethodHandleProxies",
                    INTERNAL),
            entry("container java/lang/ref/Reference.get()Ljava/lang/Object; in sun/print/PathGraphics", INTERNAL),
            entry("container java/security/AccessController.doPrivileged(Ljava/security/PrivilegedAction;)Ljava/lang/Object;"
                    + " in java/security/ProtectionDomain", INTERNAL),
            entry("container java/util/AbstractMap.get(Ljava/lang/Object;)Ljava/lang/Object; in java/security/Policy", INTERNAL),
            entry("container java/util/AbstractMap.get(Ljava/lang/Object;)Ljava/lang/Object; in sun/awt/X11/XDropTargetRegistry",
                    INTERNAL),
            entry("container java/util/AbstractMap.get(Ljava/lang/Object;)Ljava/lang/Object; in sun/nio/ch/FileLockTable", INTERNAL),
            entry("container java/util/Iterator.next()Ljava/lang/Object; in javax/swing/RepaintManager$DisplayChangedHandler",
                    INTERNAL),
            entry("container java/util/Iterator.next()Ljava/lang/Object; in sun/nio/ch/AsynchronousFileChannelImpl", INTERNAL),
            entry("container java/util/Iterator.next()Ljava/lang/Object; in sun/nio/ch/FileChannelImpl", INTERNAL),
            entry("container java/util/Iterator.next()Ljava/lang/Object; in sun/rmi/transport/tcp/TCPEndpoint", INTERNAL),
            entry("container java/util/Map.get(Ljava/lang/Object;)Ljava/lang/Object; in"
                    + " javax/swing/text/DefaultStyledDocument$AbstractChangeHandler", INTERNAL),
            entry("container java/util/Map.get(Ljava/lang/Object;)Ljava/lang/Object; in sun/rmi/server/WeakClassHashMap", INTERNAL),
            entry("container java/util/Map.get(Ljava/lang/Object;)Ljava/lang/Object; in sun/rmi/transport/tcp/TCPEndpoint", INTERNAL),
            entry("container java/util/concurrent/ConcurrentHashMap.computeIfAbsent(Ljava/lang/Object;"
                    + "Ljava/util/function/Function;)Ljava/lang/Object; in java/lang/invoke/ClassSpecializer", INTERNAL),
            entry("container java/util/concurrent/ConcurrentHashMap.putIfAbsent(Ljava/lang/Object;Ljava/lang/Object;)"
                    + "Ljava/lang/Object; in sun/nio/ch/FileLockTable", INTERNAL));

    private static JdkLockInventory.Result running;

    @BeforeAll
    static void scan() throws Exception {
        long start = System.nanoTime();
        running = JdkLockInventory.scanRunningJdk();
        System.out.printf("JDK %s: %d classes, %d monitorenter, %d findings, %d classes lock this, %d ms%n",
                Runtime.version(), running.classes(), running.monitorenters(), running.findings().size(),
                running.lockingThis().size(), (System.nanoTime() - start) / 1_000_000);
    }

    @Test
    void everyFindingOfThisJdkIsHandledOrADocumentedLimit() {
        assertAllKnown(running);
    }

    @Test
    void everyFindingOfJdk25IsHandledOrADocumentedLimit() throws Exception {
        assumeTrue(Files.isDirectory(JDK25), "Temurin 25 is not installed at " + JDK25);
        JdkLockInventory.Result r = JdkLockInventory.scanJdk(JDK25);
        System.out.printf("JDK 25: %d classes, %d monitorenter, %d findings%n", r.classes(), r.monitorenters(),
                r.findings().size());
        assertAllKnown(r);
    }

    /** The superclass rule's list of JDK classes that "never lock this" (MonitorModes) holds for this JDK. */
    @Test
    void noClassOnTheNeverLocksThisListLocksThis() throws Exception {
        Class<?> modes = Class.forName("org.dthreads.monitor.internal.MonitorModes");
        List<String> names = new ArrayList<>();
        for (Object c : (Collection<?>) staticField(modes, "NON_LOCKING_SUPERCLASSES")) {
            names.add(((Class<?>) c).getName());
        }
        names.addAll((Set<String>) staticField(modes, "NON_LOCKING_SUPERCLASS_NAMES"));
        assertTrue(names.contains("java.util.AbstractMap"), names.toString());
        for (String name : names) {
            assertFalse(running.lockingThis().contains(name.replace('.', '/')), name + " locks this in " + Runtime.version());
        }
    }

    /** The "native by class" findings: the tree lock is an instance of a JDK class, so its monitor is the JVM's. */
    @Test
    void theAwtTreeLockIsNativeByClass() {
        Object treeLock = new java.awt.Container().getTreeLock();
        assertFalse(treeLock.getClass() == Object.class);
        assertEquals(false, Monitors.isEmulated(treeLock), treeLock.getClass().getName());
    }

    /** The tool itself: it finds the three public ways of its fixture and nothing private. */
    @Test
    void theToolFindsAGetterAFieldSetFromAConstructorAndAParameter() throws Exception {
        String name = org.dthreads.monitor.inventory.fixture.SharedLockApi.class.getName();
        byte[] bytes;
        try (var in = getClass().getClassLoader().getResourceAsStream(name.replace('.', '/') + ".class")) {
            bytes = in.readAllBytes();
        }
        JdkLockInventory.Result r = JdkLockInventory.scanClassFiles(List.of(bytes),
                Set.of("org/dthreads/monitor/inventory/fixture"));
        String owner = name.replace('.', '/');
        assertEquals(Set.of("return " + owner + ".sharedLock()Ljava/lang/Object;", "field " + owner + ".lock Ljava/lang/Object;",
                "param 0 Ljava/lang/Object; of " + owner + ".lockedParameter(Ljava/lang/Object;)V"), r.findings().keySet());
        assertTrue(r.lockingThis().contains(owner));
        assertEquals(5, r.monitorenters());
    }

    private static Object staticField(Class<?> owner, String name) throws ReflectiveOperationException {
        Field f = owner.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(null);
    }

    private static void assertAllKnown(JdkLockInventory.Result r) {
        StringBuilder unknown = new StringBuilder();
        for (JdkLockInventory.Finding f : r.findings().values()) {
            if (!KNOWN.containsKey(f.key())) {
                unknown.append("\n  ").append(f.key()).append("\n      locked in ").append(f.lockedIn());
            }
        }
        assertEquals("", unknown.toString(), "findings neither handled nor a documented limit (review each: mark it in"
                + " NativeMarkVisitor or document it in docs/rewriter.md, then add it to KNOWN)");
    }
}
