package org.dthreads.junit.internal;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIServerSocketFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * The site runtime inside a site JVM. Its control thread is a daemon that takes no lock that
 * application code can hold: it reads stdin, and every answer is written with one
 * {@code write(2)} to file descriptor 1 under a private lock, so dumps keep coming while the
 * application is deadlocked.
 */
public final class SiteRuntimeImpl implements SiteContext {

    /** System property naming the class whose static {@code String dump()} gives the dthreads monitor dump. */
    public static final String MONITOR_DUMP_CLASS_PROPERTY = "dthreads.site.monitorDumpClass";
    public static final String DEFAULT_MONITOR_DUMP_CLASS = "org.dthreads.monitor.MonitorDump";
    /** System property: {@code false} makes the site ignore commands (dumps then come from jcmd). */
    public static final String CONTROL_PROPERTY = "dthreads.site.control";
    public static final int START_FAILED_EXIT = 70;
    /**
     * System property the kit sets for a site launched with the dthreads agent: the site checks that the agent
     * runs ({@link AgentProbe}) and otherwise ends with {@link #AGENT_NOT_RUNNING_EXIT} before the application starts.
     */
    public static final String EXPECT_AGENT_PROPERTY = "dthreads.site.expectAgent";
    public static final int AGENT_NOT_RUNNING_EXIT = 71;

    private static volatile SiteRuntimeImpl current;

    private final String name;
    private final String token;
    private final List<String> args;
    private final boolean control;
    private final FileOutputStream out = new FileOutputStream(FileDescriptor.out);
    private final Object outLock = new Object();
    private final Map<String, Step> steps = new ConcurrentHashMap<>();
    private final Map<String, String> peers = new ConcurrentHashMap<>();
    private final Object peerLock = new Object();
    private final AtomicBoolean ready = new AtomicBoolean();
    private final AtomicBoolean registryCreated = new AtomicBoolean();
    private final AtomicInteger workers = new AtomicInteger();

    private SiteRuntimeImpl(String name, String token, List<String> args, boolean control) {
        this.name = name;
        this.token = token;
        this.args = List.copyOf(args);
        this.control = control;
    }

    public static SiteRuntimeImpl current() {
        return current;
    }

    public static void main(String[] argv) {
        if (argv.length < 4 || !(argv[2].equals("app") || argv[2].equals("main"))) {
            System.err.println("usage: SiteMain <site-name> <token> app|main <class-name> [args...]");
            Runtime.getRuntime().halt(2);
        }
        List<String> rest = Arrays.asList(argv).subList(4, argv.length);
        SiteRuntimeImpl rt = new SiteRuntimeImpl(argv[0], argv[1], rest,
                !"false".equals(System.getProperty(CONTROL_PROPERTY)));
        current = rt;
        rt.startControlThread();
        rt.emit("HELLO", "pid=" + ProcessHandle.current().pid(), "protocol=" + Protocol.VERSION,
                "control=" + rt.control);
        if (Boolean.getBoolean(EXPECT_AGENT_PROPERTY)) {
            rt.checkAgent();
        }
        try {
            Class<?> cls = Class.forName(argv[3], true, ClassLoader.getSystemClassLoader());
            if (argv[2].equals("app")) {
                SiteApp app = (SiteApp) cls.getDeclaredConstructor().newInstance();
                app.start(rt);
                rt.ready();
                rt.parkForever();
            } else {
                Method m = cls.getMethod("main", String[].class);
                if (!Modifier.isStatic(m.getModifiers())) {
                    throw new NoSuchMethodException(argv[3] + ".main is not static");
                }
                m.invoke(null, (Object) rest.toArray(new String[0]));
                rt.ready();
            }
        } catch (Throwable t) {
            Throwable cause = t instanceof InvocationTargetException && t.getCause() != null ? t.getCause() : t;
            System.err.println("dthreads site " + argv[0] + " failed to start:");
            cause.printStackTrace();
            System.err.flush();
            System.out.flush();
            rt.emit("FAILED", Protocol.encode(stackTrace(cause)));
            Runtime.getRuntime().halt(START_FAILED_EXIT);
        }
    }

    /** Ends the site if the dthreads agent it was launched with does not run (its start-up failed). */
    private void checkAgent() {
        String problem;
        try {
            problem = AgentProbe.problem();
        } catch (RuntimeException | LinkageError e) {
            problem = "the probe failed: " + e;
        }
        if (problem == null) {
            return;
        }
        String message = "dthreads site " + name + ": launched with the dthreads agent, but the agent is not running: "
                + problem + " (the agent's own start-up messages are above on stderr)";
        System.err.println(message);
        System.err.flush();
        emit("FAILED", Protocol.encode(message));
        Runtime.getRuntime().halt(AGENT_NOT_RUNNING_EXIT);
    }

    private void parkForever() {
        Object never = new Object();
        synchronized (never) {
            while (true) {
                try {
                    never.wait();
                } catch (InterruptedException e) {
                    // a site runs until told to exit or killed
                }
            }
        }
    }

    // ---- SiteContext

    @Override
    public String siteName() {
        return name;
    }

    @Override
    public List<String> args() {
        return args;
    }

    @Override
    public String host() {
        return System.getProperty("java.rmi.server.hostname", "127.0.0.1");
    }

    @Override
    public void publish(String key, String value) {
        if (key == null || key.isEmpty() || value == null) {
            throw new IllegalArgumentException("endpoint key and value must be non-empty/non-null");
        }
        emit("ENDPOINT", Protocol.pair(key, value));
    }

    @Override
    public String peerEndpoint(String site, String key, Duration timeout) {
        String k = site + '\u0000' + key;
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (peerLock) {
            while (true) {
                String v = peers.get(k);
                if (v != null) {
                    return v;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException("site " + name + ": no endpoint '" + key + "' from site '" + site
                            + "' within " + timeout.toMillis() + " ms");
                }
                try {
                    peerLock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + site + "/" + key, e);
                }
            }
        }
    }

    @Override
    public void step(String stepName, Step step) {
        if (stepName == null || stepName.isEmpty() || stepName.contains(" ")) {
            throw new IllegalArgumentException("step name must be non-empty and without spaces: " + stepName);
        }
        steps.put(stepName, step);
    }

    @Override
    public Registry createRegistry() throws RemoteException {
        if (!registryCreated.compareAndSet(false, true)) {
            throw new IllegalStateException("createRegistry() was already called on site " + name);
        }
        PortRecordingFactory f = new PortRecordingFactory();
        Registry r = LocateRegistry.createRegistry(0, null, f);
        publish("rmi.registry.port", Integer.toString(f.port));
        return r;
    }

    @Override
    public void ready() {
        if (ready.compareAndSet(false, true)) {
            emit("READY");
        }
    }

    /** Records the port the registry's server socket got. */
    private static final class PortRecordingFactory implements RMIServerSocketFactory, Serializable {
        private static final long serialVersionUID = 1L;
        volatile int port;

        @Override
        public ServerSocket createServerSocket(int requested) throws IOException {
            ServerSocket s = new ServerSocket(requested);
            port = s.getLocalPort();
            return s;
        }
    }

    // ---- control channel

    private void emit(String verb, String... fields) {
        byte[] bytes = Protocol.line(token, verb, fields).getBytes(StandardCharsets.UTF_8);
        synchronized (outLock) {
            try {
                out.write(bytes);
            } catch (IOException e) {
                // the test is gone; stdin EOF ends this JVM
            }
        }
    }

    private void reply(String id, boolean ok, String payload) {
        emit("REPLY", id, ok ? "OK" : "ERR", Protocol.encode(payload == null ? "" : payload));
    }

    private void startControlThread() {
        Thread t = new Thread(this::controlLoop, "dthreads-site-control");
        t.setDaemon(true);
        t.start();
    }

    private void controlLoop() {
        LineReader in = new LineReader(new FileInputStream(FileDescriptor.in), 1 << 20);
        try {
            String line;
            while ((line = in.readLine()) != null) {
                try {
                    if (control) {
                        handle(Protocol.splitCommand(line));
                    }
                } catch (RuntimeException e) {
                    System.err.println("dthreads site " + name + ": bad command ignored: " + e);
                }
            }
        } catch (IOException e) {
            // fall through: stdin gone
        }
        // stdin closed: the test JVM is gone (or closed us). Do not outlive it, nor let our children.
        try {
            ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
        } catch (RuntimeException e) {
            // best effort
        }
        Runtime.getRuntime().halt(0);
    }

    private void handle(List<String> cmd) {
        if (cmd.isEmpty()) {
            return;
        }
        switch (cmd.get(0)) {
            case "PING" -> reply(cmd.get(1), true, "pong");
            case "THREADS" -> worker("threads", () -> reply(cmd.get(1), true, ThreadDumps.dumpThisJvm()));
            case "MONITORS" -> worker("monitors", () -> reply(cmd.get(1), true, monitorDump()));
            case "RUN" -> runStep(cmd);
            case "PEER" -> {
                String site = Protocol.decode(cmd.get(1));
                String pair = cmd.get(2);
                int eq = pair.indexOf('=');
                peers.put(site + '\u0000' + Protocol.decode(pair.substring(0, eq)), Protocol.decode(pair.substring(eq + 1)));
                synchronized (peerLock) {
                    peerLock.notifyAll();
                }
            }
            case "EXIT" -> {
                int code = cmd.size() > 1 ? Integer.parseInt(cmd.get(1)) : 0;
                Thread halter = new Thread(() -> {
                    try {
                        Thread.sleep(2000);
                    } catch (InterruptedException e) {
                        // halt now
                    }
                    Runtime.getRuntime().halt(code);
                }, "dthreads-site-halt");
                halter.setDaemon(true);
                halter.start();
                worker("exit", () -> System.exit(code));
            }
            default -> System.err.println("dthreads site " + name + ": unknown command ignored: " + cmd.get(0));
        }
    }

    private void runStep(List<String> cmd) {
        String id = cmd.get(1);
        String stepName = cmd.get(2);
        List<String> stepArgs = new ArrayList<>();
        for (String a : cmd.subList(3, cmd.size())) {
            stepArgs.add(Protocol.decodeArg(a));
        }
        Step step = steps.get(stepName);
        if (step == null) {
            reply(id, false, "site " + name + " has no step '" + stepName + "' (known: " + steps.keySet() + ")");
            return;
        }
        Thread t = new Thread(() -> {
            try {
                reply(id, true, step.run(List.copyOf(stepArgs)));
            } catch (Throwable e) {
                reply(id, false, stackTrace(e));
            }
        }, "dthreads-step-" + stepName + "-" + id);
        t.setDaemon(true);
        t.start();
    }

    private void worker(String what, Runnable r) {
        Thread t = new Thread(r, "dthreads-site-" + what + "-" + workers.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    /**
     * The dthreads monitor dump, from the class named by {@value #MONITOR_DUMP_CLASS_PROPERTY}
     * (default {@value #DEFAULT_MONITOR_DUMP_CLASS}), called on its own daemon thread with a 2 s
     * bound in case the monitor runtime's own locks are stuck.
     */
    static String monitorDump() {
        String cls = System.getProperty(MONITOR_DUMP_CLASS_PROPERTY, DEFAULT_MONITOR_DUMP_CLASS);
        Method m;
        try {
            m = Class.forName(cls, true, ClassLoader.getSystemClassLoader()).getMethod("text");
        } catch (ClassNotFoundException | NoClassDefFoundError e) {
            return "no dthreads monitor runtime on this site (" + cls + " not found)";
        } catch (NoSuchMethodException e) {
            return "no dthreads monitor runtime on this site (" + cls + " has no static text() method)";
        }
        java.util.concurrent.atomic.AtomicReference<String> result = new java.util.concurrent.atomic.AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                result.set(String.valueOf(m.invoke(null)));
            } catch (Throwable e) {
                result.set("dthreads monitor dump failed:\n" + stackTrace(e));
            }
        }, "dthreads-site-monitor-dump-call");
        t.setDaemon(true);
        t.start();
        try {
            t.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String r = result.get();
        return r != null ? r
                : "dthreads monitor dump did not return within 2000 ms (its thread is stuck in " + cls + ".dump())";
    }

    static String stackTrace(Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        return sw.toString();
    }
}
