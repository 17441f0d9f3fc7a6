package org.dthreads.rmi.internal;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.rewriter.ClassScan;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * The load-time JRMP retrofit: twins into remote interfaces, the prologue into
 * {@code RemoteObjectInvocationHandler}, hook calls into legacy {@code *_Stub} classes, twin service into
 * rmic skeletons ({@link SkeletonPatch}); and, so that
 * twinned interfaces stay valid for RMI-IIOP, the GlassFish ORB's stub generator accepts default methods
 * ({@link ProxyCodegenPatch}).
 *
 * <p>Which classes to patch is decided from a {@link ClassScan} (the one the monitor transformer made of the same
 * class on the same thread), so a class the retrofit does not touch is never parsed here.
 *
 * <p>Never throws: a class that cannot be rewritten is left as it was (returning {@code null}) and
 * logged once per kind of failure; its calls then go without thread identity. Thread-safe: the JVM
 * calls transformers concurrently from loading threads.
 */
public final class RmiTransformer implements ClassFileTransformer {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(RmiTransformer.class);
    private final ScopeFilter scope;
    /**
     * Set when a retransformation-capable transformer patches {@code RemoteObjectInvocationHandler} instead (an attach
     * that finds it loaded; {@link RmiAgentSupport}): this one then leaves it alone, so that a redefinition, which
     * both would see, does not patch it twice.
     */
    volatile boolean invocationHandlerPatchedElsewhere;

    /** Which classes the retrofit may touch (by internal name). */
    @FunctionalInterface
    public interface ScopeFilter {
        boolean includes(String internalName);
    }

    public RmiTransformer(ScopeFilter scope) {
        this.scope = scope;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
            byte[] bytes) {
        if (className == null) {
            return null;
        }
        try {
            if (InvocationHandlerPatch.TARGET.equals(className)) {
                return invocationHandlerPatchedElsewhere ? null : patchInvocationHandler(bytes);
            }
            if (ProxyCodegenPatch.TARGET.equals(className)) {
                return patchProxyCodegen(bytes);
            }
            if (!scope.includes(className)) {
                return null;
            }
            // the scan the monitor transformer made of this class (shared, see ClassScan), not an ASM parse
            ClassScan scan = ClassScan.of(bytes);
            if ((scan.access() & Opcodes.ACC_INTERFACE) != 0) {
                return RemoteHierarchy.extendsRemote(scan.interfaces(), loader) ? twin(new ClassReader(bytes), className) : null;
            }
            if (LegacyStubPatch.REMOTE_STUB.equals(scan.superName())) {
                return patchLegacyStub(new ClassReader(bytes));
            }
            if (java.util.Arrays.asList(scan.interfaces()).contains(SkeletonPatch.SKELETON)) {
                return patchSkeleton(new ClassReader(bytes));
            }
            return null;
        } catch (Throwable t) {
            LOG.error("rmi-rewrite-failed", "dthreads: could not rewrite " + className.replace('/', '.')
                    + " for JRMP identity; it is left unchanged and its calls carry no thread class: " + t);
            return null;
        }
    }

    /** Adds twins to a remote interface; null if nothing to add. */
    static byte[] twin(ClassReader reader, String className) {
        int version = readVersion(reader);
        if (version < Opcodes.V1_8) {
            LOG.warn("old-remote-interface", "dthreads: remote interface " + className.replace('/', '.')
                    + " is compiled for Java " + (version - 44) + " (class version " + version
                    + "); twins need Java 8 default methods, so its calls carry no thread class");
            return null;
        }
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected String getCommonSuperClass(String type1, String type2) {
                return "java/lang/Object"; // twins merge no reference types; never load app classes
            }
        };
        RemoteInterfaceTwinner twinner = new RemoteInterfaceTwinner(writer);
        reader.accept(twinner, 0);
        return twinner.rewritten() ? writer.toByteArray() : null;
    }

    static byte[] patchInvocationHandler(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        InvocationHandlerPatch patch = new InvocationHandlerPatch(writer);
        reader.accept(patch, ClassReader.EXPAND_FRAMES);
        if (!patch.patched()) {
            LOG.error("roih-shape", "dthreads: RemoteObjectInvocationHandler.invokeRemoteMethod not found on this JDK;"
                    + " JRMP proxy calls carry no thread class");
            return null;
        }
        return writer.toByteArray();
    }

    static byte[] patchProxyCodegen(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected String getCommonSuperClass(String type1, String type2) {
                return "java/lang/Object"; // the added method merges no reference types; never load ORB classes
            }
        };
        ProxyCodegenPatch patch = new ProxyCodegenPatch(writer);
        reader.accept(patch, 0);
        if (patch.callSites() == 0) {
            LOG.warn("pfl-shape", "dthreads: the GlassFish ORB's stub generator (" + ProxyCodegenPatch.TARGET.replace('/', '.')
                    + ") has an unknown shape; RMI-IIOP stubs of remote interfaces with JRMP twins may fail to load"
                    + " (work-around: -D" + RmiAgentSupport.NO_TWINS_PROPERTY + "=<package>)");
            return null;
        }
        return writer.toByteArray();
    }

    static byte[] patchSkeleton(ClassReader reader) {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        SkeletonPatch patch = new SkeletonPatch(writer);
        reader.accept(patch, ClassReader.EXPAND_FRAMES);
        return patch.patched() ? writer.toByteArray() : null;
    }

    static byte[] patchLegacyStub(ClassReader reader) {
        ClassWriter writer = new ClassWriter(reader, 0);
        LegacyStubPatch patch = new LegacyStubPatch(writer);
        reader.accept(patch, 0);
        return patch.callSites() > 0 ? writer.toByteArray() : null;
    }

    private static int readVersion(ClassReader reader) {
        return reader.readUnsignedShort(6) & 0xFFFF;
    }
}
