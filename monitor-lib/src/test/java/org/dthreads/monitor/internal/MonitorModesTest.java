package org.dthreads.monitor.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Vector;
import org.dthreads.monitor.Rewritten;
import org.junit.jupiter.api.Test;

class MonitorModesTest {

    @Rewritten
    static class App {}

    @Rewritten
    static class AppSub extends App {}

    @Rewritten
    static class AppVector extends Vector<Object> {}

    @Rewritten
    static class AppList extends java.util.AbstractList<Object> {
        @Override
        public Object get(int index) {
            throw new IndexOutOfBoundsException();
        }

        @Override
        public int size() {
            return 0;
        }
    }

    @Rewritten
    enum AppEnum { A }

    @Rewritten
    record AppRecord(int x) {}

    static class NotRewritten {}

    @Test
    void emulated() {
        assertTrue(MonitorModes.isEmulated(new Object()));
        assertTrue(MonitorModes.isEmulated(new int[1]));
        assertTrue(MonitorModes.isEmulated(new Object[1]));
        assertTrue(MonitorModes.isEmulated("a string"));
        assertTrue(MonitorModes.isEmulated(42));
        assertTrue(MonitorModes.isEmulated(new App()));
        assertTrue(MonitorModes.isEmulated(new AppSub()));
        assertTrue(MonitorModes.isEmulated(new AppList()));
        assertTrue(MonitorModes.isEmulated(AppEnum.A));
        assertTrue(MonitorModes.isEmulated(new AppRecord(1)));
        assertTrue(MonitorModes.isEmulated(App.class), "static synchronized methods of rewritten classes");
    }

    @Test
    void nativeForWhatUnrewrittenCodeLocks() {
        assertFalse(MonitorModes.isEmulated(new Vector<>()));
        assertFalse(MonitorModes.isEmulated(Collections.synchronizedList(new ArrayList<>())));
        assertFalse(MonitorModes.isEmulated(System.out));
        assertFalse(MonitorModes.isEmulated(new PrintStream(System.err)));
        assertFalse(MonitorModes.isEmulated(Thread.currentThread()));
        assertFalse(MonitorModes.isEmulated(new StringBuffer()));
        assertFalse(MonitorModes.isEmulated(new NotRewritten()), "classes loaded before the agent / excluded");
        assertFalse(MonitorModes.isEmulated(new AppVector()), "Vector's own methods lock it natively");
        assertFalse(MonitorModes.isEmulated(String.class), "JDK Class objects");
        assertFalse(MonitorModes.isEmulated(NotRewritten.class));
    }
}
