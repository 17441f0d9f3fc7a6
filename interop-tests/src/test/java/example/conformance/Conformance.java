package example.conformance;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Vector;

/**
 * Plain Java monitor semantics, printed as deterministic lines: the same output is expected without
 * dthreads, with the agent, and after the offline instrumenter. The last line is {@link Probe}'s
 * verdict (native or emulated monitors), which differs between those modes on purpose.
 */
public final class Conformance {

    private int counter;
    private final Object lock = new Object();
    private int blockCounter;

    synchronized void increment() {
        counter++;
    }

    void incrementInBlock() {
        synchronized (lock) {
            blockCounter++;
        }
    }

    synchronized int reenter(int depth) {
        if (!Thread.holdsLock(this)) {
            throw new IllegalStateException("not held at depth " + depth);
        }
        return depth == 0 ? 0 : 1 + reenter(depth - 1);
    }

    /** A bounded buffer with wait/notifyAll. */
    static final class Buffer {
        private final int[] items = new int[8];
        private int head;
        private int size;

        synchronized void put(int v) throws InterruptedException {
            while (size == items.length) {
                wait();
            }
            items[(head + size) % items.length] = v;
            size++;
            notifyAll();
        }

        synchronized int take() throws InterruptedException {
            while (size == 0) {
                wait();
            }
            int v = items[head];
            head = (head + 1) % items.length;
            size--;
            notifyAll();
            return v;
        }
    }

    public static void main(String[] args) throws Exception {
        Conformance c = new Conformance();
        List<String> out = new ArrayList<>();

        runAll(4, () -> {
            for (int i = 0; i < 20_000; i++) {
                c.increment();
                c.incrementInBlock();
            }
        });
        out.add("synchronized method count: " + c.counter);
        out.add("synchronized block count: " + c.blockCounter);

        Buffer buffer = new Buffer();
        int producers = 4;
        int consumers = 4;
        int perProducer = 2_500;
        long[] consumedSum = new long[consumers];
        int[] consumedCount = new int[consumers];
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            threads.add(new Thread(() -> {
                try {
                    for (int i = 1; i <= perProducer; i++) {
                        buffer.put(base + i);
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (int k = 0; k < consumers; k++) {
            int me = k;
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < perProducer; i++) {
                        consumedSum[me] += buffer.take();
                        consumedCount[me]++;
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        long sum = 0;
        int count = 0;
        for (int k = 0; k < consumers; k++) {
            sum += consumedSum[k];
            count += consumedCount[k];
        }
        out.add("producer/consumer: " + count + " items, sum " + sum + ", left " + buffer.size);

        out.add("re-entrant depth: " + c.reenter(25) + ", held after: " + Thread.holdsLock(c));

        Object guarded = new Object();
        try {
            synchronized (guarded) {
                if (Thread.holdsLock(guarded)) {
                    throw new IllegalArgumentException("thrown while holding");
                }
            }
        } catch (IllegalArgumentException e) {
            out.add("exception while holding: " + e.getMessage() + ", held after: " + Thread.holdsLock(guarded));
        }
        boolean[] otherGot = new boolean[1];
        Thread other = new Thread(() -> {
            synchronized (guarded) {
                otherGot[0] = true;
            }
        });
        other.start();
        other.join(10_000);
        out.add("released after exception: " + otherGot[0]);

        Vector<Integer> vector = new Vector<>();
        Thread adder = new Thread(() -> {
            for (int i = 0; i < 2_000; i++) {
                vector.add(i);
            }
        });
        adder.start();
        int iterations = 0;
        boolean cme = false;
        while (adder.isAlive() || iterations == 0) {
            try {
                synchronized (vector) {
                    long s = 0;
                    for (Integer v : vector) {
                        s += v;
                    }
                    if (s < 0) {
                        throw new IllegalStateException();
                    }
                }
            } catch (ConcurrentModificationException e) {
                cme = true;
            }
            iterations++;
        }
        adder.join();
        out.add("vector iteration under its lock: size " + vector.size() + ", concurrent modification " + cme);

        Thread worker = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        worker.start();
        synchronized (worker) {
            while (worker.isAlive()) {
                worker.wait(); // join-style: the JVM notifies a Thread's waiters when it ends
            }
        }
        out.add("join-style wait on a thread: alive " + worker.isAlive());

        Object timed = new Object();
        long t0 = System.nanoTime();
        synchronized (timed) {
            timed.wait(50);
        }
        out.add("timed wait returned: " + ((System.nanoTime() - t0) >= 40_000_000L));

        try {
            timed.notifyAll();
            out.add("notify without the lock: no exception");
        } catch (IllegalMonitorStateException e) {
            out.add("notify without the lock: IllegalMonitorStateException");
        }

        out.forEach(System.out::println);
        System.out.println("probe: " + Probe.verdict());
    }

    private static void runAll(int n, Runnable body) throws InterruptedException {
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ts[i] = new Thread(body);
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }
}
