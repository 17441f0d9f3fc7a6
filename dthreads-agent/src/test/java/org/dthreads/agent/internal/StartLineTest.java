package org.dthreads.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Properties;
import java.util.TimeZone;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/** The "agent started" line written without j.u.l.: the same bytes j.u.l. writes, and only when it would. */
class StartLineTest {

    /** j.u.l.'s own output for the record the agent used to log, in {@code zone}. */
    private static String jul(long millis, TimeZone zone, String message) {
        TimeZone saved = TimeZone.getDefault();
        TimeZone.setDefault(zone); // SimpleFormatter formats in ZoneId.systemDefault()
        try {
            LogRecord r = new LogRecord(Level.INFO, message);
            r.setInstant(Instant.ofEpochMilli(millis));
            r.setSourceClassName("org.dthreads.agent.internal.Installer");
            r.setSourceMethodName("install");
            r.setLoggerName(StartLine.LOGGER);
            return new SimpleFormatter().format(r);
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    @Test
    void theLineIsWhatJulsSimpleFormatterWritesAtAnyTimeOfDayYearAndZone() {
        assumeTrue(StartLine.localeProblem(Locale.getDefault()) == null
                && StartLine.localeProblem(Locale.getDefault(Locale.Category.FORMAT)) == null, "an English locale");
        assumeTrue(System.getProperty("java.util.logging.SimpleFormatter.format") == null, "the default format");
        String message = "dthreads 1.0 agent started: site 4294967295, rewriting all classes except java.";
        String[] zones = {"UTC", "Europe/Berlin", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Chatham",
                "Australia/Lord_Howe", "America/St_Johns"};
        String[] times = {"2026-11-25T17:36:17", "2026-01-01T00:00:00", "2026-01-01T00:59:59", "2026-12-31T12:00:00",
                "2026-06-05T11:59:59.999", "2024-02-29T23:30:05", "2000-03-01T01:02:03", "1999-12-31T13:00:00",
                "2026-03-29T02:30:00", "2026-10-25T02:30:00", "2100-02-28T09:09:09", "1970-01-01T00:00:00"};
        for (String z : zones) {
            TimeZone zone = TimeZone.getTimeZone(z);
            for (String t : times) {
                long millis = LocalDateTime.parse(t).atZone(ZoneId.of(z)).toInstant().toEpochMilli();
                for (long m : new long[] {millis, millis - 1, millis + 1000}) {
                    assertEquals(jul(m, zone, message), StartLine.format(m, zone, message), z + " " + t + " " + m);
                }
            }
        }
        long now = System.currentTimeMillis();
        for (long m = now - 400L * 86_400_000L; m < now + 400L * 86_400_000L; m += 3_601_234L) {
            assertEquals(jul(m, TimeZone.getDefault(), message), StartLine.format(m, TimeZone.getDefault(), message));
        }
    }

    @Test
    void writtenInTheDefaultCharsetAndFlushed() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean[] flushed = {false};
        PrintStream err = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                bytes.write(b);
            }

            @Override
            public void flush() {
                flushed[0] = true;
            }
        }, false);
        StartLine.write(err, "agent started: ä\n");
        assertTrue(flushed[0]);
        assertEquals("agent started: ä\n", bytes.toString(Charset.defaultCharset()));
    }

    @Test
    void theJdksShippedLoggingPropertiesAreTheDefaults() throws IOException {
        Properties conf = new Properties();
        try (InputStream in = new FileInputStream(System.getProperty("java.home") + "/conf/logging.properties")) {
            conf.load(in);
        }
        assertNull(StartLine.confProblem(conf), conf::toString);
    }

    @Test
    void anyChangeThatReachesTheLineTakesTheLogger() {
        String[][] changes = {{"handlers", "java.util.logging.FileHandler"}, {".level", "WARNING"},
                {"java.util.logging.ConsoleHandler.level", "SEVERE"},
                {"java.util.logging.ConsoleHandler.formatter", "java.util.logging.XMLFormatter"},
                {"java.util.logging.ConsoleHandler.encoding", "UTF-16"},
                {"java.util.logging.SimpleFormatter.format", "%5$s%n"}, {"org.level", "OFF"},
                {"org.dthreads.level", "OFF"}, {"org.dthreads.agent.level", "WARNING"},
                {"org.dthreads.agent.handlers", "java.util.logging.FileHandler"},
                {"org.dthreads.agent.useParentHandlers", "false"}, {".handlers", "java.util.logging.FileHandler"},
                {"config", "com.example.LoggingSetUp"}};
        for (String[] change : changes) {
            Properties conf = defaults();
            conf.setProperty(change[0], change[1]);
            assertNotNull(StartLine.confProblem(conf), change[0]);
        }
        Properties conf = defaults();
        conf.remove(".level");
        assertNotNull(StartLine.confProblem(conf), "no root level");
        conf = defaults();
        conf.setProperty("com.xyz.foo.level", "SEVERE"); // another logger, as in the shipped file
        conf.setProperty("java.util.logging.FileHandler.limit", "1"); // a handler not in use
        conf.setProperty("org.dthreadsx.level", "OFF"); // not a parent of org.dthreads.agent
        assertNull(StartLine.confProblem(conf));
    }

    @Test
    void onlyEnglishLocalesWriteDirectly() {
        assertNull(StartLine.localeProblem(Locale.ENGLISH));
        assertNull(StartLine.localeProblem(Locale.US));
        assertNull(StartLine.localeProblem(new Locale("en")));
        assertNotNull(StartLine.localeProblem(Locale.UK)); // "Sept" in CLDR's en_GB
        assertNotNull(StartLine.localeProblem(Locale.GERMANY)); // INFORMATION, Nov.
        assertNotNull(StartLine.localeProblem(Locale.forLanguageTag("en-US-u-nu-arab")));
    }

    private static Properties defaults() {
        Properties p = new Properties();
        p.setProperty("handlers", " java.util.logging.ConsoleHandler");
        p.setProperty(".level", "INFO");
        p.setProperty("java.util.logging.ConsoleHandler.level", "INFO");
        p.setProperty("java.util.logging.ConsoleHandler.formatter", "java.util.logging.SimpleFormatter");
        return p;
    }
}
