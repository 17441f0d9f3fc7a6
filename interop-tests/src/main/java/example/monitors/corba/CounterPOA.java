package example.monitors.corba;

import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;

/**
 * The counter's skeleton, shaped as an IDL compiler generates a {@code FooPOA}: an {@link InvokeHandler}
 * whose {@code _invoke} dispatches on the operation name and answers an unknown one with
 * {@code BAD_OPERATION}. The dthreads agent patches {@code _invoke} so that remote monitor requests reach
 * the servant's monitor.
 */
public abstract class CounterPOA extends Servant implements InvokeHandler, CounterOperations {
    static final String[] IDS = {"IDL:example/monitors/Counter:1.0"};

    @Override
    public String[] _all_interfaces(POA poa, byte[] objectId) {
        return IDS.clone();
    }

    @Override
    public OutputStream _invoke(String method, InputStream in, ResponseHandler handler) {
        switch (method) {
            case "get": {
                int v = get();
                OutputStream out = handler.createReply();
                out.write_long(v);
                return out;
            }
            case "set": {
                set(in.read_long());
                return handler.createReply();
            }
            default:
                throw new BAD_OPERATION(method + " not found", 0, CompletionStatus.COMPLETED_NO);
        }
    }
}
