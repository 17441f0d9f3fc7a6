package org.dthreads.iiop.internal;

import com.sun.corba.ee.impl.interceptors.ORBInitInfoImpl;
import com.sun.corba.ee.impl.protocol.ClientRequestDispatcherImpl;
import com.sun.corba.ee.impl.protocol.ServerRequestDispatcherImpl;
import com.sun.corba.ee.spi.orb.ORB;
import com.sun.corba.ee.spi.protocol.ClientRequestDispatcher;
import com.sun.corba.ee.spi.protocol.RequestDispatcherRegistry;
import com.sun.corba.ee.spi.protocol.ServerRequestDispatcher;
import java.util.ArrayList;
import java.util.List;
import org.omg.PortableInterceptor.ORBInitInfo;

/**
 * Installs the GlassFish ORB fast path on one ORB, from {@code DThreadsOrbInitializer.pre_init}: the
 * GlassFish ORB runs the ORB initializers after its own configurators (and any user configurator), so
 * the request dispatcher registry is complete and no request has been dispatched yet. Every subcontract
 * id whose dispatcher is the ORB's stock {@code ClientRequestDispatcherImpl} /
 * {@code ServerRequestDispatcherImpl} gets the dthreads subclass ({@link GlassFishClientDispatcher},
 * {@link GlassFishServerDispatcher}).
 *
 * <p>Guard: if a dispatcher is someone else's (an application server's, a user configurator's), or the
 * ORB's classes do not link against the 4.2.5 API this was built on, nothing is replaced and the caller
 * falls back to the portable interceptors. Called on the thread that initializes the ORB.
 */
final class GlassFishFastPath {

    static final String INIT_INFO_CLASS = "com.sun.corba.ee.impl.interceptors.ORBInitInfoImpl";

    /** Subcontract ids looked at; the 4.2.5 ORB registers 2 and 32..45. */
    private static final int MAX_SUBCONTRACT_ID = 64;

    private GlassFishFastPath() {}

    /**
     * @return null if installed, otherwise why not (nothing was changed)
     */
    static String install(ORBInitInfo info) {
        ORB orb = ((ORBInitInfoImpl) info).getORB();
        RequestDispatcherRegistry registry = orb.getRequestDispatcherRegistry();
        List<Integer> clientIds = new ArrayList<>();
        List<Integer> serverIds = new ArrayList<>();
        for (int id = 0; id < MAX_SUBCONTRACT_ID; id++) {
            ClientRequestDispatcher c = registry.getClientRequestDispatcher(id);
            if (c != null && c.getClass() != ClientRequestDispatcherImpl.class
                    && !(c instanceof GlassFishClientDispatcher)) {
                return "the client request dispatcher of subcontract " + id + " is " + c.getClass().getName()
                        + ", not the ORB's own";
            }
            if (c != null) {
                clientIds.add(id);
            }
            ServerRequestDispatcher s = registry.getServerRequestDispatcher(id);
            if (s != null && s.getClass() == ServerRequestDispatcherImpl.class) {
                serverIds.add(id);
            } else if (s != null && !(s instanceof GlassFishServerDispatcher)) {
                return "the server request dispatcher of subcontract " + id + " is " + s.getClass().getName()
                        + ", not the ORB's own";
            }
        }
        if (clientIds.isEmpty() || serverIds.isEmpty()) {
            return "no request dispatchers registered";
        }
        GlassFishClientDispatcher client = new GlassFishClientDispatcher();
        GlassFishServerDispatcher server = new GlassFishServerDispatcher(orb);
        for (int id : clientIds) {
            registry.registerClientRequestDispatcher(client, id);
        }
        for (int id : serverIds) {
            registry.registerServerRequestDispatcher(server, id);
        }
        return null;
    }
}
