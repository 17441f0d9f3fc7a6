package org.dthreads.iiop.support;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.dthreads.iiop.rmi.HopRemoteImpl;
import org.dthreads.iiop.rmi.RmiIiop;
import org.dthreads.internal.KernelLink;
import org.omg.CORBA.ORB;

/**
 * A site in its own JVM, started by {@link SiteProcess}. Args: {@code jacorb} (IDL servant on
 * JacORB) or {@code glassfish-rmi} (RMI-IIOP servant on the GlassFish ORB). Prints
 * {@code SITE <siteId>} and {@code IOR <ior>} on stdout, then serves until stdin closes.
 */
public final class SiteMain {

    private SiteMain() {}

    public static void main(String[] args) throws Exception {
        RmiDelegates.install();
        String kind = args[0];
        ORB orb;
        String ior;
        if (kind.equals("jacorb")) {
            orb = Orbs.init(Orbs.Kind.JACORB, true);
            ior = orb.object_to_string(Orbs.rootPoa(orb).servant_to_reference(new HopServant.CrossOrb()));
        } else if (kind.equals("glassfish-rmi")) {
            orb = Orbs.init(Orbs.Kind.GLASSFISH, true);
            Orbs.rootPoa(orb);
            ior = RmiIiop.export(orb, new HopRemoteImpl());
        } else {
            throw new IllegalArgumentException(kind);
        }
        Orbs.runInBackground(orb, "orb-run");
        System.out.println("SITE " + Integer.toHexString(KernelLink.siteId()) + " java " + Runtime.version().feature());
        System.out.println("IOR " + ior);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // serve until the parent closes stdin or dies
        }
        Runtime.getRuntime().halt(0);
    }
}
