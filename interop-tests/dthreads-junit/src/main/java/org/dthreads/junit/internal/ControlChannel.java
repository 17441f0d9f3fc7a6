package org.dthreads.junit.internal;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.dthreads.junit.SiteException;

/**
 * The test side of one site's control channel ({@link Protocol}): reads the site's stdout lines
 * that carry its token (HELLO, ENDPOINT, READY, REPLY, FAILED), keeps what they say (endpoints,
 * readiness, the start failure), sends requests on the site's stdin and matches the replies. Lines
 * without the token are the site's own output and go to {@link SiteProcess}'s tail.
 *
 * <h2>Threading contract</h2>
 * Thread-safe. {@link #onStdoutLine} runs on the site's stdout thread, and so do the HELLO and
 * endpoint callbacks it makes; {@link #siteEnded} on the site's exit thread. Every blocking method
 * returns as soon as the answer arrives or the site ends, the bounded ones also when the bound
 * passes.
 */
public final class ControlChannel {

    private final String name;
    private final String token;
    private final SiteProcess process;
    private final Runnable onHello;
    private final Consumer<Map<String, String>> onEndpoints;
    private final CompletableFuture<Void> hello = new CompletableFuture<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final Map<String, String> endpoints = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Object endpointSignal = new Object();
    private final Map<Long, CompletableFuture<String[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile long readyNanos;
    private volatile String startFailure;
    private volatile boolean controlEnabled;

    /**
     * The channel of site {@code name} speaking with {@code token}; {@code onHello} runs when the site's
     * runtime is up, {@code onEndpoints} with each batch of endpoints it publishes.
     */
    public ControlChannel(String name, String token, SiteProcess process, Runnable onHello,
            Consumer<Map<String, String>> onEndpoints) {
        this.name = name;
        this.token = token;
        this.process = process;
        this.onHello = onHello;
        this.onEndpoints = onEndpoints;
    }

    /** One line of the site's stdout. */
    public void onStdoutLine(String line) {
        Protocol.Message m = Protocol.parse(line, token).orElse(null);
        if (m == null) {
            process.outputLine(line);
            return;
        }
        try {
            switch (m.verb()) {
                case "HELLO" -> {
                    controlEnabled = !"control=false".equals(m.field(2));
                    hello.complete(null);
                    onHello.run();
                }
                case "ENDPOINT" -> addEndpoints(m.pairs(0));
                case "READY" -> {
                    addEndpoints(m.pairs(0));
                    readyNanos = System.nanoTime();
                    ready.complete(null);
                }
                case "REPLY" -> {
                    CompletableFuture<String[]> f = pending.remove(Long.parseLong(m.field(0)));
                    if (f != null) {
                        f.complete(new String[] {m.field(1), Protocol.decode(m.field(2) == null ? "" : m.field(2))});
                    }
                }
                case "FAILED" -> startFailure = Protocol.decode(m.field(0) == null ? "" : m.field(0));
                default -> process.keepLine(line);
            }
        } catch (RuntimeException e) {
            // malformed protocol line (garbage that happened to carry our token): keep it as output
            process.keepLine(line);
        }
    }

    private void addEndpoints(Map<String, String> add) {
        if (add.isEmpty()) {
            return;
        }
        endpoints.putAll(add);
        synchronized (endpointSignal) {
            endpointSignal.notifyAll();
        }
        onEndpoints.accept(add);
    }

    /** The site has ended: everything still waiting on it fails with its death message. */
    public void siteEnded() {
        SiteException death = new SiteException(name, deathMessage());
        ready.completeExceptionally(death);
        hello.completeExceptionally(death);
        pending.values().forEach(f -> f.completeExceptionally(death));
        pending.clear();
        synchronized (endpointSignal) {
            endpointSignal.notifyAll();
        }
    }

    /** "site A exited with code 1" plus the start failure and the output tails; for messages. */
    public String deathMessage() {
        return process.deathMessage(startFailure);
    }

    /** Waits for READY; fails with the site's death (a {@link SiteException} cause) if it ends first. */
    public void awaitReady(Duration timeout) throws ExecutionException, TimeoutException, InterruptedException {
        ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** When READY arrived ({@link System#nanoTime()}), or 0 if it has not (yet). */
    public long readyNanos() {
        return readyNanos;
    }

    public String startFailure() {
        return startFailure;
    }

    public boolean controlEnabled() {
        return controlEnabled;
    }

    /** Whether the site's runtime said HELLO (and the site has not ended before it did). */
    public boolean isHelloDone() {
        return hello.isDone() && !hello.isCompletedExceptionally();
    }

    /** Throws if the site said HELLO without a control channel ({@code SiteSpec.controlChannel(false)}). */
    public void requireControl() {
        if (!controlEnabled && hello.isDone()) {
            throw new SiteException(name, "site " + name + " has no control channel (SiteSpec.controlChannel(false))");
        }
    }

    public Map<String, String> endpoints() {
        synchronized (endpoints) {
            return Map.copyOf(endpoints);
        }
    }

    /** The endpoint {@code key}, waiting up to {@code timeout}; see {@code Site.endpoint}. */
    public String awaitEndpoint(String key, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (endpointSignal) {
            while (true) {
                String v = endpoints.get(key);
                if (v != null) {
                    return v;
                }
                if (!process.isAlive() && process.hasEnded()) {
                    throw new SiteException(name, "no endpoint '" + key + "': " + deathMessage());
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SiteException(name, "site " + name + " published no endpoint '" + key + "' within "
                            + timeout.toMillis() + " ms; it has " + endpoints().keySet());
                }
                try {
                    endpointSignal.wait(Math.max(1, Math.min(left / 1_000_000, 200)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SiteException(name, "interrupted", e);
                }
            }
        }
    }

    /**
     * Sends {@code verb id fields...} and waits for its REPLY ({status, text}), without a bound if
     * {@code timeout} is null.
     */
    public String[] request(String verb, Duration timeout, String... fields) throws TimeoutException {
        long id = ids.incrementAndGet();
        CompletableFuture<String[]> f = new CompletableFuture<>();
        pending.put(id, f);
        if (!process.isAlive()) {
            pending.remove(id);
            throw new SiteException(name, deathMessage());
        }
        process.send(verb + " " + id + (fields.length > 0 ? " " + String.join(" ", fields) : ""));
        try {
            return timeout == null ? f.get() : f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof SiteException se ? new SiteException(name, se.getMessage(), se)
                    : new SiteException(name, String.valueOf(c), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SiteException(name, "interrupted waiting for site " + name, e);
        } finally {
            pending.remove(id);
        }
    }
}
