package org.dthreads.iiop.support;

import org.dthreads.internal.KernelLink;
import org.omg.CORBA.ARG_IN;
import org.omg.CORBA.Any;
import org.omg.CORBA.BAD_OPERATION;
import org.omg.CORBA.NVList;
import org.omg.CORBA.ORB;
import org.omg.CORBA.OctetSeqHelper;
import org.omg.CORBA.ServerRequest;
import org.omg.CORBA.TCKind;
import org.omg.PortableServer.DynamicImplementation;
import org.omg.PortableServer.POA;

/**
 * A DSI servant with one operation, {@code long long take(in long long a, in sequence<octet> data)}:
 * keeps the arguments and returns the class it runs under.
 */
public final class SinkServant extends DynamicImplementation {

    public volatile long lastA;
    public volatile byte[] lastData;

    @Override
    public String[] _all_interfaces(POA poa, byte[] objectId) {
        return new String[] {"IDL:org/dthreads/test/Sink:1.0"};
    }

    @Override
    public void invoke(ServerRequest request) {
        if (!"take".equals(request.operation())) {
            throw new BAD_OPERATION(request.operation());
        }
        ORB orb = _orb();
        NVList args = orb.create_list(2);
        Any a = orb.create_any();
        a.type(orb.get_primitive_tc(TCKind.tk_longlong));
        args.add_value("a", a, ARG_IN.value);
        Any data = orb.create_any();
        data.type(OctetSeqHelper.type());
        args.add_value("data", data, ARG_IN.value);
        request.arguments(args);
        lastA = a.extract_longlong();
        lastData = OctetSeqHelper.extract(data);
        Any result = orb.create_any();
        result.insert_longlong(KernelLink.currentClass());
        request.set_result(result);
    }
}
