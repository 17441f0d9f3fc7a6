package example.zigzag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.dthreads.rmi.DThreadsRmi;
import org.junit.jupiter.api.Test;

/**
 * Runs without -javaagent: the classes were rewritten by dthreads:instrument at process-classes.
 * Without them rewritten, the auditor's call back into the synchronized ledger blocks forever.
 */
class ZigzagTest {

    @Test
    void theClassesAreRewritten() {
        assertTrue(java.util.Arrays.stream(LedgerImpl.class.getDeclaredMethods()).noneMatch(
                m -> java.lang.reflect.Modifier.isSynchronized(m.getModifiers())),
                "synchronized methods are emulated after dthreads:instrument, so none is left synchronized");
    }

    @Test
    void theJrmpZigzagCompletesWithoutTheAgent() throws Exception {
        LedgerImpl ledgerImpl = new LedgerImpl();
        Ledger ledger = (Ledger) UnicastRemoteObject.exportObject(ledgerImpl, 0);
        AuditorImpl auditorImpl = new AuditorImpl(ledger);
        Ledger.Auditor auditor = (Ledger.Auditor) UnicastRemoteObject.exportObject(auditorImpl, 0);
        ExecutorService caller = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "zigzag-caller");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<Integer> posted = caller.submit(() -> DThreadsRmi.wrap(ledger).post(auditor));
            try {
                assertEquals(1, posted.get(20, TimeUnit.SECONDS));
            } catch (TimeoutException deadlock) {
                StringBuilder dump = new StringBuilder();
                for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                    dump.append(t);
                }
                fail("the zigzag deadlocked (classes not rewritten?); threads:\n" + dump);
            }
        } finally {
            caller.shutdownNow();
            UnicastRemoteObject.unexportObject(auditorImpl, true);
            UnicastRemoteObject.unexportObject(ledgerImpl, true);
        }
    }
}
