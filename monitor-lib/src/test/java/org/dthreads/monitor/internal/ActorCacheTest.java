package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Actor#current}'s cache by thread id in front of its thread-local: a thread always gets its own actor (the
 * thread-local's), whoever else shares its index; a dead thread's entry is replaced by a live one and dropped by
 * {@link Actor#pruneDead}. A cache of one entry makes every thread share the index.
 */
@Timeout(30)
class ActorCacheTest {

    @Test
    void theCachedActorIsTheThreadLocalOne() throws InterruptedException {
        Actor mine = Actor.current();
        assertSame(mine, Actor.current());
        assertSame(Thread.currentThread(), mine.thread);
        AtomicReference<Actor> other = new AtomicReference<>();
        Thread t = new Thread(() -> other.set(Actor.current()));
        t.start();
        t.join();
        assertSame(t, other.get().thread);
        assertSame(mine, Actor.current());
    }

    @Test
    void aLiveThreadKeepsItsEntryAndASecondThreadOnTheSameIndexStillGetsItsOwnActor() throws InterruptedException {
        Actor[] cache = new Actor[1];
        Actor mine = Actor.current(cache);
        assertSame(mine, cache[0]);
        AtomicReference<Actor> other = new AtomicReference<>();
        AtomicReference<Actor> otherAgain = new AtomicReference<>();
        Thread t = new Thread(() -> {
            other.set(Actor.current(cache));
            otherAgain.set(Actor.current(cache));
        });
        t.start();
        t.join();
        assertSame(t, other.get().thread);
        assertSame(other.get(), otherAgain.get());
        assertSame(mine, cache[0]); // not overwritten by the second live thread
        assertSame(mine, Actor.current(cache));
        assertSame(Actor.current(), mine); // the same actor as without the cache
    }

    @Test
    void aDeadThreadsEntryIsReplacedAndPruned() throws InterruptedException {
        Actor[] cache = new Actor[1];
        Thread t = new Thread(() -> Actor.current(cache));
        t.start();
        t.join();
        assertSame(t, cache[0].thread);
        Actor mine = Actor.current(cache);
        assertSame(mine, cache[0]); // the dead thread's entry was taken over

        Actor[] other = new Actor[1];
        Thread v = new Thread(() -> Actor.current(other));
        v.start();
        v.join();
        Actor.pruneDead(other);
        assertNull(other[0]);
        Actor.pruneDead(cache);
        assertSame(mine, cache[0]); // a live thread's entry stays
    }
}
