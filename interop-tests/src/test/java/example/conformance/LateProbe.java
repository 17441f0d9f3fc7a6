package example.conformance;

/** Prints {@link Probe}'s verdict (loaded early by {@link EarlyAgent}) and a later class's. */
public final class LateProbe {
    public static void main(String[] args) {
        System.out.println("early: " + Probe.verdict());
        System.out.println("late: " + new Later().check());
    }

    static final class Later {
        synchronized String check() {
            return Probe.monitorOf(this, Thread.holdsLock(this));
        }
    }
}
