package example.zigzag;

import java.rmi.RemoteException;
import org.dthreads.rmi.DThreadsRmi;

/** Audits by asking the ledger for its balance: a call back into the ledger's monitor. */
public final class AuditorImpl implements Ledger.Auditor {
    private final Ledger ledger;

    public AuditorImpl(Ledger ledger) {
        this.ledger = DThreadsRmi.wrap(ledger);
    }

    @Override
    public int audit() throws RemoteException {
        return ledger.balance();
    }
}
