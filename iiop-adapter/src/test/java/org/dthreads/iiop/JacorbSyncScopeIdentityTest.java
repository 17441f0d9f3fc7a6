package org.dthreads.iiop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.Properties;
import org.awaitility.Awaitility;
import org.dthreads.iiop.support.HopServant;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.iiop.testidl.Hop;
import org.dthreads.iiop.testidl.HopHelper;
import org.dthreads.internal.KernelLink;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;

/**
 * The class a JacORB oneway carries, by its {@code SyncScope} ({@code jacorb.default_sync_scope} of the client ORB):
 * a oneway whose caller waits until the servant has returned ({@code SYNC_WITH_TARGET}) is a call of the caller's
 * class, as a two-way; the others ({@code NONE}, {@code TRANSPORT}, {@code SERVER}: the caller goes on before the
 * servant runs) carry a fresh class. The multi-JVM callbacks of such oneways: {@code IiopOriginalThreadOnewayTest}.
 */
class JacorbSyncScopeIdentityTest {

    @ParameterizedTest
    @ValueSource(strings = {"NONE", "TRANSPORT", "SERVER", "TARGET"})
    void aOnewayCarriesTheCallersClassOnlyWhenItsCallerWaitsForTheTarget(String scope) throws Exception {
        ORB server = Orbs.init(Orbs.Kind.JACORB, true);
        Properties cp = Orbs.props(Orbs.Kind.JACORB, true);
        cp.setProperty("jacorb.default_sync_scope", scope);
        ORB client = Orbs.init(cp);
        try {
            Orbs.runInBackground(server, "server");
            POA poa = Orbs.rootPoa(server);
            HopServant servant = new HopServant();
            Hop hop = HopHelper.unchecked_narrow(client.string_to_object(
                    server.object_to_string(poa.servant_to_reference(servant))));
            long me = KernelLink.currentClass();
            hop.fire();
            if (scope.equals("TARGET")) {
                assertEquals(me, servant.lastOneway(), "the servant has run when fire() returns, as the caller's class");
            } else {
                long fired = Awaitility.await().atMost(Duration.ofSeconds(10)).until(servant::lastOneway, v -> v != 0);
                assertNotEquals(me, fired, "another logical thread");
            }
        } finally {
            Orbs.shutdown(client);
            Orbs.shutdown(server);
        }
    }
}
