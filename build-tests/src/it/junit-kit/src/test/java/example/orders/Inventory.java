package example.orders;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Site A: {@code order} bills through site B, which reads {@code stock} back while A holds the inventory. */
public interface Inventory extends Remote {
    String order(String item) throws RemoteException;

    int stock(String item) throws RemoteException;
}
