package org.dthreads.monitor.internal;

import static org.dthreads.monitor.internal.MonitorRuntime.LOG;

import java.util.ArrayList;
import java.util.List;

/**
 * Which local objects remote clients may lock (issue 15 §2). Every object a client can call through an
 * adapter that serves monitor operations is, by default, lockable by that client: {@code synchronized (stub)}
 * at the client holds the object's monitor at this site, excluding the site's own {@code synchronized}
 * methods on it. {@code -Ddthreads.monitor.remote=RULES} restricts that per class or package.
 *
 * <p>RULES is a comma-separated list, checked in order, first match wins, no match allows:
 * {@code -PATTERN} refuses, {@code +PATTERN} (or a bare PATTERN) allows. A PATTERN is a class name
 * ({@code com.example.Counter}, matching that class only), a package followed by {@code .*}
 * ({@code com.example.*}: the package and its sub-packages), or {@code *} (everything). Example: only the
 * counter, nothing else: {@code -Ddthreads.monitor.remote=+com.example.Counter,-*}. A malformed rule is
 * logged and skipped.
 *
 * <p>Immutable after construction; the JVM's policy is read once, from the system property.
 */
final class RemotePolicy {
    /** This JVM's policy. */
    static final RemotePolicy SITE = parse(System.getProperty("dthreads.monitor.remote"));

    private final List<String> patterns;
    private final List<Boolean> allows;

    private RemotePolicy(List<String> patterns, List<Boolean> allows) {
        this.patterns = patterns;
        this.allows = allows;
    }

    static RemotePolicy parse(String rules) {
        List<String> patterns = new ArrayList<>();
        List<Boolean> allows = new ArrayList<>();
        if (rules != null) {
            for (String raw : rules.split(",")) {
                String rule = raw.trim();
                if (rule.isEmpty()) {
                    continue;
                }
                boolean allow = rule.charAt(0) != '-';
                String pattern = rule.charAt(0) == '-' || rule.charAt(0) == '+' ? rule.substring(1).trim() : rule;
                if (pattern.isEmpty() || pattern.contains("*") && !pattern.equals("*") && !pattern.endsWith(".*")
                        || pattern.indexOf('*') != pattern.lastIndexOf('*')) {
                    LOG.warn("remote-policy-invalid", "dthreads: -Ddthreads.monitor.remote: ignored the malformed rule '"
                            + rule + "' (use +NAME or -NAME, NAME a class, a package followed by .*, or *)");
                    continue;
                }
                patterns.add(pattern);
                allows.add(allow);
            }
        }
        return new RemotePolicy(List.copyOf(patterns), List.copyOf(allows));
    }

    /** Whether remote clients may operate on the monitor of an instance of {@code className}. */
    boolean allows(String className) {
        for (int i = 0; i < patterns.size(); i++) {
            if (matches(patterns.get(i), className)) {
                return allows.get(i);
            }
        }
        return true;
    }

    private static boolean matches(String pattern, String className) {
        if (pattern.equals("*")) {
            return true;
        }
        if (pattern.endsWith(".*")) {
            String pkg = pattern.substring(0, pattern.length() - 1); // keeps the dot
            return className.startsWith(pkg);
        }
        return className.equals(pattern);
    }
}
