package org.dthreads.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Logging for runtime paths: at most one line per key and interval, with a count of what was
 * suppressed. Runtime code never throws at the application; it logs here and degrades.
 *
 * <p>Writes through {@link System.Logger}, so it needs nothing on the bootstrap path and reaches
 * SLF4J when the application installs a {@code System.LoggerFinder} bridge (for example
 * {@code org.slf4j:slf4j-jdk-platform-logging}).
 *
 * <p>Thread-safe. Keys should be constants (one per kind of event): the table of keys is never pruned.
 */
public final class RateLimitedLog {

    /** Where lines go; tests capture them. */
    @FunctionalInterface
    public interface Sink {
        void write(Level level, String line);
    }

    /** Default interval between two lines with the same key. */
    public static final long DEFAULT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Sink sink;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

    /** Guarded by its own monitor: a window is touched only by threads logging the same key. */
    private static final class Window {
        long openedAt;
        long suppressed;
        boolean fresh = true;
    }

    public RateLimitedLog(Sink sink, long intervalNanos, LongSupplier nanoClock) {
        this.sink = sink;
        this.intervalNanos = intervalNanos;
        this.nanoClock = nanoClock;
    }

    /** A log named after {@code owner}, writing to {@link System.Logger}, one line per key a minute. */
    public static RateLimitedLog forClass(Class<?> owner) {
        return new RateLimitedLog(new LoggerSink(owner.getName()), DEFAULT_INTERVAL_NANOS, NanoClock.INSTANCE);
    }

    /**
     * {@link System.Logger} as a sink, the logger looked up at the first line. Classes, not a lambda and a method
     * reference, and the look-up deferred: {@link #forClass} runs in the static initializers of the runtime at the
     * agent's start, where each lambda spun a hidden class and each look-up set up the JDK's lazy loggers (issue
     * 16), for logs that mostly never write. Thread-safe: racing first lines may look the logger up twice, and
     * get the same one.
     */
    private static final class LoggerSink implements Sink {
        private final String name;
        private volatile System.Logger logger;

        LoggerSink(String name) {
            this.name = name;
        }

        @Override
        public void write(Level level, String line) {
            System.Logger l = logger;
            if (l == null) {
                l = System.getLogger(name); // the caller's module is this class's: the runtime's, as before
                logger = l;
            }
            l.log(level, line);
        }
    }

    /** {@code System::nanoTime} as a class (also {@link PeerSites}'). */
    static final class NanoClock implements LongSupplier {
        static final NanoClock INSTANCE = new NanoClock();

        @Override
        public long getAsLong() {
            return System.nanoTime();
        }
    }

    /**
     * Writes {@code message} unless a line with the same key was written less than the interval
     * ago; returns whether it was written. Never throws.
     */
    public boolean log(Level level, String key, String message) {
        try {
            Window w = windows.computeIfAbsent(key, k -> new Window());
            long suppressed;
            synchronized (w) {
                long now = nanoClock.getAsLong();
                if (!w.fresh && now - w.openedAt < intervalNanos) {
                    w.suppressed++;
                    return false;
                }
                w.fresh = false;
                w.openedAt = now;
                suppressed = w.suppressed;
                w.suppressed = 0;
            }
            sink.write(level, suppressed == 0 ? message
                    : message + " (" + suppressed + " similar lines suppressed since the last one)");
            return true;
        } catch (Throwable t) {
            return false; // logging must never break the caller
        }
    }

    public boolean warn(String key, String message) {
        return log(Level.WARNING, key, message);
    }

    public boolean error(String key, String message) {
        return log(Level.ERROR, key, message);
    }

    /** Not rate-limited: for one-off lines such as start-up. */
    public void info(String message) {
        once(Level.INFO, message);
    }

    /**
     * Not rate-limited: for a warning its caller already writes once per event (once per ORB, say), where a key
     * per event would grow the table of keys for ever.
     */
    public void warnOnce(String message) {
        once(Level.WARNING, message);
    }

    private void once(Level level, String message) {
        try {
            sink.write(level, message);
        } catch (Throwable ignored) {
            // never break the caller
        }
    }
}
