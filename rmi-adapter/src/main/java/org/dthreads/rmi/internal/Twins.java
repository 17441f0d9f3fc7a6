package org.dthreads.rmi.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Naming and hashing of <em>twin</em> remote methods.
 *
 * <p>For a remote method {@code R m(A a, B b) throws E} the rewriter adds to the same remote
 * interface {@code default R m-dthreads(long threadClass, A a, B b) throws E}, which binds the
 * caller's class for the call and calls {@code m}. The {@code -} makes the name legal in class
 * files but impossible to declare in Java source, so a twin can never collide with a user method.
 * JRMP identifies a method by a hash of its name and descriptor (RMI specification 8.3); the twin
 * therefore has its own hash, which a server without dthreads rejects before running anything.
 */
public final class Twins {

    /** Appended to a remote method's name to name its twin. */
    public static final String SUFFIX = "-dthreads";

    /** Descriptor of the invisible annotation that marks an interface whose twins were added. */
    public static final String MARKER_DESCRIPTOR = "Lorg/dthreads/rmi/internal/Twinned;";

    private Twins() {}

    public static boolean isTwinName(String methodName) {
        return methodName.endsWith(SUFFIX);
    }

    public static String twinName(String methodName) {
        return methodName + SUFFIX;
    }

    /**
     * The twin's descriptor or generic signature: a {@code long} prepended to the parameters. A
     * generic signature may start with type parameters ({@code <T:...>(...)...}), which contain no
     * {@code '('}, so the parameter list is the first {@code '('}.
     */
    public static String twinDescriptor(String descriptorOrSignature) {
        int params = descriptorOrSignature.indexOf('(');
        return descriptorOrSignature.substring(0, params + 1) + "J" + descriptorOrSignature.substring(params + 1);
    }

    /** The JRMP method hash (RMI specification 8.3) of a name and descriptor. */
    public static long methodHash(String name, String descriptor) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA");
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(name + descriptor);
            }
            byte[] digest = sha.digest(bytes.toByteArray());
            long hash = 0;
            for (int i = 0; i < 8; i++) {
                hash += ((long) (digest[i] & 0xFF)) << (i * 8);
            }
            return hash;
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot compute an RMI method hash", e);
        }
    }

    /** The JRMP method hash of {@code method}. */
    public static long methodHash(Method method) {
        return methodHash(method.getName(), descriptor(method));
    }

    /** The JVM descriptor of {@code method} (no ASM: this class runs on the bootstrap path). */
    public static String descriptor(Method method) {
        StringBuilder d = new StringBuilder("(");
        for (Class<?> p : method.getParameterTypes()) {
            d.append(p.descriptorString());
        }
        return d.append(')').append(method.getReturnType().descriptorString()).toString();
    }
}
