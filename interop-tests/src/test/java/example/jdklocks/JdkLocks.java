package example.jdklocks;

import java.io.Writer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Issue 21's probes as a program, run plainly and under the agent by {@code JdkLockedObjectsAgentTest}:
 * application code holds a lock that JDK code also locks (a parallel-capable loader's
 * {@code getClassLoadingLock}, a Writer's own lock object) while another thread runs that JDK code.
 * Prints one line per probe: excluded (the JDK call waited) or not.
 */
public final class JdkLocks {
    private JdkLocks() {}

    interface Body {
        void run() throws Exception;
    }

    static final class PluginLoader extends ClassLoader {
        static {
            registerAsParallelCapable();
        }

        PluginLoader() {
            super(null);
        }

        void hold(String name, CountDownLatch holding, CountDownLatch release) throws InterruptedException {
            synchronized (getClassLoadingLock(name)) {
                holding.countDown();
                release.await();
            }
        }
    }

    static final class LockWriter extends Writer {
        LockWriter(Object lock) {
            super(lock);
        }

        @Override
        public void write(char[] buf, int off, int len) { }

        @Override
        public void flush() { }

        @Override
        public void close() { }
    }

    static void hold(Object lock, CountDownLatch holding, CountDownLatch release) throws InterruptedException {
        synchronized (lock) {
            holding.countDown();
            release.await();
        }
    }

    interface Holder {
        void hold(CountDownLatch holding, CountDownLatch release) throws Exception;
    }

    static String probe(Holder holder, Body jdk) throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread h = new Thread(() -> {
            try {
                holder.hold(holding, release);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        h.start();
        holding.await();
        Thread j = new Thread(() -> {
            try {
                jdk.run();
            } catch (Exception e) {
                // ClassNotFoundException: the probe only needs loadClass to take its lock
            }
            done.countDown();
        });
        j.start();
        boolean ranWhileHeld = done.await(1, TimeUnit.SECONDS);
        release.countDown();
        h.join();
        j.join();
        return ranWhileHeld ? "not excluded" : "excluded";
    }

    public static void main(String[] args) throws Exception {
        PluginLoader loader = new PluginLoader();
        System.out.println("class loading lock: " + probe((a, b) -> loader.hold("x.Target", a, b),
                () -> loader.loadClass("x.Target")));
        Object lock = new Object();
        Writer writer = new LockWriter(lock);
        System.out.println("writer lock: " + probe((a, b) -> hold(lock, a, b), () -> writer.write("abc", 0, 3)));
    }
}
