package example.callbacks.edges;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The RMI-IIOP remote interface of {@link GlassFishScenesSite}: the one operation of its {@link Scenes}. */
public interface IiopEdges extends Remote {

    String call(String op, String arg) throws RemoteException;
}
