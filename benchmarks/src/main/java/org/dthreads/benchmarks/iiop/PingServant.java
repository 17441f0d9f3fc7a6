package org.dthreads.benchmarks.iiop;

import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;

/**
 * The empty call and a call with an octet sequence as an IDL servant
 * ({@code interface Ping { void ping(); void take(in sequence<octet> data); }}), written by hand so
 * that the benchmarks need no IDL compiler. Callers use {@link #call}.
 */
public final class PingServant extends Servant implements InvokeHandler {

    static final String ID = "IDL:dthreads/bench/Ping:1.0";

    @Override
    public String[] _all_interfaces(POA poa, byte[] objectId) {
        return new String[] {ID};
    }

    @Override
    public OutputStream _invoke(String method, InputStream input, ResponseHandler handler) {
        if ("take".equals(method)) {
            byte[] data = new byte[input.read_ulong()];
            input.read_octet_array(data, 0, data.length);
        } else if (!"ping".equals(method)) {
            throw new org.omg.CORBA.BAD_OPERATION(method);
        }
        return handler.createReply();
    }

    /** One two-way call with {@code data} as an octet sequence, through the portable stub API. */
    static void take(org.omg.CORBA.portable.ObjectImpl target, byte[] data) {
        InputStream in = null;
        try {
            OutputStream out = target._request("take", true);
            out.write_ulong(data.length);
            out.write_octet_array(data, 0, data.length);
            in = target._invoke(out);
        } catch (org.omg.CORBA.portable.ApplicationException | org.omg.CORBA.portable.RemarshalException e) {
            throw new IllegalStateException(e);
        } finally {
            target._releaseReply(in);
        }
    }

    /** One empty two-way call through the portable stub API. */
    static void call(org.omg.CORBA.portable.ObjectImpl target) {
        InputStream in = null;
        try {
            in = target._invoke(target._request("ping", true));
        } catch (org.omg.CORBA.portable.ApplicationException | org.omg.CORBA.portable.RemarshalException e) {
            throw new IllegalStateException(e);
        } finally {
            target._releaseReply(in);
        }
    }
}
