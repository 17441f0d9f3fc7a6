package example.conformance;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.rmi.RemoteException;
import java.rmi.UnexpectedException;
import java.rmi.server.RemoteRef;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** A static stub in the shape {@code rmic -v1.2} generated: the instrumenter patches its {@code ref.invoke} calls. */
@SuppressWarnings({"deprecation", "removal"})
public final class EchoLegacyStub extends java.rmi.server.RemoteStub implements EchoSite.Echo {
    private static final long serialVersionUID = 2L;
    private static final Method ECHO;
    private static final long ECHO_HASH;

    static {
        try {
            ECHO = EchoSite.Echo.class.getMethod("echo", String.class);
            ECHO_HASH = hash("echo(Ljava/lang/String;)Ljava/lang/String;");
        } catch (NoSuchMethodException | IOException | NoSuchAlgorithmException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public EchoLegacyStub(RemoteRef ref) {
        super(ref);
    }

    /** The JRMP method hash: the first 8 bytes (little-endian) of the SHA-1 of the UTF name and descriptor. */
    public static long hash(String nameAndDescriptor) throws IOException, NoSuchAlgorithmException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(nameAndDescriptor);
        }
        byte[] sha = MessageDigest.getInstance("SHA").digest(bytes.toByteArray());
        long h = 0;
        for (int i = 0; i < Math.min(8, sha.length); i++) {
            h += (long) (sha[i] & 0xFF) << (i * 8);
        }
        return h;
    }

    @Override
    public String echo(String s) throws RemoteException {
        try {
            return (String) ref.invoke(this, ECHO, new Object[] {s}, ECHO_HASH);
        } catch (RuntimeException | RemoteException e) {
            throw e;
        } catch (Exception e) {
            throw new UnexpectedException("undeclared checked exception", e);
        }
    }
}
