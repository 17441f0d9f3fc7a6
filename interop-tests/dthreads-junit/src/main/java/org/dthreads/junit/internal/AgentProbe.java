package org.dthreads.junit.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;

/**
 * Inside a site launched with the dthreads agent: is the agent running? The agent logs a failed
 * start-up and lets the application run without it; a site in that state would pass most tests on
 * the ORB-initializer path alone. The probe defines a tiny class (in a package no agent scope
 * excludes, in a throwaway class loader, so it is always a fresh definition) and checks that the
 * agent's rewriter marked it with {@code @org.dthreads.monitor.Rewritten}, which it adds to every
 * class in scope loaded after its start-up. It reads the agent's public marker only, nothing of its
 * internals. Called once, on the site's main thread, before the application class loads.
 */
public final class AgentProbe {

    /** The probe class's internal name: outside the agent's default excludes ({@code org.dthreads.} and others). */
    static final String PROBE_NAME = "dthreadsjunitprobe/AgentProbe";
    static final String MARKER = "org.dthreads.monitor.Rewritten";

    private AgentProbe() {}

    /** Why the agent is not running, or null if it rewrites classes. */
    public static String problem() {
        Class<? extends Annotation> marker;
        try {
            marker = Class.forName(MARKER, false, null).asSubclass(Annotation.class);
        } catch (ClassNotFoundException | LinkageError | ClassCastException e) {
            return "its runtime (" + MARKER + ") is not on the bootstrap class path: the agent's start-up failed"
                    + " before installing it";
        }
        Class<?> probe = new ProbeLoader().define(probeClass());
        return probe.isAnnotationPresent(marker) ? null : "a class defined after start-up ("
                + PROBE_NAME.replace('/', '.') + ") is not rewritten: the agent's transformers are not installed";
    }

    /** {@code public class dthreadsjunitprobe.AgentProbe {}}: no members, so it needs no constructor. */
    static byte[] probeClass() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(0xCAFEBABE);
            out.writeShort(0); // minor
            out.writeShort(52); // Java 8
            out.writeShort(5); // constant pool count: 4 entries
            out.writeByte(1); // #1 Utf8
            out.writeUTF(PROBE_NAME);
            out.writeByte(7); // #2 Class #1
            out.writeShort(1);
            out.writeByte(1); // #3 Utf8
            out.writeUTF("java/lang/Object");
            out.writeByte(7); // #4 Class #3
            out.writeShort(3);
            out.writeShort(0x0021); // ACC_PUBLIC | ACC_SUPER
            out.writeShort(2); // this
            out.writeShort(4); // super
            out.writeShort(0); // interfaces
            out.writeShort(0); // fields
            out.writeShort(0); // methods
            out.writeShort(0); // attributes
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class ProbeLoader extends ClassLoader {
        ProbeLoader() {
            super("dthreads-agent-probe", ClassLoader.getSystemClassLoader());
        }

        Class<?> define(byte[] b) {
            // named: the JVM gives a transformer no class name for a class defined without one, and the agent's
            // skip such classes
            return defineClass(PROBE_NAME.replace('/', '.'), b, 0, b.length);
        }
    }
}
