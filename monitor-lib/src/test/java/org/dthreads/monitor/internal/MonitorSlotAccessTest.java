package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * How the runtime reads and CASes a monitor slot ({@link MonitorSlots.Slot}): through the field's offset where it may
 * (issue 16: a {@code VarHandle} the JIT cannot fold costs its generic guards per access), else through the handle;
 * both answer alike.
 */
class MonitorSlotAccessTest {

    /** A class of its own: its slot is computed here, not shared with other tests' classes. */
    static final class Slotted {
        @SuppressWarnings("unused") // written through the slot
        private transient Object $dthreads$monitor;
    }

    /** The slot is declared by the superclass: the offset is the superclass's field, valid in the subclass. */
    static class SlottedBase {
        @SuppressWarnings("unused") // written through the slot
        private transient Object $dthreads$monitor;
        long padding;
    }

    static final class SlottedChild extends SlottedBase {
        @SuppressWarnings("unused") // a lower declaration: stays null
        private transient Object $dthreads$monitor;
    }

    @Test
    void onThisJdkASlotIsReachedThroughItsOffset() {
        MonitorSlots.Slot slot = MonitorSlots.slotOf(new Slotted());
        assertEquals(Runtime.version().feature() < 23, slot.usesOffset(),
                "the offset up to Java 22, the handle from 23 on (sun.misc.Unsafe's memory access is deprecated there)");
    }

    @Test
    void offsetAndHandleAnswerAlike() {
        MonitorSlots.Slot slot = MonitorSlots.slotOf(new Slotted());
        for (MonitorSlots.Slot s : new MonitorSlots.Slot[] {slot, slot.throughHandle()}) {
            Slotted o = new Slotted();
            Object a = new Object();
            Object b = new Object();
            assertNull(s.getAcquire(o));
            assertTrue(s.compareAndSet(o, null, a));
            assertFalse(s.compareAndSet(o, null, b), "the slot holds a, not null");
            assertSame(a, s.getVolatile(o));
            assertSame(a, s.compareAndExchange(o, b, null), "a failed exchange answers the value it saw");
            assertSame(a, s.compareAndExchange(o, a, b), "a successful one answers the expected value");
            assertSame(b, s.getAcquire(o));
            s.setVolatile(o, null);
            assertNull(s.getAcquire(o));
        }
    }

    @Test
    void theTopmostDeclarationIsTheSlotThroughEitherPath() {
        SlottedChild child = new SlottedChild();
        MonitorSlots.Slot slot = MonitorSlots.slotOf(child);
        Object value = new Object();
        assertTrue(slot.compareAndSet(child, null, value));
        assertSame(value, MonitorSlots.slotOf(new SlottedBase()).throughHandle().getVolatile(child),
                "the offset is the superclass's field");
        assertSame(value, slot.throughHandle().getAcquire(child));
    }
}
