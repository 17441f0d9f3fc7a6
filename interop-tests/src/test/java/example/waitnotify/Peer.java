package example.waitnotify;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site A's callback: notifies the monitor that A's first thread holds. */
public interface Peer extends Remote {
    String callBack(String from) throws RemoteException;
}
