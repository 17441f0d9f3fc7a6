package org.dthreads.junit;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How to start one site: a separate JVM running the kit's {@link SiteMain site runtime}, which
 * starts a {@link SiteApp} ({@link #app}) or a plain main class ({@link #main}).
 *
 * <p>Immutable: every {@code with}-style method returns a changed copy, so a spec can be shared
 * and reused freely from any thread. Defaults:
 * <ul>
 *   <li>class path: the test JVM's {@code java.class.path}; the kit's own jar or classes directory
 *       is always added when missing;</li>
 *   <li>java: {@code ${java.home}/bin/java} of the test JVM;</li>
 *   <li>fast-start JVM flags {@link #FAST_START_FLAGS} (see {@link #fastStart(boolean)});</li>
 *   <li>{@code -Djava.rmi.server.hostname=127.0.0.1}, or the namespace address when the site runs
 *       in a {@link NetworkNamespaces network namespace}; a {@link #systemProperty} of that name
 *       overrides it;</li>
 *   <li>no agent, control channel on, site output not echoed.</li>
 * </ul>
 */
public final class SiteSpec {

    /**
     * JVM flags added by default to make short-lived site JVMs start fast: C1 only, class data
     * sharing when available, the serial collector. The collector flag is left out when
     * {@link #jvmFlags} selects another collector.
     */
    public static final List<String> FAST_START_FLAGS =
            List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC");

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    enum Mode { APP, MAIN }

    private final String name;
    private final Mode mode;
    private final String className;
    private final List<String> args;
    private final List<String> classpath; // null: the test JVM's
    private final List<String> jvmFlags;
    private final Map<String, String> systemProperties;
    private final Map<String, String> environment;
    private final Path javaExecutable; // null: the test JVM's
    private final Path javaAgent;
    private final String javaAgentOptions;
    private final NetworkNamespaces.Namespace namespace;
    private final boolean fastStart;
    private final boolean controlChannel;
    private final boolean echoOutput;

    private SiteSpec(String name, Mode mode, String className, List<String> args, List<String> classpath,
            List<String> jvmFlags, Map<String, String> systemProperties, Map<String, String> environment,
            Path javaExecutable, Path javaAgent, String javaAgentOptions, NetworkNamespaces.Namespace namespace,
            boolean fastStart, boolean controlChannel, boolean echoOutput) {
        this.name = name;
        this.mode = mode;
        this.className = className;
        this.args = List.copyOf(args);
        this.classpath = classpath == null ? null : List.copyOf(classpath);
        this.jvmFlags = List.copyOf(jvmFlags);
        this.systemProperties = Collections.unmodifiableMap(new LinkedHashMap<>(systemProperties));
        this.environment = Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        this.javaExecutable = javaExecutable;
        this.javaAgent = javaAgent;
        this.javaAgentOptions = javaAgentOptions;
        this.namespace = namespace;
        this.fastStart = fastStart;
        this.controlChannel = controlChannel;
        this.echoOutput = echoOutput;
    }

    private static SiteSpec create(String name, Mode mode, String className, List<String> args) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(className, "className");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("site name must match " + NAME + ": " + name);
        }
        return new SiteSpec(name, mode, className, args, null, List.of(), Map.of(), Map.of(), null, null, null,
                null, true, true, false);
    }

    /**
     * A site named {@code name} that runs {@code app} in the kit's site runtime.
     *
     * @param name the site's name, unique within a cluster: 1 to 64 letters, digits, {@code _}, {@code .}
     *        or {@code -}
     * @param app the {@link SiteApp} class the site instantiates and runs
     * @return a spec with the defaults listed in the class description
     * @throws IllegalArgumentException if {@code name} is not a valid site name
     */
    public static SiteSpec app(String name, Class<? extends SiteApp> app) {
        return create(name, Mode.APP, app.getName(), List.of());
    }

    /**
     * A site named {@code name} that runs the {@link SiteApp} class named {@code appClassName}.
     *
     * @param name the site's name, unique within a cluster: 1 to 64 letters, digits, {@code _}, {@code .}
     *        or {@code -}
     * @param appClassName the binary name of the {@link SiteApp} class, loaded in the site JVM (it need
     *        not be on the test's class path)
     * @return a spec with the defaults listed in the class description
     * @throws IllegalArgumentException if {@code name} is not a valid site name
     */
    public static SiteSpec app(String name, String appClassName) {
        return create(name, Mode.APP, appClassName, List.of());
    }

    /**
     * A site named {@code name} that runs {@code mainClassName.main(args)} under the site runtime.
     * The site is ready when {@code main} returns, or earlier when it calls
     * {@code SiteRuntime.context().ready()}. The JVM then lives as long as its non-daemon threads
     * (an exported RMI object keeps it alive), as a normal program would.
     *
     * @param name the site's name, unique within a cluster: 1 to 64 letters, digits, {@code _}, {@code .}
     *        or {@code -}
     * @param mainClassName the binary name of the class whose {@code main} the site runs
     * @param args the arguments passed to {@code main}
     * @return a spec with the defaults listed in the class description
     * @throws IllegalArgumentException if {@code name} is not a valid site name
     */
    public static SiteSpec main(String name, String mainClassName, String... args) {
        return create(name, Mode.MAIN, mainClassName, Arrays.asList(args));
    }

    private SiteSpec copy(List<String> args, List<String> classpath, List<String> jvmFlags, Map<String, String> props,
            Map<String, String> env, Path java, Path agent, String agentOptions, NetworkNamespaces.Namespace ns,
            boolean fast, boolean control, boolean echo) {
        return new SiteSpec(name, mode, className, args, classpath, jvmFlags, props, env, java, agent, agentOptions, ns,
                fast, control, echo);
    }

    /**
     * Replaces the program arguments (visible to a {@link SiteApp} as {@link SiteContext#args()}).
     *
     * @param newArgs the new program arguments
     * @return a copy of this spec with that change
     */
    public SiteSpec args(String... newArgs) {
        return copy(Arrays.asList(newArgs), classpath, jvmFlags, systemProperties, environment, javaExecutable,
                javaAgent, javaAgentOptions, namespace, fastStart, controlChannel, echoOutput);
    }

    /**
     * Replaces the class path; the kit's own location is still added when missing.
     *
     * @param entries the class path entries (jars or directories), in order
     * @return a copy of this spec with that change
     */
    public SiteSpec classpath(List<Path> entries) {
        List<String> cp = new ArrayList<>();
        entries.forEach(p -> cp.add(p.toString()));
        return copy(args, cp, jvmFlags, systemProperties, environment, javaExecutable, javaAgent, javaAgentOptions,
                namespace, fastStart, controlChannel, echoOutput);
    }

    /**
     * Replaces the class path with a {@code File.pathSeparator}-separated string.
     *
     * @param path the class path, entries separated by {@code File.pathSeparator}; empty entries are
     *        dropped
     * @return a copy of this spec with that change
     */
    public SiteSpec classpath(String path) {
        List<String> cp = new ArrayList<>(Arrays.asList(path.split(Pattern.quote(File.pathSeparator))));
        cp.removeIf(String::isEmpty);
        return copy(args, cp, jvmFlags, systemProperties, environment, javaExecutable, javaAgent, javaAgentOptions,
                namespace, fastStart, controlChannel, echoOutput);
    }

    /**
     * Adds JVM flags (after the fast-start defaults, so they win where the JVM lets the last one win).
     *
     * @param flags the flags to append to those added before, e.g. {@code -Xmx256m}
     * @return a copy of this spec with that change
     */
    public SiteSpec jvmFlags(String... flags) {
        List<String> f = new ArrayList<>(jvmFlags);
        f.addAll(Arrays.asList(flags));
        return copy(args, classpath, f, systemProperties, environment, javaExecutable, javaAgent, javaAgentOptions,
                namespace, fastStart, controlChannel, echoOutput);
    }

    /**
     * Adds or replaces a {@code -Dkey=value} system property.
     *
     * @param key the property's name
     * @param value the property's value
     * @return a copy of this spec with that change
     */
    public SiteSpec systemProperty(String key, String value) {
        Map<String, String> p = new LinkedHashMap<>(systemProperties);
        p.put(key, value);
        return copy(args, classpath, jvmFlags, p, environment, javaExecutable, javaAgent, javaAgentOptions, namespace,
                fastStart, controlChannel, echoOutput);
    }

    /**
     * Adds or replaces an environment variable of the site process.
     *
     * @param key the variable's name
     * @param value the variable's value
     * @return a copy of this spec with that change
     */
    public SiteSpec environment(String key, String value) {
        Map<String, String> e = new LinkedHashMap<>(environment);
        e.put(key, value);
        return copy(args, classpath, jvmFlags, systemProperties, e, javaExecutable, javaAgent, javaAgentOptions,
                namespace, fastStart, controlChannel, echoOutput);
    }

    /**
     * The {@code java} launcher to use, e.g. {@code /usr/lib/jvm/temurin-25-jdk-amd64/bin/java}.
     *
     * @param java the path of the launcher; null means the test JVM's
     * @return a copy of this spec with that change
     */
    public SiteSpec javaExecutable(Path java) {
        return copy(args, classpath, jvmFlags, systemProperties, environment, java, javaAgent, javaAgentOptions,
                namespace, fastStart, controlChannel, echoOutput);
    }

    /**
     * Starts the site with {@code -javaagent:<jar>} (for example the dthreads agent).
     *
     * @param agentJar the agent's jar; null means no agent
     * @return a copy of this spec with that change
     */
    public SiteSpec javaAgent(Path agentJar) {
        return javaAgent(agentJar, null);
    }

    /**
     * Starts the site with {@code -javaagent:<jar>=<options>}; null options means none.
     *
     * <p>If the jar is the dthreads agent (its manifest's {@code Premain-Class} is
     * {@code org.dthreads.agent.DThreadsAgent}), the site checks, before its application class
     * loads, that the agent runs: a class it defines after start-up must carry the rewriter's
     * {@code @org.dthreads.monitor.Rewritten} marker. The agent only logs a failed start-up and
     * lets the JVM run without dthreads; such a site fails to start instead, and
     * {@link SiteCluster#start(List)} says so with the agent's messages from the site's stderr.
     *
     * @param agentJar the agent's jar; null means no agent
     * @param options the agent's option string, or null for none
     * @return a copy of this spec with that change
     */
    public SiteSpec javaAgent(Path agentJar, String options) {
        return copy(args, classpath, jvmFlags, systemProperties, environment, javaExecutable, agentJar, options,
                namespace, fastStart, controlChannel, echoOutput);
    }

    /**
     * Runs the site inside {@code ns} (via {@code ip netns exec}).
     *
     * @param ns a namespace from {@link NetworkNamespaces#add}; null means the test's own namespace
     * @return a copy of this spec with that change
     */
    public SiteSpec networkNamespace(NetworkNamespaces.Namespace ns) {
        return copy(args, classpath, jvmFlags, systemProperties, environment, javaExecutable, javaAgent,
                javaAgentOptions, ns, fastStart, controlChannel, echoOutput);
    }

    /**
     * Whether to add {@link #FAST_START_FLAGS} (default true). Turn off to measure with JIT tier 4.
     *
     * @param on {@code true} to add the fast-start flags, {@code false} to leave them out
     * @return a copy of this spec with that change
     */
    public SiteSpec fastStart(boolean on) {
        return copy(args, classpath, jvmFlags, systemProperties, environment, javaExecutable, javaAgent,
                javaAgentOptions, namespace, on, controlChannel, echoOutput);
    }

    /**
     * Whether the site answers commands (default true). Without it the site cannot run steps and
     * its thread dumps are taken from outside with {@code jcmd}; useful to check that fallback.
     *
     * @param on {@code true} to open the control channel, {@code false} to run without it
     * @return a copy of this spec with that change
     */
    public SiteSpec controlChannel(boolean on) {
        return copy(args, classpath, jvmFlags, systemProperties, environment, javaExecutable, javaAgent,
                javaAgentOptions, namespace, fastStart, on, echoOutput);
    }

    /**
     * Whether to copy the site's output lines to the test's {@code System.err}, prefixed {@code [name]}.
     *
     * @param on {@code true} to echo the site's output, {@code false} (the default) not to
     * @return a copy of this spec with that change
     */
    public SiteSpec echoOutput(boolean on) {
        return copy(args, classpath, jvmFlags, systemProperties, environment, javaExecutable, javaAgent,
                javaAgentOptions, namespace, fastStart, controlChannel, on);
    }

    /**
     * The site's name, unique within a cluster.
     *
     * @return the name given to {@link #app} or {@link #main}
     */
    public String name() {
        return name;
    }

    /**
     * The {@link SiteApp} or main class name.
     *
     * @return the binary name of the class the site runs
     */
    public String className() {
        return className;
    }

    /**
     * Whether this site runs a {@link SiteApp} (true) or a main class (false).
     *
     * @return {@code true} for a spec made by {@link #app}, {@code false} for one made by {@link #main}
     */
    public boolean isApp() {
        return mode == Mode.APP;
    }

    /**
     * The program arguments.
     *
     * @return the arguments, as given to {@link #main} or {@link #args(String...)}
     */
    public List<String> args() {
        return args;
    }

    /**
     * The class path entries, or the test JVM's when none were set.
     *
     * @return the class path set with {@link #classpath(List)} or {@link #classpath(String)}, else the
     *         non-empty entries of the test JVM's {@code java.class.path}
     */
    public List<String> classpath() {
        if (classpath != null) {
            return classpath;
        }
        List<String> cp = new ArrayList<>(Arrays.asList(System.getProperty("java.class.path", "")
                .split(Pattern.quote(File.pathSeparator))));
        cp.removeIf(String::isEmpty);
        return cp;
    }

    /**
     * The JVM flags added with {@link #jvmFlags(String...)} (without the fast-start defaults).
     *
     * @return the added flags, in order
     */
    public List<String> jvmFlags() {
        return jvmFlags;
    }

    /**
     * The system properties set with {@link #systemProperty}.
     *
     * @return the properties by name, in the order first set
     */
    public Map<String, String> systemProperties() {
        return systemProperties;
    }

    /**
     * The environment variables set with {@link #environment}.
     *
     * @return the variables by name, in the order first set
     */
    public Map<String, String> environment() {
        return environment;
    }

    /**
     * The java launcher: the one set, or the test JVM's.
     *
     * @return the launcher set with {@link #javaExecutable(Path)}, else {@code ${java.home}/bin/java}
     */
    public Path javaExecutable() {
        return javaExecutable != null ? javaExecutable : Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /**
     * The {@code -javaagent} jar, or null.
     *
     * @return the agent jar set with {@link #javaAgent(Path)}, or null if the site runs without an agent
     */
    public Path javaAgent() {
        return javaAgent;
    }

    /**
     * The agent options, or null.
     *
     * @return the option string set with {@link #javaAgent(Path, String)}, or null for none
     */
    public String javaAgentOptions() {
        return javaAgentOptions;
    }

    /**
     * The network namespace, or null for the test's own.
     *
     * @return the namespace set with {@link #networkNamespace(NetworkNamespaces.Namespace)}, or null
     */
    public NetworkNamespaces.Namespace networkNamespace() {
        return namespace;
    }

    /**
     * Whether the {@link #FAST_START_FLAGS} are added.
     *
     * @return the value set with {@link #fastStart(boolean)}, {@code true} by default
     */
    public boolean fastStart() {
        return fastStart;
    }

    /**
     * Whether the site answers commands.
     *
     * @return the value set with {@link #controlChannel(boolean)}, {@code true} by default
     */
    public boolean controlChannel() {
        return controlChannel;
    }

    /**
     * Whether the site's output is copied to the test's {@code System.err}.
     *
     * @return the value set with {@link #echoOutput(boolean)}, {@code false} by default
     */
    public boolean echoOutput() {
        return echoOutput;
    }

    @Override
    public String toString() {
        return "SiteSpec[" + name + ", " + (isApp() ? "app " : "main ") + className
                + (namespace != null ? ", netns " + namespace.name() : "") + "]";
    }
}
