package org.dthreads.monitor.internal.rewriter;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.dthreads.internal.RateLimitedLog;

/**
 * Load-time rewriting of monitor operations ({@link MonitorRewriter}) for the classes in scope.
 *
 * <p>A class with nothing to rewrite but the marker ({@link ClassScan}) gets it without ASM
 * ({@link MarkerOnly}): most classes of a large application, so start-up pays a scan, not a parse.
 *
 * <p>Never throws and never stops the application: a class that cannot be rewritten is loaded as it
 * was (its objects then use the JVM's monitors), logged once per class. Thread-safe: the JVM calls
 * transformers concurrently; counters are atomic.
 */
public final class MonitorTransformer implements ClassFileTransformer {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(MonitorTransformer.class);

    private final Predicate<String> inScope;
    private final AtomicInteger rewritten = new AtomicInteger();
    private final AtomicInteger skipped = new AtomicInteger();
    private final AtomicInteger sites = new AtomicInteger();
    private final Map<ClassLoader, Boolean> prepared = new WeakHashMap<>();
    /** Rewritten classes kept between runs, if {@code -Ddthreads.cache} names a directory ({@link RewriteCache}). */
    private final RewriteCache cache = RewriteCache.fromSystemProperty();

    /** @param inScope whether a class (internal name) may be rewritten */
    public MonitorTransformer(Predicate<String> inScope) {
        this.inScope = inScope;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
            byte[] bytes) {
        if (className == null || redefined != null || !inScope.test(className)) {
            return null;
        }
        byte[] markedOnly = markerOnly(bytes);
        if (markedOnly != null) {
            rewritten.incrementAndGet();
            return markedOnly;
        }
        MonitorRewriter.Result result = cache != null ? cache.rewrite(bytes, loader) : MonitorRewriter.rewrite(bytes, loader);
        if (result.rewritten()) {
            if (!result.unrewritableSites().isEmpty()) {
                LOG.warn("unrewritable:" + className, "dthreads: " + className.replace('/', '.') + " reaches wait/notify/"
                        + "holdsLock/interrupt in a way that cannot be rewritten " + result.unrewritableSites() + "; there they"
                        + " act on the JVM's monitor, not the emulated one (an emulated object's wait/notify throws"
                        + " IllegalMonitorStateException even inside synchronized); see docs/rewriter.md, \"Known limits\"");
            }
            rewritten.incrementAndGet();
            sites.addAndGet(result.sites());
            prepare(loader);
            try {
                ClassScan.of(bytes).rewrittenAs(result.bytes()); // the scan markerOnly made: the next transformers share it
            } catch (RuntimeException notScanned) {
                // they scan the rewritten bytes themselves
            }
            return result.bytes();
        }
        if (!"already rewritten".equals(result.skipReason())) {
            skipped.incrementAndGet();
            LOG.warn("skip:" + className, "dthreads: " + className.replace('/', '.') + " is not rewritten ("
                    + result.skipReason() + "); its monitors stay the JVM's, so a zigzag through them can deadlock");
        }
        return null;
    }

    /**
     * Resolves, once per class loader, the classes a rewritten exit guard's handler names
     * ({@link ExitOverflowGuard}), so that the loader is already recorded as their initiating loader: where
     * the handler runs the stack is exhausted, and resolving them there would call {@code loadClass}.
     */
    private void prepare(ClassLoader loader) {
        if (loader == null) {
            return;
        }
        synchronized (prepared) {
            if (prepared.put(loader, Boolean.TRUE) != null) {
                return;
            }
        }
        ExitOverflowGuard.prepare(loader);
    }

    /**
     * The class with only the marker added when one scan shows it has nothing else to rewrite (most classes:
     * no ASM parse, no class hierarchy read), else null and the rewriter decides.
     */
    static byte[] markerOnly(byte[] bytes) {
        try {
            return MarkerOnly.addMarker(ClassScan.of(bytes));
        } catch (RuntimeException malformed) {
            return null; // the rewriter reports it as before
        }
    }

    /** One line for a debug summary: classes rewritten, skipped, and monitor sites replaced. */
    public String summary() {
        return rewritten.get() + " classes rewritten (" + sites.get() + " monitor sites), " + skipped.get() + " skipped"
                + (cache == null ? "" : "; " + cache);
    }
}
