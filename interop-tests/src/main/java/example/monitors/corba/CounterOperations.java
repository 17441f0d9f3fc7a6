package example.monitors.corba;

/**
 * The counter's operations, as the IDL-to-Java mapping would generate them for
 * {@code interface Counter { long get(); void set(in long v); };} (written by hand: no IDL compiler here).
 */
public interface CounterOperations {
    int get();

    void set(int v);
}
