package org.dthreads.agent;

import com.sun.tools.attach.VirtualMachine;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.dthreads.monitor.internal.diagnostics.Cycles;
import org.dthreads.monitor.internal.diagnostics.WaitEdge;

/**
 * {@code ./dthreads dump PID} and {@code ./dthreads deadlocks TARGET...}: read the MBean
 * {@code org.dthreads:type=Monitors} of running JVMs. A target is a local process id (attached with the Attach
 * API: the agent is loaded with {@link DiagnosticsHook#ATTACH_OPTION} to register the MBean, and the JVM's local
 * management agent is started) or {@code HOST:PORT} of a JMX connector ({@code -Dcom.sun.management.jmxremote.port}).
 *
 * <p>{@code deadlocks} reads every target's wait-for edges twice, {@value #CONFIRM_MILLIS} ms apart, and
 * reports the cycles of the union that both rounds show: the graph is over thread classes, which travel with
 * call chains, so a cycle through several JVMs is a distributed deadlock. Exit status: 0 no deadlock, 1 a
 * deadlock, 2 an error (a target that could not be read is named; cycles among the others are still shown).
 */
final class DiagnoseCommand {
    static final String USAGE = String.join("\n",
            "usage: java -jar dthreads-agent.jar dump PID",
            "       java -jar dthreads-agent.jar deadlocks PID|HOST:PORT...",
            "",
            "dump       a jstack-like thread dump of a local JVM run with the dthreads agent, with its",
            "           emulated monitors as '- locked <0x...> (a T)' and '- waiting to lock' lines and their",
            "           owning thread classes, then that JVM's own deadlocks",
            "deadlocks  combines the wait-for graphs of the given JVMs (local PIDs, or HOST:PORT of a JMX",
            "           connector) and prints every cycle edge by edge; exit 0 none, 1 deadlock, 2 error");
    static final long CONFIRM_MILLIS = 200;
    private static final long TARGET_TIMEOUT_SECONDS = 15;
    private static final String MBEAN = "org.dthreads:type=Monitors";

    private DiagnoseCommand() {}

    static boolean handles(String command) {
        return command.equals("dump") || command.equals("deadlocks");
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 2 || args[1].equals("--help") || args[1].equals("-h")) {
            (args.length < 2 ? err : out).println(USAGE);
            return args.length < 2 ? 2 : 0;
        }
        if (args[0].equals("dump")) {
            if (args.length != 2 || !args[1].matches("\\d+")) {
                err.println("dthreads: dump takes one local process id\n" + USAGE);
                return 2;
            }
            try (Target t = Target.open(args[1])) {
                out.print((String) t.connection.invoke(t.name, "dump", null, null));
                return 0;
            } catch (Exception e) {
                err.println("dthreads: cannot read target " + args[1] + ": " + reason(e));
                return 2;
            }
        }
        List<String> targets = List.of(args).subList(1, args.length);
        return deadlocks(targets, out, err);
    }

    private static int deadlocks(List<String> targets, PrintStream out, PrintStream err) {
        ExecutorService pool = Executors.newFixedThreadPool(targets.size(), r -> {
            Thread t = new Thread(r, "dthreads-diagnose");
            t.setDaemon(true);
            return t;
        });
        Map<String, Future<Target>> opening = new LinkedHashMap<>();
        targets.forEach(spec -> opening.put(spec, pool.submit(() -> Target.open(spec))));
        List<Target> open = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        try {
            for (Map.Entry<String, Future<Target>> e : opening.entrySet()) {
                try {
                    open.add(e.getValue().get(TARGET_TIMEOUT_SECONDS, TimeUnit.SECONDS));
                } catch (ExecutionException | TimeoutException | InterruptedException ex) {
                    failed.add(e.getKey());
                    err.println("dthreads: cannot reach target " + e.getKey() + ": " + reason(ex));
                }
            }
            Map<Integer, String> sites = new LinkedHashMap<>();
            List<WaitEdge> first = edges(open, sites, failed, err);
            Thread.sleep(CONFIRM_MILLIS);
            List<WaitEdge> second = edges(open, new LinkedHashMap<>(), failed, err);
            List<List<WaitEdge>> cycles = Cycles.confirmed(first, second);
            for (List<WaitEdge> c : cycles) {
                out.println(Cycles.format(c, sites));
            }
            out.println(cycles.isEmpty()
                    ? "No deadlock found among " + open.size() + " site(s) (" + second.size() + " wait-for edge(s))."
                    : "Found " + cycles.size() + " deadlock(s) among " + open.size() + " site(s).");
            if (!failed.isEmpty()) {
                err.println("dthreads: could not read " + String.join(", ", failed) + "; a cycle through "
                        + (failed.size() == 1 ? "it" : "them") + " cannot be seen");
                return 2;
            }
            return cycles.isEmpty() ? 0 : 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 2;
        } finally {
            open.forEach(Target::close);
            pool.shutdownNow();
        }
    }

    private static List<WaitEdge> edges(List<Target> open, Map<Integer, String> sites, List<String> failed,
            PrintStream err) {
        List<WaitEdge> all = new ArrayList<>();
        for (Target t : open) {
            if (failed.contains(t.spec)) {
                continue;
            }
            try {
                sites.put(Integer.parseUnsignedInt((String) t.connection.getAttribute(t.name, "SiteId"), 16),
                        t.spec.matches("\\d+") ? "pid " + t.spec : t.spec);
                for (String line : (String[]) t.connection.invoke(t.name, "edges", null, null)) {
                    all.add(WaitEdge.parse(line));
                }
            } catch (Exception e) {
                failed.add(t.spec);
                err.println("dthreads: cannot read target " + t.spec + ": " + reason(e));
            }
        }
        return all;
    }

    private static String reason(Throwable e) {
        Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        if (t instanceof TimeoutException) {
            return "no answer within " + TARGET_TIMEOUT_SECONDS + " s";
        }
        String m = t.getMessage();
        if (m != null && m.indexOf('\n') >= 0) {
            m = m.substring(0, m.indexOf('\n')).trim(); // RMI's nested messages: the first line says it
        }
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    /** One connected target. */
    private static final class Target implements AutoCloseable {
        final String spec;
        final JMXConnector connector;
        final MBeanServerConnection connection;
        final ObjectName name;

        private Target(String spec, JMXConnector connector) throws Exception {
            this.spec = spec;
            this.connector = connector;
            this.connection = connector.getMBeanServerConnection();
            this.name = new ObjectName(MBEAN);
            if (!connection.isRegistered(name)) {
                connector.close();
                throw new IllegalStateException("no MBean " + MBEAN + " there: is it running with the dthreads agent?"
                        + " (a HOST:PORT target registers it at start-up with -Dcom.sun.management.jmxremote.port)");
            }
        }

        static Target open(String spec) throws Exception {
            String address;
            if (spec.matches("\\d+")) {
                VirtualMachine vm = VirtualMachine.attach(spec);
                try {
                    try {
                        vm.loadAgent(agentJar().toString(), DiagnosticsHook.ATTACH_OPTION);
                    } catch (com.sun.tools.attach.AgentInitializationException e) {
                        throw new IllegalStateException("process " + spec + " has no dthreads runtime (not started with"
                                + " -javaagent:dthreads-agent.jar), or registering its MBean failed (see its log)", e);
                    }
                    address = vm.startLocalManagementAgent();
                } finally {
                    vm.detach();
                }
            } else {
                int colon = spec.lastIndexOf(':');
                if (colon <= 0 || !spec.substring(colon + 1).matches("\\d+")) {
                    throw new IllegalArgumentException("not a process id or HOST:PORT: " + spec);
                }
                address = "service:jmx:rmi:///jndi/rmi://" + spec.substring(0, colon) + ":" + spec.substring(colon + 1)
                        + "/jmxrmi";
            }
            return new Target(spec, JMXConnectorFactory.connect(new JMXServiceURL(address)));
        }

        private static Path agentJar() throws Exception {
            return Path.of(DiagnoseCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        }

        @Override
        public void close() {
            try {
                connector.close();
            } catch (Exception ignored) {
                // the target may be gone; nothing to release here
            }
        }
    }
}
