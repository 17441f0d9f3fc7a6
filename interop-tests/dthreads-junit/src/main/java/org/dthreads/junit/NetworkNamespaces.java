package org.dthreads.junit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.dthreads.junit.internal.Cleanup;
import org.dthreads.junit.internal.Processes;
import org.junit.jupiter.api.Assumptions;

/**
 * Linux network namespaces for sites, so that each site has its own address on a real interface
 * rather than sharing the test's loopback.
 *
 * <p>{@link #create()} makes a private layer-2 segment {@code 10.231.N.0/24} (N chosen unused):
 * a hub namespace holding a bridge, one namespace per {@link #add added} site with a veth pair into
 * the bridge (site address {@code 10.231.N.2}, {@code .3}, ...; its loopback is up too), and one veth
 * pair from the test's own namespace ({@link #hostAddress()} {@code 10.231.N.1}), so that the test
 * JVM can reach the sites as well. Nothing is routed anywhere else. A site runs inside with
 * {@link SiteSpec#networkNamespace}; {@code java.rmi.server.hostname} is set to its address.
 *
 * <p>Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) and the {@code ip} tool ({@code iproute2}).
 * {@link #availability()} says whether this machine allows it and why not;
 * {@link #assumeAvailable()} turns a "no" into a skipped test, or into a failure when the system
 * property {@code dthreads.requireNetns=true} is set (for CI machines that must run these tests).
 *
 * <p>{@link #close()} deletes everything created, in order; a JVM shutdown hook does it when the test
 * JVM exits first, and {@link #create()} first removes namespaces left by test JVMs that were killed.
 *
 * <h2>Threading contract</h2>
 * Thread-safe; {@link #add} and {@link #close} are serialized. {@link #availability()} is computed
 * once per JVM.
 */
public final class NetworkNamespaces implements AutoCloseable {

    /** A namespace for one site. */
    public record Namespace(String name, String address) {}

    /**
     * Whether namespaces work on this machine.
     *
     * @param available whether {@link #create()} can be expected to work
     * @param reason    why not, or a short description of what was checked
     */
    public record Availability(boolean available, String reason) {}

    /** System property that turns the skip of {@link #assumeAvailable()} into a failure. */
    public static final String REQUIRE_PROPERTY = "dthreads.requireNetns";

    private static final String PREFIX = "dtj-";
    private static final Pattern OURS = Pattern.compile("^(dtj-(\\d+)-[0-9a-f]+-\\w+)");
    private static final Duration IP_TIMEOUT = Duration.ofSeconds(10);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static volatile Availability availability;

    private final String base;
    private final int subnet;
    private final String hub;
    private final String rootLink;
    private final List<Namespace> namespaces = new ArrayList<>();
    private final Cleanup.Registration cleanup;
    private boolean closed;

    private NetworkNamespaces(String base, int subnet) {
        this.base = base;
        this.subnet = subnet;
        this.hub = base + "-hub";
        this.rootLink = "dtj" + base.substring(base.lastIndexOf('-') + 1);
        this.cleanup = Cleanup.register(this::teardown);
    }

    /** System property naming the {@code ip} executable to use instead of the one found. */
    public static final String IP_PROPERTY = "dthreads.netns.ip";

    /** The {@code ip} executable: {@value #IP_PROPERTY}, else the first of /usr/sbin, /sbin, /usr/bin, /bin, else PATH. */
    static String ipCommand() {
        String configured = System.getProperty(IP_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
            Path p = Path.of(dir, "ip");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return "ip";
    }

    private static Processes.Result ip(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ipCommand());
        cmd.addAll(List.of(args));
        return Processes.run(IP_TIMEOUT, cmd);
    }

    private static void ipOrThrow(String... args) {
        Processes.Result r = ip(args);
        if (!r.ok()) {
            throw new IllegalStateException("ip " + String.join(" ", args) + " failed: "
                    + (r.timedOut() ? "timed out" : "exit " + r.exitCode()) + " " + r.output().strip());
        }
    }

    /**
     * Whether this machine lets the kit create namespaces: Linux, the {@code ip} tool, and a probe
     * that creates a namespace and a veth pair into it, then deletes both. Cached per JVM.
     *
     * @return whether namespaces are available, with a human-readable reason (why not, or what works)
     */
    public static Availability availability() {
        Availability a = availability;
        if (a == null) {
            synchronized (NetworkNamespaces.class) {
                a = availability;
                if (a == null) {
                    a = probe();
                    availability = a;
                }
            }
        }
        return a;
    }

    private static Availability probe() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            return new Availability(false, "network namespaces need Linux; this is " + System.getProperty("os.name"));
        }
        Processes.Result v = ip("-V");
        if (!v.ok()) {
            return new Availability(false, "the ip tool (iproute2) is not usable: " + v.output().strip());
        }
        String tag = Long.toHexString(RANDOM.nextLong() & 0xffffffL);
        String ns = PREFIX + ProcessHandle.current().pid() + "-" + tag + "-probe";
        Processes.Result add = ip("netns", "add", ns);
        if (!add.ok()) {
            return new Availability(false, "cannot create a network namespace (root or CAP_SYS_ADMIN needed?): "
                    + add.output().strip());
        }
        try {
            String link = "dtjp" + tag;
            Processes.Result veth = ip("link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", ns);
            if (!veth.ok()) {
                return new Availability(false, "cannot create a veth pair (CAP_NET_ADMIN or the veth module missing?): "
                        + veth.output().strip());
            }
            ip("link", "del", link);
            Processes.Result br = ip("-n", ns, "link", "add", "br0", "type", "bridge");
            if (!br.ok()) {
                return new Availability(false, "cannot create a bridge (bridge module missing?): " + br.output().strip());
            }
            return new Availability(true, "namespaces, veth pairs and bridges work (" + v.output().strip() + ")");
        } finally {
            ip("netns", "del", ns);
        }
    }

    /**
     * Skips the calling test (JUnit assumption) with the reason when namespaces are unavailable, or
     * fails it when {@code -Ddthreads.requireNetns=true}.
     */
    public static void assumeAvailable() {
        Availability a = availability();
        if (!a.available() && Boolean.getBoolean(REQUIRE_PROPERTY)) {
            throw new AssertionError("network namespaces required (" + REQUIRE_PROPERTY + "=true) but unavailable: "
                    + a.reason());
        }
        Assumptions.assumeTrue(a.available(), () -> "network namespaces unavailable: " + a.reason());
    }

    /**
     * Creates the hub namespace, its bridge and the link from the test's namespace. Removes stale
     * namespaces of dead test JVMs first.
     *
     * @return the new set of namespaces, to be closed by the caller (which deletes them)
     * @throws IllegalStateException if the machine does not allow it (see {@link #availability()})
     */
    public static NetworkNamespaces create() {
        Availability a = availability();
        if (!a.available()) {
            throw new IllegalStateException("network namespaces unavailable: " + a.reason());
        }
        removeStale();
        int subnet = freeSubnet();
        String base = PREFIX + ProcessHandle.current().pid() + "-" + Long.toHexString(RANDOM.nextLong() & 0xffffffffL);
        NetworkNamespaces n = new NetworkNamespaces(base, subnet);
        try {
            n.setUp();
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
        return n;
    }

    private void setUp() {
        long self = ProcessHandle.current().pid();
        ipOrThrow("netns", "add", hub);
        ipOrThrow("-n", hub, "link", "add", "br0", "type", "bridge");
        ipOrThrow("-n", hub, "link", "set", "br0", "up");
        ipOrThrow("-n", hub, "link", "add", "host", "type", "veth", "peer", "name", rootLink, "netns",
                Long.toString(self));
        ipOrThrow("-n", hub, "link", "set", "host", "master", "br0");
        ipOrThrow("-n", hub, "link", "set", "host", "up");
        ipOrThrow("addr", "add", hostAddress() + "/24", "dev", rootLink);
        ipOrThrow("link", "set", rootLink, "up");
    }

    /**
     * The test JVM's address on the segment, {@code 10.231.N.1}.
     *
     * @return the IPv4 address, without prefix length, at which sites in the namespaces reach the test JVM
     */
    public String hostAddress() {
        return "10.231." + subnet + ".1";
    }

    /**
     * The namespaces added so far.
     *
     * @return an immutable copy of the namespaces created by {@link #add}, in the order they were added
     */
    public synchronized List<Namespace> namespaces() {
        return List.copyOf(namespaces);
    }

    /**
     * Adds a namespace for one site, with address {@code 10.231.N.(k+2)} for the k-th namespace.
     *
     * @param label a short label (letters and digits) that ends up in the namespace's name
     * @return the new namespace, with its name and its address on the segment
     */
    public synchronized Namespace add(String label) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (!label.matches("[A-Za-z0-9]{1,16}")) {
            throw new IllegalArgumentException("label must be 1-16 letters or digits: " + label);
        }
        int k = namespaces.size();
        if (k > 250) {
            throw new IllegalStateException("at most 251 namespaces per segment");
        }
        String name = base + "-" + label + k;
        String address = "10.231." + subnet + "." + (k + 2);
        String port = "s" + k;
        ipOrThrow("netns", "add", name);
        Namespace ns = new Namespace(name, address);
        namespaces.add(ns);
        ipOrThrow("-n", hub, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", name);
        ipOrThrow("-n", hub, "link", "set", port, "master", "br0");
        ipOrThrow("-n", hub, "link", "set", port, "up");
        ipOrThrow("-n", name, "addr", "add", address + "/24", "dev", "eth0");
        ipOrThrow("-n", name, "link", "set", "eth0", "up");
        ipOrThrow("-n", name, "link", "set", "lo", "up");
        return ns;
    }

    /**
     * Cuts {@code ns} off the segment (its bridge port goes down): the site inside stays alive, its
     * connections stay open, and packets to and from it are dropped until {@link #restore}. A partition,
     * as opposed to a crash.
     *
     * @param ns a namespace returned by {@link #add}
     */
    public synchronized void cut(Namespace ns) {
        ipOrThrow("-n", hub, "link", "set", portOf(ns), "down");
    }

    /**
     * Reconnects a namespace {@link #cut} off the segment.
     *
     * @param ns a namespace returned by {@link #add}
     */
    public synchronized void restore(Namespace ns) {
        ipOrThrow("-n", hub, "link", "set", portOf(ns), "up");
    }

    private String portOf(Namespace ns) {
        int k = namespaces.indexOf(ns);
        if (k < 0) {
            throw new IllegalArgumentException("not a namespace of " + this + ": " + ns);
        }
        return "s" + k;
    }

    /**
     * Deletes every namespace and link created. Kill the sites inside first (a {@link SiteCluster}
     * does when this is given to {@link SiteCluster#closeWith}). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        teardown();
        cleanup.unregister();
    }

    private void teardown() {
        ip("link", "del", rootLink);
        for (Namespace ns : namespaces) {
            ip("netns", "del", ns.name());
        }
        ip("netns", "del", hub);
    }

    /** Names of the namespaces that currently exist on this machine. */
    static Set<String> existingNamespaces() {
        Set<String> out = new HashSet<>();
        Processes.Result r = ip("netns", "list");
        for (String line : r.output().split("\n")) {
            String n = line.strip().split(" ")[0];
            if (!n.isEmpty()) {
                out.add(n);
            }
        }
        return out;
    }

    private static void removeStale() {
        for (String n : existingNamespaces()) {
            Matcher m = OURS.matcher(n);
            if (m.find()) {
                long pid = Long.parseLong(m.group(2));
                if (ProcessHandle.of(pid).isEmpty()) {
                    ip("netns", "del", n);
                }
            }
        }
    }

    private static int freeSubnet() {
        Processes.Result r = ip("-4", "-o", "addr", "show");
        Processes.Result routes = ip("-4", "route", "show");
        String used = r.output() + "\n" + routes.output();
        for (int attempt = 0; attempt < 64; attempt++) {
            int n = 1 + RANDOM.nextInt(254);
            if (!used.contains("10.231." + n + ".")) {
                return n;
            }
        }
        throw new IllegalStateException("no free 10.231.N.0/24 subnet found");
    }

    /** Whether {@code name} still exists; for tests of cleanup. */
    static boolean exists(String name) {
        return existingNamespaces().contains(name);
    }

    @Override
    public String toString() {
        return "NetworkNamespaces[" + base + ", 10.231." + subnet + ".0/24, " + namespaces.size() + " namespaces]";
    }
}
