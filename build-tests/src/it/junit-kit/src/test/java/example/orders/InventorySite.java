package example.orders;

import java.rmi.NotBoundException;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.HashMap;
import java.util.Map;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/** Site A: a synchronized inventory whose {@code order} calls billing at site B. */
public final class InventorySite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        Impl impl = new Impl(ctx);
        Inventory stub = (Inventory) UnicastRemoteObject.exportObject(impl, 0);
        impl.self = stub;
        ctx.createRegistry().rebind("inventory", stub);
        ctx.publish("rmi.host", ctx.host());
        ctx.step("order", args -> stub.order("book"));
    }

    static final class Impl implements Inventory {
        private final SiteContext ctx;
        private final Map<String, Integer> stock = new HashMap<>(Map.of("book", 3));
        volatile Inventory self;

        Impl(SiteContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public synchronized String order(String item) throws RemoteException {
            stock.merge(item, -1, Integer::sum);
            int port = Integer.parseInt(ctx.peerEndpoint("B", "rmi.registry.port"));
            try {
                Billing billing = (Billing) LocateRegistry.getRegistry(ctx.peerEndpoint("B", "rmi.host"), port).lookup("billing");
                return billing.charge(item, self);
            } catch (NotBoundException e) {
                throw new RemoteException("billing not bound", e);
            }
        }

        @Override
        public synchronized int stock(String item) {
            return stock.getOrDefault(item, 0);
        }
    }
}
