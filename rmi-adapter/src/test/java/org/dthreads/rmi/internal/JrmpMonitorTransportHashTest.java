package org.dthreads.rmi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The transport's method hashes are constants (issue 16: no SHA-1 at the agent's start); they must stay right. */
class JrmpMonitorTransportHashTest {

    @Test
    void constantsAreTheJrmpHashesOfTheMethods() {
        assertEquals(Twins.methodHash(JrmpMonitorTransport.METHOD), JrmpMonitorTransport.METHOD_HASH);
        assertEquals(Twins.methodHash(JrmpMonitorTransport.DIAGNOSE_METHOD), JrmpMonitorTransport.DIAGNOSE_METHOD_HASH);
    }
}
