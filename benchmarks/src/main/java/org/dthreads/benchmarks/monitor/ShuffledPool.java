package org.dthreads.benchmarks.monitor;

import java.util.Arrays;
import java.util.Collections;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * A pool of objects visited one after the other in a shuffled (but fixed) order, so each operation of a benchmark
 * touches an object the previous one did not: with a large pool, neither the caches nor a per-thread "last object"
 * shortcut help.
 */
final class ShuffledPool<T> {
    private final T[] objects;
    private int next;

    ShuffledPool(int size, Supplier<T> factory, IntFunction<T[]> array) {
        T[] o = array.apply(size);
        for (int i = 0; i < size; i++) {
            o[i] = factory.get();
        }
        Collections.shuffle(Arrays.asList(o), new Random(42));
        objects = o;
    }

    T next() {
        T o = objects[next];
        next = next + 1 == objects.length ? 0 : next + 1;
        return o;
    }
}
