package org.dthreads.junit.internal;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Pattern;

import org.dthreads.junit.NetworkNamespaces;
import org.dthreads.junit.SiteMain;
import org.dthreads.junit.SiteSpec;

/**
 * The command line that launches a site JVM from its {@link SiteSpec}: {@code ip netns exec} when the
 * site runs in a network namespace, the fast-start flags (unless the spec names its own GC), the
 * system properties the site runtime reads, the agent, the class path (in an {@code @argfile}, so a
 * long one fits any OS limit; the kit's own jar added) and {@link SiteMain}'s arguments. Stateless.
 */
public final class SiteCommandLine {

    private static final Pattern GC_FLAG = Pattern.compile("-XX:\\+Use\\w*GC");
    private static final String DTHREADS_AGENT_CLASS = "org.dthreads.agent.DThreadsAgent";

    private SiteCommandLine() {}

    /**
     * The command for {@code spec}; writes its class path argfile into {@code tempDir}. {@code ipCommand}
     * (asked only when the spec has a network namespace) gives the {@code ip} executable.
     */
    public static List<String> command(SiteSpec spec, String token, Path tempDir, Supplier<String> ipCommand)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        NetworkNamespaces.Namespace ns = spec.networkNamespace();
        if (ns != null) {
            cmd.addAll(List.of(ipCommand.get(), "netns", "exec", ns.name()));
        }
        cmd.add(spec.javaExecutable().toString());
        if (spec.fastStart()) {
            boolean userGc = spec.jvmFlags().stream().anyMatch(f -> GC_FLAG.matcher(f).matches());
            for (String f : SiteSpec.FAST_START_FLAGS) {
                if (!(userGc && GC_FLAG.matcher(f).matches())) {
                    cmd.add(f);
                }
            }
        }
        Map<String, String> props = new LinkedHashMap<>();
        props.put("java.rmi.server.hostname", ns != null ? ns.address() : "127.0.0.1");
        props.put("dthreads.site.name", spec.name());
        if (!spec.controlChannel()) {
            props.put("dthreads.site.control", "false");
        }
        props.putAll(spec.systemProperties());
        if (spec.javaAgent() != null && isDthreadsAgent(spec.javaAgent())) {
            props.put(SiteRuntimeImpl.EXPECT_AGENT_PROPERTY, "true");
        }
        props.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        if (spec.javaAgent() != null) {
            cmd.add("-javaagent:" + spec.javaAgent()
                    + (spec.javaAgentOptions() != null ? "=" + spec.javaAgentOptions() : ""));
        }
        cmd.addAll(spec.jvmFlags());
        List<String> cp = new ArrayList<>(spec.classpath());
        String kit = kitLocation();
        if (kit != null && !cp.contains(kit)) {
            cp.add(kit);
        }
        Path argFile = Files.createTempFile(tempDir, "site-" + spec.name() + "-", ".args");
        Files.writeString(argFile, "-cp\n" + quoteArg(String.join(File.pathSeparator, cp)) + "\n");
        cmd.add("@" + argFile);
        cmd.add(SiteMain.class.getName());
        cmd.add(spec.name());
        cmd.add(token);
        cmd.add(spec.isApp() ? "app" : "main");
        cmd.add(spec.className());
        cmd.addAll(spec.args());
        return cmd;
    }

    /** Whether {@code jar} is the dthreads agent: its manifest names the agent's premain class. */
    public static boolean isDthreadsAgent(Path jar) {
        try (JarFile j = new JarFile(jar.toFile())) {
            Manifest m = j.getManifest();
            return m != null && DTHREADS_AGENT_CLASS.equals(m.getMainAttributes().getValue("Premain-Class"));
        } catch (IOException | SecurityException e) {
            return false; // not a readable jar: the JVM reports that itself
        }
    }

    /** Quotes one argument for a java {@code @argfile}. */
    private static String quoteArg(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** The jar or classes directory this kit was loaded from. */
    public static String kitLocation() {
        CodeSource cs = SiteMain.class.getProtectionDomain().getCodeSource();
        if (cs == null || cs.getLocation() == null) {
            return null;
        }
        try {
            return Path.of(cs.getLocation().toURI()).toString();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }
}
