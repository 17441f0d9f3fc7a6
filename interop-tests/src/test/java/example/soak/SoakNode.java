package example.soak;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.List;

/** One site of the soak: a chain hop holding this site's monitor while it calls the next. */
public interface SoakNode extends Remote {
    long hop(List<SoakNode> route, int index, long token) throws RemoteException;
}
