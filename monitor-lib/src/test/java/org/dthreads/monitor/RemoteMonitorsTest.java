package org.dthreads.monitor;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class RemoteMonitorsTest {

    /** Stands for a stub class of an adapter. */
    static final class FakeStub {}

    static final class FakeTransport implements RemoteMonitorTransport {
        @Override
        public boolean handles(Object target) {
            return target instanceof FakeStub;
        }

        @Override
        public long enter(Object target, long threadClass) {
            return 1;
        }

        @Override
        public void exit(Object target, long threadClass, long token) {}

        @Override
        public void await(Object target, long threadClass, long token, long timeoutMillis, int nanos) {}

        @Override
        public void notify(Object target, long threadClass, long token, boolean all) {}

        @Override
        public boolean renew(Object target, long token) {
            return true;
        }
    }

    @Test
    void findsTheTransportThatHandlesATarget() {
        FakeTransport transport = new FakeTransport();
        RemoteMonitors.register(transport);
        try {
            assertSame(transport, RemoteMonitors.transportFor(new FakeStub()));
            assertNull(RemoteMonitors.transportFor(new Object()), "local objects have no transport");
        } finally {
            RemoteMonitors.unregister(transport);
        }
        assertNull(RemoteMonitors.transportFor(new FakeStub()));
    }
}
