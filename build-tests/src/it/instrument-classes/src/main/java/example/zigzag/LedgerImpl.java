package example.zigzag;

import java.rmi.RemoteException;
import org.dthreads.rmi.DThreadsRmi;

/** Both methods synchronized: the auditor's call back into {@code balance} is the zigzag. */
public final class LedgerImpl implements Ledger {
    private int balance;

    @Override
    public synchronized int post(Auditor auditor) throws RemoteException {
        balance++;
        // without the agent, a JRMP proxy carries the caller's identity only when wrapped
        return DThreadsRmi.wrap(auditor).audit();
    }

    @Override
    public synchronized int balance() {
        return balance;
    }
}
