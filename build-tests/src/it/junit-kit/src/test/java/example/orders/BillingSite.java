package example.orders;

import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/** Site B: billing calls back the inventory that called it. */
public final class BillingSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Impl impl = new Impl();
        ctx.createRegistry().rebind("billing", UnicastRemoteObject.exportObject(impl, 0));
        ctx.publish("rmi.host", ctx.host());
    }

    static final class Impl implements Billing {
        private int invoices;

        @Override
        public synchronized String charge(String item, Inventory inventory) throws RemoteException {
            invoices++;
            return "invoice " + invoices + " for " + item + ", " + inventory.stock(item) + " left";
        }
    }
}
