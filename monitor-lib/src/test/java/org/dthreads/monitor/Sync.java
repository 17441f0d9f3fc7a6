package org.dthreads.monitor;

/**
 * The monitor operations a conformance scenario uses, implemented twice: by the JVM's own monitors and by
 * the emulation through {@link Monitors} exactly as rewritten bytecode calls it. Scenarios run against
 * both and must produce the same outcome.
 */
interface Sync {
    String name();

    /** {@code synchronized (o) { body }} */
    void locked(Object o, ThrowingRunnable body) throws Exception;

    void waitOn(Object o) throws InterruptedException;

    void waitOn(Object o, long millis) throws InterruptedException;

    void waitOn(Object o, long millis, int nanos) throws InterruptedException;

    void notifyOne(Object o);

    void notifyAll(Object o);

    boolean holdsLock(Object o);

    /** A lock object whose monitor this implementation uses (emulated for the emulation). */
    Object newLock();

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    Sync NATIVE = new Sync() {
        @Override
        public String name() {
            return "native";
        }

        @Override
        public void locked(Object o, ThrowingRunnable body) throws Exception {
            synchronized (o) {
                body.run();
            }
        }

        @Override
        public void waitOn(Object o) throws InterruptedException {
            o.wait();
        }

        @Override
        public void waitOn(Object o, long millis) throws InterruptedException {
            o.wait(millis);
        }

        @Override
        public void waitOn(Object o, long millis, int nanos) throws InterruptedException {
            o.wait(millis, nanos);
        }

        @Override
        public void notifyOne(Object o) {
            o.notify();
        }

        @Override
        public void notifyAll(Object o) {
            o.notifyAll();
        }

        @Override
        public boolean holdsLock(Object o) {
            return Thread.holdsLock(o);
        }

        @Override
        public Object newLock() {
            return new Object();
        }

        @Override
        public String toString() {
            return name();
        }
    };

    /** What the rewriter emits for {@code synchronized (o)}: emulated or native by the object's mode. */
    Sync EMULATED = new Sync() {
        @Override
        public String name() {
            return "emulated";
        }

        @Override
        public void locked(Object o, ThrowingRunnable body) throws Exception {
            if (Monitors.isEmulated(o)) {
                Monitors.enter(o);
                try {
                    body.run();
                } finally {
                    Monitors.exit(o);
                }
            } else {
                synchronized (o) {
                    body.run();
                }
            }
        }

        @Override
        public void waitOn(Object o) throws InterruptedException {
            Monitors.waitOn(o);
        }

        @Override
        public void waitOn(Object o, long millis) throws InterruptedException {
            Monitors.waitOn(o, millis);
        }

        @Override
        public void waitOn(Object o, long millis, int nanos) throws InterruptedException {
            Monitors.waitOn(o, millis, nanos);
        }

        @Override
        public void notifyOne(Object o) {
            Monitors.notifyOne(o);
        }

        @Override
        public void notifyAll(Object o) {
            Monitors.notifyAll(o);
        }

        @Override
        public boolean holdsLock(Object o) {
            return Monitors.holdsLock(o);
        }

        @Override
        public Object newLock() {
            return new RewrittenLock();
        }

        @Override
        public String toString() {
            return name();
        }
    };

    /** Stands for an application class the rewriter processed. */
    @Rewritten
    final class RewrittenLock {}
}
