package org.dthreads.rmi.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;

/**
 * Whether an interface is a remote interface (extends {@code java.rmi.Remote}, directly or not),
 * decided from class bytes read through the defining loader, without loading any class: a
 * transformer must not load the classes it is asked about.
 *
 * <p>Thread-safe: per-loader caches in a synchronized weak map, each a concurrent map.
 */
final class RemoteHierarchy {

    private static final String REMOTE = "java/rmi/Remote";
    private static final Map<ClassLoader, Map<String, Boolean>> CACHES = new WeakHashMap<>();
    private static final Map<String, Boolean> BOOT_CACHE = new ConcurrentHashMap<>();

    private RemoteHierarchy() {}

    /** Whether the interface with these direct super-interfaces is remote. */
    static boolean extendsRemote(String[] superInterfaces, ClassLoader loader) {
        for (String s : superInterfaces) {
            if (isRemote(s, loader, 0)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The remote interfaces of {@code java.*} (JDK 17 to 25; RMI activation was removed in 17). Only the JDK may define
     * a {@code java.*} class, so every other {@code java.*} interface is not remote, decided without reading its class
     * file through the platform loader (the run-time image), which costs more than reading the application's own:
     * most application interfaces extend some ({@code Serializable}, {@code Comparable}, {@code Iterable}...).
     * {@code javax.*} is read as before: application jars define {@code javax.*} remote interfaces too
     * ({@code javax.ejb.EJBObject}).
     */
    private static final java.util.Set<String> JDK_REMOTE = java.util.Set.of(REMOTE, "java/rmi/registry/Registry",
            "java/rmi/dgc/DGC");

    private static boolean isRemote(String internalName, ClassLoader loader, int depth) {
        if (internalName.startsWith("java/")) {
            return JDK_REMOTE.contains(internalName);
        }
        if (depth > 64) {
            return false;
        }
        Map<String, Boolean> cache = cacheFor(loader);
        Boolean known = cache.get(internalName);
        if (known != null) {
            return known;
        }
        boolean remote = false;
        String[] supers = superInterfacesOf(internalName, loader);
        for (String s : supers) {
            if (isRemote(s, loader, depth + 1)) {
                remote = true;
                break;
            }
        }
        cache.put(internalName, remote);
        return remote;
    }

    private static String[] superInterfacesOf(String internalName, ClassLoader loader) {
        String resource = internalName + ".class";
        try (InputStream in = loader != null ? loader.getResourceAsStream(resource)
                : ClassLoader.getPlatformClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return new String[0];
            }
            return new ClassReader(in.readAllBytes()).getInterfaces();
        } catch (IOException | RuntimeException e) {
            return new String[0];
        }
    }

    private static Map<String, Boolean> cacheFor(ClassLoader loader) {
        if (loader == null) {
            return BOOT_CACHE;
        }
        synchronized (CACHES) { // no lambda: it would be spun while the first classes load (issue 16)
            Map<String, Boolean> cache = CACHES.get(loader);
            if (cache == null) {
                cache = new ConcurrentHashMap<>();
                CACHES.put(loader, cache);
            }
            return cache;
        }
    }
}
