package example.callbacks.edges;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The RMI-IIOP remote interface of {@link GlassFishEdgeSite}: one operation of {@link EdgeScenes}. */
public interface IiopEdges extends Remote {

    String call(String op, String arg) throws RemoteException;
}
