package example.callbacks;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.List;

/** One hop of a route between sites; returns the trail of the hops from here on. */
public interface Relay extends Remote {

    /**
     * Visits this site and forwards to {@code route[index + 1]}.
     *
     * @param token names the route: which thread first visited each site, and the {@code ThreadLocal} value set there
     * @param mode what each visit holds across the forward: {@code vector} ({@code synchronized} on a
     *     {@code java.util.Vector}: a native-mode monitor), {@code out} ({@code synchronized (System.out)}),
     *     {@code wait} (the relay's own emulated monitor; a callback visit also waits on it until a fresh local
     *     thread notifies), {@code late} (as {@code vector}, but the first visit of a site other than the first
     *     takes 2 s before it forwards), {@code abba} (the first site's start holds one {@code Vector} while a
     *     local thread holds a second and waits for the first; the callback then takes the second), {@code none}
     */
    String hop(List<Relay> route, int index, String token, String mode) throws RemoteException;
}
