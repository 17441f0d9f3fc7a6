package org.dthreads.iiop.internal;

import com.sun.corba.ee.impl.protocol.ClientRequestDispatcherImpl;
import com.sun.corba.ee.spi.orb.DataCollector;
import com.sun.corba.ee.spi.orb.ORB;
import com.sun.corba.ee.spi.orb.ORBConfigurator;

/** Test-only GlassFish user configurator: registers a client request dispatcher of its own, as an application server might. */
public final class ForeignDispatcherConfigurator implements ORBConfigurator {

    public static final String PROPERTY = "com.sun.corba.ee.ORBUserConfigurators." + ForeignDispatcherConfigurator.class.getName();

    /** Someone else's dispatcher: the fast path must leave it alone. */
    public static final class Foreign extends ClientRequestDispatcherImpl {}

    @Override
    public void configure(DataCollector collector, ORB orb) {
        orb.getRequestDispatcherRegistry().registerClientRequestDispatcher(new Foreign(), 2);
    }
}
