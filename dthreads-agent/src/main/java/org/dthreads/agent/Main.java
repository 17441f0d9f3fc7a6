package org.dthreads.agent;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.dthreads.agent.internal.AgentScope;
import org.dthreads.agent.internal.Instrumenter;

/**
 * {@code java -jar dthreads-agent.jar instrument IN OUT}: the offline instrumenter's command line.
 * A thin front over {@code internal.Instrumenter}. Exit status: 0 done, 1 failed while
 * instrumenting, 2 bad arguments or input; on failure no output is left behind.
 */
public final class Main {

    static final String USAGE = String.join("\n",
            "usage: java -jar dthreads-agent.jar instrument [options] <in.jar|in-dir> <out.jar|out-dir>",
            "",
            "Rewrites the classes of a jar or class directory ahead of time, as the dthreads agent does at",
            "load time: monitor operations of every class in scope, JRMP twins for remote interfaces and",
            "hook calls in legacy *_Stub classes. Run the output without -javaagent, with dthreads-agent.jar",
            "on the class path. JRMP proxy (java.lang.reflect.Proxy) clients still need the agent, or each",
            "stub passed through org.dthreads.rmi.DThreadsRmi.wrap(stub): the JDK's RemoteObjectInvocationHandler",
            "cannot be patched offline.",
            "",
            "options:",
            "  --include P1,P2   also rewrite classes under these package prefixes (as -Ddthreads.include=)",
            "  --exclude P1,P2   never rewrite classes under these prefixes (as -Ddthreads.exclude=)",
            "  --cp PATH         jars/directories holding super-types of the input's classes (its",
            "                    dependencies), separated by '" + File.pathSeparator + "'; classes whose super-types are",
            "                    not found are copied unchanged and reported",
            "  -q, --quiet       no progress lines, only warnings and the report",
            "  -h, --help        this text",
            "",
            "Signed jars lose their signature (with a warning). The output is written next to its target and",
            "moved into place when complete; an output jar is replaced, an output directory must be empty.");

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println(USAGE);
            return 2;
        }
        String command = args[0];
        if (command.equals("--help") || command.equals("-h") || command.equals("help")) {
            out.println(USAGE);
            return 0;
        }
        if (DiagnoseCommand.handles(command)) {
            return DiagnoseCommand.run(args, out, err);
        }
        if (!command.equals("instrument")) {
            err.println("dthreads: unknown command: " + command + " (try --help)");
            return 2;
        }
        List<String> includes = new ArrayList<>();
        List<String> excludes = new ArrayList<>();
        List<Path> classPath = new ArrayList<>();
        List<String> positional = new ArrayList<>();
        boolean quiet = false;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            try {
                if (a.equals("--help") || a.equals("-h")) {
                    out.println(USAGE);
                    return 0;
                } else if (a.equals("-q") || a.equals("--quiet")) {
                    quiet = true;
                } else if (a.equals("--include") || a.startsWith("--include=")) {
                    includes.add(value(args, a, i));
                    i += a.contains("=") ? 0 : 1;
                } else if (a.equals("--exclude") || a.startsWith("--exclude=")) {
                    excludes.add(value(args, a, i));
                    i += a.contains("=") ? 0 : 1;
                } else if (a.equals("--cp") || a.equals("--classpath") || a.startsWith("--cp=") || a.startsWith("--classpath=")) {
                    for (String p : value(args, a, i).split(File.pathSeparator)) {
                        if (!p.isBlank()) {
                            classPath.add(Path.of(p));
                        }
                    }
                    i += a.contains("=") ? 0 : 1;
                } else if (a.startsWith("-") && a.length() > 1) {
                    err.println("dthreads instrument: unknown option: " + a + " (try --help)");
                    return 2;
                } else {
                    positional.add(a);
                }
            } catch (IllegalArgumentException e) {
                err.println("dthreads instrument: " + e.getMessage());
                return 2;
            }
        }
        if (positional.size() != 2) {
            err.println("dthreads instrument: expected an input and an output, got " + positional.size()
                    + " argument(s)\n" + USAGE.lines().findFirst().orElse(""));
            return 2;
        }
        String agentArgs = (includes.isEmpty() ? "" : "include=" + String.join(",", includes))
                + (excludes.isEmpty() ? "" : ";exclude=" + String.join(",", excludes));
        AgentScope scope = AgentScope.from(agentArgs);
        PrintStream progress = quiet ? new PrintStream(PrintStream.nullOutputStream()) : err;
        Instrumenter instrumenter = new Instrumenter(scope, classPath, new PrintStream(err) {
            @Override
            public void println(String line) {
                (line.contains("WARNING") ? err : progress).println(line);
            }
        });
        Path in = Path.of(positional.get(0));
        Path outPath = Path.of(positional.get(1));
        try {
            if (!quiet) {
                err.println("dthreads instrument: " + in + " -> " + outPath + ", rewriting " + scope);
            }
            Instrumenter.Report report = instrumenter.run(in, outPath);
            out.println("dthreads instrument: wrote " + outPath);
            out.println(report);
            return 0;
        } catch (Instrumenter.InstrumentException e) {
            err.println("dthreads instrument: " + e.getMessage());
            return e.isUsageError() ? 2 : 1;
        }
    }

    private static String value(String[] args, String option, int i) {
        int eq = option.indexOf('=');
        if (eq >= 0) {
            return option.substring(eq + 1);
        }
        if (i + 1 >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i + 1];
    }
}
