package org.dthreads.iiop.support;

/**
 * Points javax.rmi (here from jboss-rmi-api, which JacORB needs) at the GlassFish ORB's delegates.
 */
public final class RmiDelegates {
    private RmiDelegates() {}

    public static void install() {
        System.setProperty("javax.rmi.CORBA.UtilClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.Util");
        System.setProperty("javax.rmi.CORBA.PortableRemoteObjectClass", "com.sun.corba.ee.impl.javax.rmi.PortableRemoteObject");
        System.setProperty("javax.rmi.CORBA.StubClass", "com.sun.corba.ee.impl.javax.rmi.CORBA.StubDelegateImpl");
    }
}
