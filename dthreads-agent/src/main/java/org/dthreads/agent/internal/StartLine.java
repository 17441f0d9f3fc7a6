package org.dthreads.agent.internal;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.instrument.Instrumentation;
import java.nio.charset.Charset;
import java.util.Locale;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.TimeZone;

/**
 * The "agent started" line, written without starting {@code java.util.logging} when j.u.l. would write exactly
 * the same bytes to the same stream (issue 16: j.u.l.'s start, its date format and its level bundle were about
 * 110 classes and 0.7 MB of metaspace in every agent JVM, for one line).
 *
 * <p>The line goes through {@code System.getLogger("org.dthreads.agent")} as before unless all of these hold
 * ({@link #whyLogger}); together they mean the JDK's default back end, j.u.l., with its default configuration,
 * which writes INFO records of that logger to {@code System.err} through a {@code ConsoleHandler} and the
 * {@code SimpleFormatter}'s default format in the default charset:
 * <ul>
 *   <li>no {@code System.LoggerFinder} service on the system class loader's path (the JDK's own test in
 *       {@code jdk.internal.logger.BootstrapLogger.DetectBackend}: a finder sends the line elsewhere) and the
 *       {@code java.logging} module present;</li>
 *   <li>none of {@code java.util.logging.config.file}, {@code .config.class}, {@code .manager} and
 *       {@code .SimpleFormatter.format} set (the same test the JDK makes before it lets system classes log
 *       through its cheap surrogate loggers: {@code LoggingBackend.JUL_DEFAULT});</li>
 *   <li>the JDK's {@code conf/logging.properties}, which j.u.l. then reads, holds the shipped values for the root
 *       handlers and level, the {@code ConsoleHandler}'s level and formatter, nothing else for the console
 *       handler or the formatter, and nothing for the loggers {@code org}, {@code org.dthreads},
 *       {@code org.dthreads.agent} (the file's other keys, such as the {@code FileHandler}'s, do not reach the
 *       line);</li>
 *   <li>{@code java.util.logging.LogManager} not loaded yet: nobody (another agent) configured j.u.l. in code;</li>
 *   <li>the default locales English ({@code en} or {@code en_US}): the level name ({@code INFO}, localized by
 *       j.u.l.), the month abbreviation and AM/PM are then the ones {@link #format} writes.</li>
 * </ul>
 * Any other case, or any failure while deciding, takes the logger: the line then reaches whatever the user
 * configured, as before. A side effect is gone: the agent no longer initializes j.u.l.'s {@code LogManager} at
 * start, so an application that sets {@code java.util.logging.manager} or a configuration in its {@code main}
 * (before its first use of j.u.l.) now gets it, as it would without the agent.
 */
final class StartLine {

    static final String LOGGER = "org.dthreads.agent";
    /** j.u.l.'s inferred source of the line (class and method of the caller), as it printed it before. */
    static final String SOURCE = "org.dthreads.agent.internal.Installer install";

    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
            "Nov", "Dec"};

    private StartLine() {}

    /**
     * Writes {@code message} at INFO as {@code System.getLogger(LOGGER)} would; returns whether it was written
     * directly (j.u.l. not started).
     */
    static boolean info(Instrumentation inst, String message) {
        String why;
        try {
            why = whyLogger(inst);
        } catch (Throwable e) { // ServiceConfigurationError, a denied property: take the logger
            why = e.toString();
        }
        if (why == null) {
            try {
                write(System.err, format(System.currentTimeMillis(), TimeZone.getDefault(), message));
                return true;
            } catch (RuntimeException e) {
                // fall through to the logger
            }
        }
        System.getLogger(LOGGER).log(System.Logger.Level.INFO, message);
        return false;
    }

    /** Whether j.u.l. has been started by now (by the application, or by the agent's logger use). */
    static boolean julStarted(Instrumentation inst) {
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (c.getName().equals("java.util.logging.LogManager")) {
                return true;
            }
        }
        return false;
    }

    /** Why the line must go through the logger, or null if j.u.l. would write {@link #format}'s bytes. */
    static String whyLogger(Instrumentation inst) {
        for (String p : new String[] {"java.util.logging.config.file", "java.util.logging.config.class",
                "java.util.logging.manager", "java.util.logging.SimpleFormatter.format"}) {
            if (System.getProperty(p) != null) {
                return p + " set";
            }
        }
        String locale = localeProblem(Locale.getDefault());
        if (locale == null) {
            locale = localeProblem(Locale.getDefault(Locale.Category.FORMAT));
        }
        if (locale != null) {
            return locale;
        }
        if (ModuleLayer.boot().findModule("java.logging").isEmpty()) {
            return "no java.logging module";
        }
        if (julStarted(inst)) {
            return "java.util.logging already started";
        }
        if (ServiceLoader.load(System.LoggerFinder.class, ClassLoader.getSystemClassLoader()).iterator().hasNext()) {
            return "a System.LoggerFinder is installed";
        }
        Properties conf = new Properties();
        try (InputStream in = new FileInputStream(System.getProperty("java.home") + "/conf/logging.properties")) {
            conf.load(in);
        } catch (IOException | RuntimeException e) {
            return "conf/logging.properties not read: " + e;
        }
        return confProblem(conf);
    }

    static String localeProblem(Locale l) {
        boolean english = l.getLanguage().equals("en") && (l.getCountry().isEmpty() || l.getCountry().equals("US"))
                && l.getVariant().isEmpty() && l.getScript().isEmpty() && !l.hasExtensions();
        return english ? null : "locale " + l;
    }

    /** Null if the j.u.l. configuration {@code conf} writes this logger's INFO lines as the JDK's default does. */
    static String confProblem(Properties conf) {
        for (String key : conf.stringPropertyNames()) {
            String value = conf.getProperty(key).trim();
            String expected;
            switch (key) {
                case "handlers":
                    expected = "java.util.logging.ConsoleHandler";
                    break;
                case ".level":
                case "java.util.logging.ConsoleHandler.level":
                    expected = "INFO";
                    break;
                case "java.util.logging.ConsoleHandler.formatter":
                    expected = "java.util.logging.SimpleFormatter";
                    break;
                default:
                    if (key.startsWith("java.util.logging.FileHandler.")) {
                        continue; // no FileHandler among the handlers (checked above)
                    }
                    int dot = key.lastIndexOf('.');
                    String logger = dot < 0 ? key : key.substring(0, dot);
                    if (key.startsWith("java.util.logging.") || key.equals("config") || logger.isEmpty()
                            || logger.equals("org") || logger.equals("org.dthreads") || logger.equals(LOGGER)) {
                        return "conf/logging.properties sets " + key;
                    }
                    continue; // another logger's setting
            }
            if (!value.equals(expected)) {
                return "conf/logging.properties sets " + key + "=" + value;
            }
        }
        if (!"java.util.logging.ConsoleHandler".equals(trimmed(conf, "handlers"))
                || !"INFO".equals(trimmed(conf, ".level"))) {
            return "conf/logging.properties lacks the default handlers or level";
        }
        return null;
    }

    private static String trimmed(Properties conf, String key) {
        String v = conf.getProperty(key);
        return v == null ? null : v.trim();
    }

    /**
     * The record as j.u.l.'s {@code SimpleFormatter} writes it in its default format
     * {@code "%1$tb %1$td, %1$tY %1$tl:%1$tM:%1$tS %1$Tp %2$s%n%4$s: %5$s%6$s%n"} for an English locale: date and
     * time in {@code zone}, source, level, message. By hand: {@code String.format} with a {@code ZonedDateTime}
     * loads the formatter, {@code java.time}'s fields and the locale's date symbols.
     */
    static String format(long millis, TimeZone zone, String message) {
        long local = millis + zone.getOffset(millis);
        long days = Math.floorDiv(local, 86_400_000L);
        int msOfDay = (int) Math.floorMod(local, 86_400_000L);
        // civil date from days since 1970-01-01 (H. Hinnant's days_from_civil inverse)
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        int day = (int) (doy - (153 * mp + 2) / 5 + 1);
        int month = (int) (mp < 10 ? mp + 3 : mp - 9);
        long year = yoe + era * 400 + (month <= 2 ? 1 : 0);
        int hour = msOfDay / 3_600_000;
        int minute = msOfDay / 60_000 % 60;
        int second = msOfDay / 1000 % 60;
        int hour12 = hour % 12 == 0 ? 12 : hour % 12;
        String nl = System.lineSeparator();
        StringBuilder b = new StringBuilder(message.length() + 100);
        b.append(MONTHS[month - 1]).append(' ');
        twoDigits(b, day).append(", ");
        String y = Long.toString(year);
        for (int i = y.length(); i < 4; i++) {
            b.append('0');
        }
        b.append(y).append(' ').append(hour12).append(':');
        twoDigits(b, minute).append(':');
        twoDigits(b, second).append(hour < 12 ? " AM " : " PM ");
        return b.append(SOURCE).append(nl).append("INFO: ").append(message).append(nl).toString();
    }

    private static StringBuilder twoDigits(StringBuilder b, int v) {
        return b.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
    }

    /** As j.u.l.'s {@code ConsoleHandler}: the text in the default charset, to the stream, flushed. */
    static void write(PrintStream err, String text) {
        byte[] bytes = text.getBytes(Charset.defaultCharset());
        err.write(bytes, 0, bytes.length);
        err.flush();
    }
}
