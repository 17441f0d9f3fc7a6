package org.dthreads.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.DThreads;
import org.dthreads.rmi.fixture.Echo;
import org.dthreads.rmi.fixture.EchoImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The no-agent mode: interfaces twinned at build time (here by a twinning class loader, as the
 * offline instrumenter would), a wrapped stub, real JRMP over loopback within this JVM.
 */
@Timeout(60)
class DThreadsRmiTest {

    @Test
    void aWrappedStubCarriesTheCallersClassWithoutTheAgent() throws Exception {
        ClassLoader twinned = new org.dthreads.rmi.internal.TwinningLoaderForTests(getClass().getClassLoader());
        Class<?> echoType = twinned.loadClass(Echo.class.getName());
        Remote impl = (Remote) twinned.loadClass(EchoImpl.class.getName()).getConstructor().newInstance();
        Remote stub = UnicastRemoteObject.exportObject(impl, 0);
        try {
            Method callerClass = echoType.getMethod("callerClass");
            Method concat = echoType.getMethod("concat", String.class, String.class);
            long mine = DThreads.currentClass();

            assertNotEquals(mine, (long) callerClass.invoke(stub), "control: a plain stub carries no class without the agent");

            Remote wrapped = DThreadsRmi.wrap(stub);
            assertEquals(mine, (long) callerClass.invoke(wrapped));
            assertEquals("ab", concat.invoke(wrapped, "a", "b"));
            assertTrue(DThreadsRmi.isWrapped(wrapped));
            assertSame(wrapped, DThreadsRmi.wrap(wrapped));
            assertSame(stub, DThreadsRmi.unwrap(wrapped));
            assertTrue(wrapped.equals(stub), "equals looks through the wrapper");
            assertEquals(stub.hashCode(), wrapped.hashCode());
        } finally {
            UnicastRemoteObject.unexportObject(impl, true);
        }
    }

    @Test
    void onlyJrmpStubsCanBeWrapped() {
        assertThrows(IllegalArgumentException.class, () -> DThreadsRmi.wrap(new Remote() { }));
    }
}
