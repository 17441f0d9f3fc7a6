package example.zigzag;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A remote ledger: {@code post} calls the auditor back while it holds the ledger's monitor. */
public interface Ledger extends Remote {
    int post(Auditor auditor) throws RemoteException;

    int balance() throws RemoteException;

    /** Called back by the ledger; reads the balance through the ledger's stub. */
    interface Auditor extends Remote {
        int audit() throws RemoteException;
    }
}
