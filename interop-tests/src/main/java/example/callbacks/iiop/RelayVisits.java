package example.callbacks.iiop;

import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The visit logic of the IIOP relay sites ({@link JacorbRelaySite}, {@link GlassFishRelaySite}), as
 * {@code example.callbacks.RelaySite} has it for JRMP: each visit reports {@code SITE[thread,tl]} in the trail,
 * {@code thread} {@code first} for the route's first visit of this site, then {@code same} if
 * {@code Thread.currentThread()} is the first visitor's {@code Thread} object, else {@code other}; {@code tl}
 * {@code seen} if a {@code ThreadLocal} set by an earlier visit of the route on this site is visible, else
 * {@code fresh}. Modes: {@code vector} holds this site's {@code Vector}'s (native) monitor across the call and
 * takes it again in the callback; {@code late} is {@code vector} with a 2 s service at the first visit of every site
 * but the first (the caller's reply timeout passes meanwhile); {@code ticking} makes, at the first visit of every
 * site but the first, its call to the next site five times, 400 ms apart (callbacks keep coming for 2 s while the
 * caller waits for its reply); {@code none} holds nothing; {@code poa} also asks the
 * ORB, inside each served visit, before and after its own call, who is being served ({@code {poa}} when the answer
 * is this servant). The {@code Vector}'s entries are the site's journal.
 */
public final class RelayVisits {

    /** The next hop, or the ORB's own checks of the request being served. */
    public interface Step {
        String run() throws Exception;
    }

    private static final ThreadLocal<String> ROUTE = new ThreadLocal<>();
    private final String name;
    private final Vector<String> journal = new Vector<>();
    private final ConcurrentHashMap<String, Thread> firstVisitor = new ConcurrentHashMap<>();

    public RelayVisits(String name) {
        this.name = name;
    }

    /**
     * One visit.
     *
     * @param index the visit's place in the route (0: the step's own visit)
     * @param next the call to the next site, or null if this is the route's last visit
     * @param poa the servant's own POA check (a request being served), or null (the step's thread)
     */
    public String visit(String token, String mode, int index, Step next, Step poa) throws Exception {
        Thread me = Thread.currentThread();
        Thread first = firstVisitor.putIfAbsent(token, me);
        String thread = first == null ? "first" : first == me ? "same" : "other";
        String tl = token.equals(ROUTE.get()) ? "seen" : "fresh";
        ROUTE.set(token);
        String here = name + "[" + thread + "," + tl + "]";
        if (mode.equals("poa") && poa != null) {
            here += "{" + poa.run() + "}";
        }
        if (mode.equals("late") && index > 0 && first == null) {
            Thread.sleep(2000); // a service slower than the caller's reply timeout
        }
        if (mode.equals("ticking") && index > 0 && first == null && next != null) {
            StringBuilder trail = new StringBuilder(here);
            for (int i = 0; i < 5; i++) {
                trail.append(" > ").append(next.run());
                Thread.sleep(400); // a service that calls back now and then, slower in all than the reply timeout
            }
            return trail.toString();
        }
        if (mode.equals("vector") || mode.equals("late")) {
            synchronized (journal) { // a JDK collection that locks itself: native mode
                journal.add(here);
                return onward(here, next);
            }
        }
        String trail = onward(here, next);
        if (mode.equals("poa") && poa != null && next != null) {
            String after = poa.run(); // the ORB's answer once the nested calls (and callbacks) have returned
            if (!after.equals("poa")) {
                trail += " (after: " + after + ")";
            }
        }
        return trail;
    }

    /** The visits of {@code vector} and {@code late} routes on this site, in order. */
    public String journal() {
        return String.join(" ; ", new java.util.ArrayList<>(journal));
    }

    private static String onward(String here, Step next) throws Exception {
        return next == null ? here : here + " > " + next.run();
    }
}
