package org.dthreads.rmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.dthreads.rmi.fixture.Echo;
import org.junit.jupiter.api.Test;

class TwinsTest {

    @Test
    void hashesMatchTheJdksOwnRmiMethodHash() throws Exception {
        // sun.rmi.server.Util is opened to the tests by the surefire configuration.
        Method jdkHash = Class.forName("sun.rmi.server.Util").getMethod("computeMethodHash", Method.class);
        int checked = 0;
        for (Method m : Echo.class.getMethods()) {
            assertEquals((long) jdkHash.invoke(null, m), Twins.methodHash(m), m.toString());
            checked++;
        }
        assertTrue(checked >= 7);
    }

    @Test
    void twinNamesCannotBeDeclaredInJavaSource() {
        assertEquals("echo-dthreads", Twins.twinName("echo"));
        assertTrue(Twins.isTwinName("echo-dthreads"));
        assertTrue(!Character.isJavaIdentifierPart('-'));
    }

    @Test
    void twinDescriptorPrependsALong() {
        assertEquals("(JLjava/lang/String;)Ljava/lang/String;", Twins.twinDescriptor("(Ljava/lang/String;)Ljava/lang/String;"));
        assertEquals("(J)V", Twins.twinDescriptor("()V"));
        assertEquals("<T::Ljava/lang/Comparable<TT;>;>(JLjava/util/List<TT;>;)Ljava/util/List<TT;>;",
                Twins.twinDescriptor("<T::Ljava/lang/Comparable<TT;>;>(Ljava/util/List<TT;>;)Ljava/util/List<TT;>;"));
    }

    @Test
    void descriptorsAreTheJvmOnes() throws Exception {
        assertEquals("(IJDZ)D", Twins.descriptor(Echo.class.getMethod("mix", int.class, long.class, double.class, boolean.class)));
        assertEquals("(Ljava/util/List;)Ljava/util/List;", Twins.descriptor(Echo.class.getMethod("sorted", java.util.List.class)));
    }
}
