package example.callbacks.iiop;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The RMI-IIOP relay ({@link GlassFishRelaySite}): {@code route} is the IORs of the route's sites, space-separated. */
public interface IiopRelay extends Remote {

    String hop(String route, int index, String token, String mode) throws RemoteException;
}
