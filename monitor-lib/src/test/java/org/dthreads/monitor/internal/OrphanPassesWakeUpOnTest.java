package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.dthreads.ThreadClass;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 §3.3: a release wakes only the head entrant ({@code wakeEntrants(false)}). If the head then finds its
 * levels frozen (it turned orphan) it parks again; the wake-up was meant for whoever can take the free monitor,
 * so it must be passed on, or the entrants behind sleep until their 50 ms backstop with the monitor free. The
 * entrants' threads are never started: an unpark of them is a no-op, their {@code signalled} flags tell who was
 * woken.
 */
class OrphanPassesWakeUpOnTest {
    private static final long A = ThreadClass.of(0x5256, 1);
    private static final long B = ThreadClass.of(0x5256, 2);

    @Test
    void anEntrantThatTurnsOrphanWithTheMonitorFreePassesTheWakeUpOn() {
        Monitor m = new Monitor(new Object());
        Entrant head = m.enqueue(new Thread(() -> { }), A);
        Entrant next = m.enqueue(new Thread(() -> { }), B);
        m.wakeEntrants(false); // a release's single wake-up
        assertTrue(head.signalled);
        assertFalse(next.signalled);
        m.markOrphan(head, true); // the head retried and found its levels frozen: it parks again
        assertTrue(next.signalled, "the wake-up died with the orphan while the monitor is free");
    }

    @Test
    void anEntrantThatTurnsOrphanWhileTheMonitorIsHeldWakesNobody() {
        Object key = new Object();
        Monitor m = new Monitor(key);
        assertTrue(m.tryEnterFast(new Actor(null), B, key));
        Entrant head = m.enqueue(new Thread(() -> { }), A);
        Entrant next = m.enqueue(new Thread(() -> { }), B);
        m.markOrphan(head, true);
        assertFalse(next.signalled, "nobody can take a held monitor: no wake-up to pass on");
    }
}
