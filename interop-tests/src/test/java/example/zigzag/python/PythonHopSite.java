package example.zigzag.python;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.dthreads.junit.SiteApp;
import org.dthreads.junit.SiteContext;

/**
 * A site whose hop is a Python omniORBpy process ({@code src/test/python/forwarding_hop.py}): this
 * JVM compiles the IDL with omniidl, starts the peer, publishes its IOR as {@code ior}, and stops it
 * with the site. Argument {@code no-forward} runs the peer without the dthreads recipe. The Python
 * interpreter (with the jeteve-omniorb wheel) is {@code -Ddthreads.test.omniorb.python}.
 */
public final class PythonHopSite implements SiteApp {

    @Override
    public void start(SiteContext ctx) throws Exception {
        String python = System.getProperty("dthreads.test.omniorb.python");
        Path work = Files.createTempDirectory("dthreads-python-hop");
        Path idl = Path.of("src/test/idl/zigzag.idl").toAbsolutePath();
        Process omniidl = new ProcessBuilder(Path.of(python).getParent().resolve("omniidl").toString(), "-bpython", idl.toString())
                .directory(work.toFile()).redirectErrorStream(true).start();
        if (!omniidl.waitFor(60, TimeUnit.SECONDS) || omniidl.exitValue() != 0) {
            throw new IllegalStateException("omniidl failed: " + new String(omniidl.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        List<String> command = new ArrayList<>(List.of(python, Path.of("src/test/python/forwarding_hop.py").toAbsolutePath().toString()));
        if (ctx.args().contains("no-forward")) {
            command.add("--no-forward");
        }
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("PYTHONPATH", work.toString());
        Process peer = pb.start();
        Runtime.getRuntime().addShutdownHook(new Thread(peer::destroyForcibly));
        BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith("IOR ")) {
                ctx.publish("ior", line.substring(4).trim());
                return;
            }
        }
        throw new IllegalStateException("the Python peer exited without an IOR (exit " + peer.waitFor() + ")");
    }
}
