package org.dthreads.monitor.internal.rewriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Vector;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.internal.rewriter.fixtures.ExclusionProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code synchronized (list)} in rewritten code must still exclude the list's own synchronized methods
 * when the list is a JDK object those methods lock natively ({@code Collections.synchronizedList(..)},
 * {@code Vector}): such objects are in native mode. The control, in a forked JVM where
 * {@code -Ddthreads.monitor.emulated=java.util.Vector} forces Vector into emulation (MonitorModes reads it
 * once, at class initialization), shows that the probe does detect lost exclusion.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class NativeModeExclusionTest {

    private static final int ROUNDS = 300;

    @Test
    void synchronizedListIterationExcludesConcurrentAdds() throws Exception {
        List<Integer> list = Collections.synchronizedList(new ArrayList<>());
        assertEquals(false, Monitors.isEmulated(list), "the wrapper is native");
        assertEquals("cme=0 lost=0", probe(list));
    }

    @Test
    void vectorIterationExcludesConcurrentAdds() throws Exception {
        assertEquals("cme=0 lost=0", probe(new Vector<>()));
    }

    @Test
    void controlVectorForcedIntoEmulationLosesExclusion() throws Exception {
        List<String> command = List.of(System.getProperty("java.home") + "/bin/java", "-XX:TieredStopAtLevel=1",
                "-Xshare:auto", "-XX:+UseSerialGC", "-Ddthreads.monitor.emulated=java.util.Vector", "-cp",
                System.getProperty("java.class.path"), Forked.class.getName());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out;
        try (var in = p.getInputStream()) {
            out = new String(in.readAllBytes());
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        Matcher m = Pattern.compile("emulated=(\\w+) cme=(\\d+) lost=(\\d+)").matcher(out);
        assertTrue(m.find(), out);
        assertEquals("true", m.group(1), "the property forces Vector into emulation: " + out);
        assertTrue(Integer.parseInt(m.group(2)) + Integer.parseInt(m.group(3)) > 0,
                "an emulated block does not exclude Vector's native methods, and the probe sees it: " + out);
        System.out.println("control (Vector emulated): " + out.strip());
    }

    static String probe(List<Integer> list) throws Exception {
        Class<?> rewritten = Class.forName(ExclusionProbe.class.getName(), true, new MonitorRewriterTest.RewritingLoader());
        Method m = rewritten.getMethod("iterateWhileModifying", List.class, int.class);
        return (String) m.invoke(null, list, ROUNDS);
    }

    /** The forked JVM of the control. */
    public static final class Forked {
        public static void main(String[] args) throws Exception {
            // Up to 10 probes, stopping at the first that sees the missing exclusion (usually the first).
            String result = "";
            int attempts = 0;
            while (attempts++ < 10 && !result.matches(".*(cme=[1-9]|lost=[1-9]).*")) {
                Vector<Integer> vector = new Vector<>();
                result = "emulated=" + Monitors.isEmulated(vector) + " " + probe(vector);
            }
            System.out.println(result + " attempts=" + (attempts - 1));
        }
    }
}
