package org.dthreads.agent.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.dthreads.rmi.internal.RmiTransformer;

/**
 * Which classes the agent rewrites: every class except the platform, dthreads itself and
 * middleware it must not touch, adjusted by {@code -Ddthreads.include=} / {@code -Ddthreads.exclude=}
 * (comma-separated package prefixes) or the agent arguments {@code include=...;exclude=...}. An
 * include wins over a default exclude; an explicit exclude wins over everything.
 */
public final class AgentScope implements java.util.function.Predicate<String>, RmiTransformer.ScopeFilter {

    /** Built at run time: the shade plugin would relocate a literal to the agent's own shaded copy. */
    private static final String ASM_PACKAGE = String.join(".", "org", "objectweb", "asm", "");

    /** Never rewritten by default. */
    public static final List<String> DEFAULT_EXCLUDES = List.of("java.", "javax.", "jdk.", "sun.", "com.sun.",
            "org.dthreads.", "org.jacorb.", "org.omg.", "org.glassfish.", "com.sun.corba.", "org.slf4j.",
            "ch.qos.logback.", ASM_PACKAGE, "org.junit.", "org.opentest4j.", "org.apiguardian.",
            "org.awaitility.", "org.hamcrest.", "net.bytebuddy.", "org.apache.maven.");

    private final List<String> includes;
    private final List<String> excludes;

    AgentScope(List<String> includes, List<String> excludes) {
        this.includes = List.copyOf(includes);
        this.excludes = List.copyOf(excludes);
    }

    /** From the agent arguments ({@code include=a.,b.;exclude=c.}) and system properties. */
    public static AgentScope from(String agentArgs) {
        List<String> includes = new ArrayList<>(split(System.getProperty("dthreads.include")));
        List<String> excludes = new ArrayList<>(split(System.getProperty("dthreads.exclude")));
        if (agentArgs != null) {
            for (String part : agentArgs.split(";")) {
                String p = part.trim();
                if (p.startsWith("include=")) {
                    includes.addAll(split(p.substring("include=".length())));
                } else if (p.startsWith("exclude=")) {
                    excludes.addAll(split(p.substring("exclude=".length())));
                }
            }
        }
        return new AgentScope(includes, excludes);
    }

    private static List<String> split(String list) {
        if (list == null || list.isBlank()) {
            return List.of();
        }
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** The last answer: see {@link #includes}. */
    private record Answer(String internalName, boolean included) {}

    private volatile Answer last = new Answer(null, false);

    /**
     * {@link #includes}: the scope is handed to the transformers as itself, not as a method reference per
     * transformer (each a lambda class spun at start-up; issue 16, docs/benchmarks.md "Step 7").
     */
    @Override
    public boolean test(String internalName) {
        return includes(internalName);
    }

    /**
     * Whether the class is in scope. The agent's transformers ask one after the other about the class being loaded,
     * each with the same string: the last answer is kept and given again for that same string object (an immutable
     * pair, so a race between loading threads costs at most a recomputation); two of three computations per class
     * loaded saved (issue 16, start-up).
     *
     * @param internalName a class name with {@code /} separators
     */
    @Override
    public boolean includes(String internalName) {
        Answer known = last;
        if (known.internalName() == internalName) {
            return known.included();
        }
        boolean included = compute(internalName);
        last = new Answer(internalName, included);
        return included;
    }

    private boolean compute(String internalName) {
        String name = internalName.replace('/', '.');
        if (matches(excludes, name)) {
            return false;
        }
        if (matches(includes, name)) {
            return true;
        }
        return !matches(DEFAULT_EXCLUDES, name);
    }

    private static boolean matches(List<String> prefixes, String name) {
        for (String p : prefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "all classes except " + String.join(",", DEFAULT_EXCLUDES)
                + (includes.isEmpty() ? "" : "; including " + String.join(",", includes))
                + (excludes.isEmpty() ? "" : "; excluding " + String.join(",", excludes));
    }
}
