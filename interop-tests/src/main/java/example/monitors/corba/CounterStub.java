package example.monitors.corba;

import org.omg.CORBA.UNKNOWN;
import org.omg.CORBA.portable.ApplicationException;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.RemarshalException;

/** The counter's client stub, shaped as an IDL compiler generates a portable {@code _FooStub}. */
public final class CounterStub extends ObjectImpl implements CounterOperations {

    /** Narrows {@code ref} (a reference to a counter) to a stub, as a generated {@code FooHelper.narrow} does. */
    public static CounterStub narrow(org.omg.CORBA.Object ref) {
        CounterStub stub = new CounterStub();
        stub._set_delegate(((ObjectImpl) ref)._get_delegate());
        return stub;
    }

    @Override
    public String[] _ids() {
        return CounterPOA.IDS.clone();
    }

    @Override
    public int get() {
        for (;;) {
            InputStream in = null;
            try {
                in = _invoke(_request("get", true));
                return in.read_long();
            } catch (RemarshalException e) {
                // forwarded: again
            } catch (ApplicationException e) {
                throw new UNKNOWN("unexpected user exception " + e.getId());
            } finally {
                _releaseReply(in);
            }
        }
    }

    @Override
    public void set(int v) {
        for (;;) {
            InputStream in = null;
            try {
                OutputStream out = _request("set", true);
                out.write_long(v);
                in = _invoke(out);
                return;
            } catch (RemarshalException e) {
                // forwarded: again
            } catch (ApplicationException e) {
                throw new UNKNOWN("unexpected user exception " + e.getId());
            } finally {
                _releaseReply(in);
            }
        }
    }
}
