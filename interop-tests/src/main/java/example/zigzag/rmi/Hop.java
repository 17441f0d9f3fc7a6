package example.zigzag.rmi;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.List;

/**
 * A site on a call route. {@code forward} holds this site's monitors while it calls the next site
 * on the route; when the route comes back to a site, the returning call needs the monitors its own
 * chain already holds there: the zigzag.
 */
public interface Hop extends Remote {
    String forward(List<Hop> route, int index, String trail) throws RemoteException;

    /** Calls made so far (synchronized on the same monitor as forward). */
    int visits() throws RemoteException;
}
