package example.vthreads;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The JDK 21 virtual-thread API reached through method handles, so this module still compiles for Java 17; the
 * sites that use it run on JDK 21 or later. Fails at class initialization on an older JDK.
 */
final class VirtualThreads {
    private static final MethodHandle OF_VIRTUAL;
    private static final MethodHandle NAME;
    private static final MethodHandle START;
    private static final MethodHandle IS_VIRTUAL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            OF_VIRTUAL = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual));
            NAME = lookup.findVirtual(builder, "name", MethodType.methodType(builder, String.class));
            START = lookup.findVirtual(builder, "start", MethodType.methodType(Thread.class, Runnable.class));
            IS_VIRTUAL = lookup.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private VirtualThreads() {}

    /** Starts a virtual thread named {@code name} running {@code task}. */
    static Thread start(String name, Runnable task) {
        try {
            Object b = NAME.invoke(OF_VIRTUAL.invoke(), name);
            return (Thread) START.invoke(b, task);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    static boolean isVirtual(Thread t) {
        try {
            return (boolean) IS_VIRTUAL.invoke(t);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t2) {
            throw new IllegalStateException(t2);
        }
    }

    /**
     * How many instances of each of {@code classNames} are live after a full collection (the JVM's class
     * histogram, as {@code jcmd GC.class_histogram}), as {@code name=count} pairs.
     */
    static String liveInstances(List<String> classNames) {
        try {
            javax.management.ObjectName name = new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand");
            String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(name, "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            Map<String, Long> count = new LinkedHashMap<>();
            classNames.forEach(c -> count.put(c, 0L));
            for (String line : histogram.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 4 && count.containsKey(f[3])) {
                    count.put(f[3], Long.parseLong(f[1]));
                }
            }
            return count.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
        } catch (Exception e) {
            return "no histogram: " + e;
        }
    }

    /**
     * A thread dump that includes virtual threads ({@code HotSpotDiagnosticMXBean.dumpThreads}, JDK 21), the
     * threads grouped by their top {@code frames} frames, largest groups first, at most {@code groups} of them:
     * readable with 10,000 threads.
     */
    static String groupedDump(int frames, int groups) {
        try {
            Class<?> mxClass = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
            Object mx = ManagementFactory.getPlatformMXBean(mxClass.asSubclass(java.lang.management.PlatformManagedObject.class));
            @SuppressWarnings({"unchecked", "rawtypes"})
            Class<Enum> format = (Class<Enum>) Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
            Path file = Files.createTempDirectory("vthreads-dump").resolve("threads.txt");
            mxClass.getMethod("dumpThreads", String.class, format).invoke(mx, file.toString(), Enum.valueOf(format, "TEXT_PLAIN"));
            String text = Files.readString(file);
            Files.delete(file);
            Files.delete(file.getParent());
            Map<String, Integer> count = new LinkedHashMap<>();
            for (String block : text.split("\n\\s*\n")) {
                String[] lines = block.strip().split("\n");
                if (lines.length == 0 || !lines[0].startsWith("#")) {
                    continue;
                }
                StringBuilder key = new StringBuilder(lines[0].contains("virtual") ? "virtual" : "platform");
                for (int i = 1; i <= frames && i < lines.length; i++) {
                    key.append("\n      ").append(lines[i].strip());
                }
                count.merge(key.toString(), 1, Integer::sum);
            }
            return count.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(groups)
                    .map(e -> e.getValue() + " x " + e.getKey()).collect(Collectors.joining("\n"));
        } catch (Exception | LinkageError e) {
            return "no thread dump: " + e;
        }
    }
}
