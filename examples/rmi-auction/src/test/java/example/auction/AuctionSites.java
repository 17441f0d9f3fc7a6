package example.auction;

import java.rmi.registry.LocateRegistry;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/** The example's two programs as test sites: the server, and the client with its two bidders. */
final class AuctionSites {

    private AuctionSites() {}

    /** Runs the auction server. */
    public static final class Server implements SiteApp {
        @Override
        public void start(SiteContext ctx) throws Exception {
            AuctionServer.export(ctx.createRegistry());
            ctx.publish("rmi.host", ctx.host());
        }
    }

    /** Step "bid": the bidders' session against the server site, returning what they heard. */
    public static final class Client implements SiteApp {
        @Override
        public void start(SiteContext ctx) {
            ctx.step("bid", args -> {
                String host = ctx.peerEndpoint("server", "rmi.host");
                int port = Integer.parseInt(ctx.peerEndpoint("server", "rmi.registry.port"));
                Auction auction = (Auction) LocateRegistry.getRegistry(host, port).lookup("auction");
                return String.join("\n", Bidder.run(auction));
            });
        }
    }
}
