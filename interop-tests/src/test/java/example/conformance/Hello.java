package example.conformance;

import java.io.Serializable;

/**
 * A small program for the agent's start-up footprint ({@code AgentStartFootprintTest}): one synchronized method in a
 * {@code Serializable} class without a {@code serialVersionUID} (the rewriter pins the default one), nothing else
 * that loads JDK subsystems.
 */
public final class Hello {

    static final class Counter implements Serializable {
        private int n;

        synchronized int next() {
            return ++n;
        }
    }

    private Hello() {}

    public static void main(String[] args) {
        Counter c = new Counter();
        c.next();
        System.out.println("hello " + c.next());
    }
}
